import { rm } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import type { Db } from '../db/index.js';
import { RetryAt } from '../jobs.js';
import { retryOutage } from '../outages.js';
import { MediaError } from '../processing/ffmpeg.js';
import { processMedia, type Processed, type ProcessingLimits } from '../processing/pipeline.js';
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

/** What processing needs: the video's row and file, where a conversion is settled, where the organization hears of it. */
export interface ProcessingDeps {
  /** The transaction that records a video's end with what follows from it (endProcessing). */
  db: Db;
  videos: Videos;
  files: Files;
  exports: Exports;
  uploads: Uploads;
  webhooks: Webhooks;
  limits: ProcessingLimits;
  clock: Clock;
  /** Media on an S3 store: the source is read from it and the outputs written back; the disk keeps neither. */
  remote?: S3Media;
}

/**
 * The PROCESS_VIDEO job: a video's source becomes its HLS renditions and MP4, or a failure a person can read;
 * then a conversion that made it is settled, and the organization hears of it.
 * Decision: every video that becomes ready announces `video-ready`, uploaded or converted from a recording.
 * Decision: below the disk's reserve (room for about the source's size again: the joined source, then renditions
 * of its order), processing waits and tries again every 30 s instead of failing: the upload was accepted, and
 * nothing accepted is lost; #8 says `processing` meanwhile. So it does while the database or the store is away
 * (service/outages.ts): a failure is the media's or the service's limits', never an engine's restart.
 */
export function processVideo(deps: ProcessingDeps) {
  const { videos, files, clock, remote } = deps;
  return async ({ videoId: id }: { videoId: string }, signal: AbortSignal, attempt: number): Promise<void> => {
    try {
      const video = await videos.row(id);
      // Its end is recorded already (this job run again after it, say): nothing is left to do.
      if (video?.status !== 'processing') return;
      await waitForRoom(files, video.size ?? 0, clock);
      await deps.uploads.assemble(id);
      if (remote) await remote.fetchSource(video.organization_id, id, files.source(id));
      const processed = await processMedia(files.source(id), files.media(id, ''), signal, deps.limits);
      if (remote) await remote.publish(video.organization_id, id, files.media(id, ''));
      await endProcessing(deps, id, { ready: processed });
    } catch (err) {
      if (signal.aborted) throw err;
      const gaveUp = retryOutage(err, attempt, clock.now());
      if (!gaveUp && !(err instanceof MediaError)) log.error({ err }, `processing ${id} failed`);
      const reason = err instanceof MediaError ? err.message : `Processing failed: ${gaveUp ?? (err as Error).message}`;
      // Recording the failure needs the database too: away, the job runs again and comes back here then.
      await endProcessing(deps, id, { failed: reason }).catch((lost: unknown) => {
        retryOutage(lost, attempt, clock.now());
        throw lost;
      });
    } finally {
      // The store has the source and the outputs: the local copies were processing's work space.
      if (remote) await rm(files.videoDir(id), { recursive: true, force: true });
    }
  };
}

/**
 * A video's processing ends, once: it becomes ready (or failed) only if it is still processing, and in the same
 * transaction a conversion that made it is settled and, when ready, `video-ready` is queued. Another end of the same
 * video (its job run again after the end was recorded, a worker that lost its lease) changes nothing and announces
 * nothing; and an end whose transaction the database cut off leaves the video processing, for the job's next run.
 */
export async function endProcessing(
  deps: Pick<ProcessingDeps, 'db' | 'videos' | 'exports' | 'webhooks'>,
  id: string,
  end: { ready: Processed } | { failed: string },
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const ended =
      'ready' in end
        ? await deps.videos.markReady(id, end.ready, trx)
        : await deps.videos.markFailed(id, end.failed, trx);
    if (!ended) return;
    await deps.exports.videoDone(id, trx);
    if (!('ready' in end)) return;
    const { organization_id, environment } = (await deps.videos.row(id, trx))!;
    await deps.webhooks.emit(
      organization_id,
      environment,
      'video-ready',
      { _id: id, mediainfo: end.ready.mediainfo },
      trx,
    );
  });
}
