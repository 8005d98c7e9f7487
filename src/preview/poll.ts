import type { VideoServiceClient } from '../api/client.js';
import { isAbort } from '../api/errors.js';
import { wait } from '../api/retry.js';
import type { VideoDetails } from '../api/types.js';

/** Bounded backoff while a video processes: 1 s, growing by half each time, never more than 10 s apart. */
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 10_000;
/** After this long, polling stops and the element says the video will be ready later. */
const GIVE_UP_AFTER_MS = 60 * 60_000;

/**
 * Polls #8 until the video is ready or failed; resolves with it, or with null when it gave up.
 * Stops at once when `signal` aborts (the element was disconnected). A failed poll is tried again.
 */
export async function pollVideo(
  client: VideoServiceClient,
  videoId: string,
  signal: AbortSignal,
): Promise<VideoDetails | null> {
  const start = Date.now();
  for (let delay = FIRST_DELAY_MS; Date.now() - start < GIVE_UP_AFTER_MS; delay = Math.min(delay * 1.5, MAX_DELAY_MS)) {
    try {
      const video = await client.getVideo(videoId, signal);
      if (video.status === 'ready' || video.status === 'failed') return video;
    } catch (err) {
      if (isAbort(err) || signal.aborted) throw err;
    }
    await wait(delay, signal);
  }
  return null;
}
