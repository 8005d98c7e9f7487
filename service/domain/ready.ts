import { rm } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import { RetryAt } from '../jobs.js';
import { MediaError } from '../processing/ffmpeg.js';
import { processMedia, type ProcessingLimits } from '../processing/pipeline.js';
import type { Files } from '../storage/files.js';
import type { S3Media } from '../storage/s3-media.js';
import { ServiceError } from './errors.js';
import type { Exports } from './exports.js';
import type { Uploads } from './uploads.js';
import type { Videos } from './videos.js';
import type { Webhooks } from './webhooks.js';
import { log } from '../log.js';

/** How long work that needs room on the storage waits before it looks again. */
const ROOM_RETRY_MS = 30_000;

/**
 * Work the service owes for bytes it accepted (processing an upload, completing a recording) needs `bytes` of room:
 * below the reserve it waits and tries again (RetryAt) rather than fail, so nothing accepted is lost.
 */
export async function waitForRoom(files: Files, bytes: number, clock: Clock): Promise<void> {
  await files.disk.assertRoom(bytes).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === 'insufficient_storage')
      throw new RetryAt(clock.now() + ROOM_RETRY_MS, err.message);
    throw err;
  });
}

/**
 * The PROCESS_VIDEO job: a video's source becomes its HLS renditions and MP4, or a failure a person can read;
 * then a conversion that made it is settled, and the organization hears of it.
 * Decision: every video that becomes ready announces `video-ready`, uploaded or converted from a recording.
 * Decision: below the disk's reserve (room for about the source's size again: the joined source, then renditions
 * of its order), processing waits and tries again every 30 s instead of failing: the upload was accepted, and
 * nothing accepted is lost; #8 says `processing` meanwhile.
 */
export function processVideo(deps: {
  videos: Videos;
  files: Files;
  exports: Exports;
  uploads: Uploads;
  webhooks: Webhooks;
  limits: ProcessingLimits;
  clock: Clock;
  /** Media on an S3 store: the source is read from it and the outputs written back; the disk keeps neither. */
  remote?: S3Media;
}) {
  const { videos, files, exports, webhooks } = deps;
  return async ({ videoId: id }: { videoId: string }, signal: AbortSignal): Promise<void> => {
    await waitForRoom(files, (await videos.row(id))?.size ?? 0, deps.clock);
    try {
      await deps.uploads.assemble(id);
      const org = (await videos.row(id))!.organization_id;
      if (deps.remote) await deps.remote.fetchSource(org, id, files.source(id));
      const processed = await processMedia(files.source(id), files.media(id, ''), signal, deps.limits);
      if (deps.remote) await deps.remote.publish(org, id, files.media(id, ''));
      await videos.markReady(id, processed);
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof MediaError)) log.error({ err }, `processing ${id} failed`);
      await videos.markFailed(
        id,
        err instanceof MediaError ? err.message : `Processing failed: ${(err as Error).message}`,
      );
    } finally {
      // The store has the source and the outputs: the local copies were processing's work space.
      if (deps.remote) await rm(files.videoDir(id), { recursive: true, force: true });
    }
    await exports.videoDone(id);
    const row = await videos.row(id);
    if (row?.status === 'ready') {
      await webhooks.emit(row.organization_id, row.environment, 'video-ready', {
        _id: id,
        mediainfo: (await videos.details(row)).mediainfo,
      });
    }
  };
}
