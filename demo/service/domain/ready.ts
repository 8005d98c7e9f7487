import { MediaError } from '../processing/ffmpeg.js';
import { processMedia, type ProcessingLimits } from '../processing/pipeline.js';
import type { Files } from '../storage/files.js';
import type { Exports } from './exports.js';
import type { Uploads } from './uploads.js';
import type { Videos } from './videos.js';
import type { Webhooks } from './webhooks.js';

/**
 * The PROCESS_VIDEO job: a video's source becomes its HLS renditions and MP4, or a failure a person can read;
 * then a conversion that made it is settled, and the organization hears of it.
 * Decision: every video that becomes ready announces `video-ready`, uploaded or converted from a recording.
 */
export function processVideo(deps: {
  videos: Videos;
  files: Files;
  exports: Exports;
  uploads: Uploads;
  webhooks: Webhooks;
  limits: ProcessingLimits;
}) {
  const { videos, files, exports, webhooks } = deps;
  return async (payload: Record<string, unknown>, signal: AbortSignal): Promise<void> => {
    const id = payload.videoId as string;
    try {
      await deps.uploads.assemble(id);
      videos.markReady(id, await processMedia(files.source(id), files.media(id, ''), signal, deps.limits));
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof MediaError)) console.error(`processing ${id}:`, err);
      videos.markFailed(id, err instanceof MediaError ? err.message : `Processing failed: ${(err as Error).message}`);
    }
    await exports.videoDone(id);
    const row = videos.row(id);
    if (row?.status === 'ready') {
      webhooks.emit(row.organization_id, row.environment, 'video-ready', {
        _id: id,
        mediainfo: videos.details(row).mediainfo,
      });
    }
  };
}
