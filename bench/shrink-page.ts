/**
 * bench/shrink.bench.ts's page: one upload of the picked video by `<video-uploader auto-proceed>`, with the
 * attributes the run names (`max-upload-resolution`, or none for the original), timed from the pick by the
 * element's own events until `video-ready`. The runner sets #source from disk, as a user picks a file.
 */
import { VideoUploader } from '../src/index.js';
import { Shrinker } from '../src/shrink/shrinker.js';
import type { VideoDetails } from '../src/api/types.js';

/** `shrink-start`'s detail (issue 31): what was chosen for the file, and the finish times the card predicted. */
interface ShrinkStart {
  choice: string;
  /** Seconds from the upload's start to its end (upload-success), for each choice the card offered. */
  predicted: Record<string, number>;
  canEncode: boolean;
  reason?: string;
}

/** What one upload measured; every `…Ms` is milliseconds after the pick. */
export interface ShrinkRun {
  /** `shrink-start`, when the element fired it: the probe's end, and the upload's start for a shrunk file. */
  shrinkStart?: ShrinkStart & { ms: number };
  /** #1 answered. */
  createdMs?: number;
  /** The first `upload-progress` with bytes sent. */
  firstByteMs?: number;
  /** Each change of `upload-progress`'s `bytesTotal`: a shrunk file's total is known only when its encode ends. */
  totals: [ms: number, bytesTotal: number][];
  bytesSent: number;
  successMs: number;
  readyMs: number;
  /** The pick, in ms since the epoch: to place the service's `ready_time` on the same line. */
  pickedAt: number;
  video: Pick<VideoDetails, '_id' | 'ready_time' | 'duration' | 'download_url'>;
}

const el = document.querySelector('video-uploader') as VideoUploader;
// Used, not only imported: a production build takes package.json's `sideEffects`, which names dist/ only, at its
// word and would drop a bare import of src/ with the element's registration (as bench/page.ts says).
if (!(el instanceof VideoUploader)) throw new Error('<video-uploader> is not defined');

(window as any).shrink = async (api: string, token: string, attributes: Record<string, string>): Promise<ShrinkRun> => {
  const file = document.querySelector<HTMLInputElement>('#source')!.files![0]!;
  el.tokenProvider = async () => token;
  el.setAttribute('base-url', api);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await el.updateComplete;
  while (el.shadowRoot!.querySelector('.uppy-Dashboard--isDisabled')) await new Promise((r) => setTimeout(r, 10));

  let picked = 0;
  const since = () => Math.round(performance.now() - picked);
  const run: Partial<ShrinkRun> & { totals: ShrinkRun['totals'] } = { totals: [], bytesSent: 0 };
  const listen = (name: string, on: (detail: any) => void) =>
    el.addEventListener(name, (e) => on((e as CustomEvent).detail));
  listen('shrink-start', (d: ShrinkStart) => (run.shrinkStart = { ...d, ms: since() }));
  listen('video-created', () => (run.createdMs ??= since()));
  listen('upload-progress', (d: { bytesSent: number; bytesTotal: number }) => {
    if (d.bytesSent > 0) run.firstByteMs ??= since();
    if (run.totals.at(-1)?.[1] !== d.bytesTotal) run.totals.push([since(), d.bytesTotal]);
    run.bytesSent = d.bytesSent;
  });
  const ready = new Promise<VideoDetails>((resolve, reject) => {
    listen('upload-success', () => (run.successMs = since()));
    listen('video-ready', (d: { video: VideoDetails }) => resolve(d.video));
    listen('video-failed', (d: { reason: string }) => reject(new Error(`video-failed: ${d.reason}`)));
    listen('upload-error', (d: { error: Error }) => reject(new Error(`upload-error: ${d.error.message}`)));
    listen('config-error', (d: { message: string }) => reject(new Error(`config-error: ${d.message}`)));
  });

  const input = el.shadowRoot!.querySelector<HTMLInputElement>('.uppy-Dashboard-input')!;
  const transfer = new DataTransfer();
  transfer.items.add(file);
  input.files = transfer.files;
  picked = performance.now();
  run.pickedAt = Date.now();
  input.dispatchEvent(new Event('change', { bubbles: true }));
  const video = await ready;
  run.readyMs = since();
  run.video = {
    _id: video._id,
    ready_time: video.ready_time,
    duration: video.duration,
    download_url: video.download_url,
  };
  return run as ShrinkRun;
};
/**
 * The shrinking worker alone, as the element runs it for `max-upload-resolution="1080p"`, with nothing uploaded: each
 * chunk is dropped as it comes (one at a time). What the renderer's memory grows by then is the browser's decoder,
 * scaler and encoder, and the worker's own buffers; the page's and the upload's are not in it.
 */
(window as any).shrinkAlone = async (chunkSize: number): Promise<{ ms: number; size: number }> => {
  const file = document.querySelector<HTMLInputElement>('#source')!.files![0]!;
  const shrinker = new Shrinker();
  const started = performance.now();
  try {
    const { size } = await shrinker.convert(
      file,
      { box: { long: 1920, short: 1080 }, chunkSize, window: 1 },
      { chunk: (chunkId) => shrinker.sent(chunkId), progress: () => undefined },
    );
    return { ms: performance.now() - started, size };
  } finally {
    shrinker.stop();
  }
};

(window as any).benchReady = true;
