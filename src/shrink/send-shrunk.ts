import type Uppy from '@uppy/core';
import type { Body, UppyFile } from '@uppy/core';
import { isAbort, VideoServiceError } from '../api/errors.js';
import { DEFAULT_PARALLEL_UPLOADS, type ShrinkTarget } from '../options.js';
import type { VideoMeta } from '../upload/aws-s3-options.js';
import { MIN_CHUNK_BYTES } from '../upload/plan.js';
import { putBytes } from '../upload/put.js';
import type { Probe, Trim } from './protocol.js';
import type { ShrinkDeps } from './shrink-uploader.js';
import { Shrinker } from './shrinker.js';

type File = UppyFile<VideoMeta, Body>;

/**
 * Chunks of a shrunk video's output, unless `chunk-size` says otherwise: the 5 MiB every chunk but the last must be,
 * and no more. Each is held in memory until its PUT ends (at most `parallel-uploads` of them, six when it is unset,
 * plus the one being written), and the first is sent once 5 MiB are written (about 7 s of 1080p). They reach 50 GB
 * within the spec's 10,000 chunks.
 */
export const SHRUNK_CHUNK_BYTES = MIN_CHUNK_BYTES;

/** Tells Uppy (and so the person, and `upload-error`) that `file` failed, unless it was cancelled or removed. */
export function fail(uppy: Uppy<VideoMeta, Body>, file: File, err: unknown): undefined {
  const current = uppy.getFile(file.id);
  if (!isAbort(err) && current) uppy.emit('upload-error', current, err as Error);
  return undefined;
}

/**
 * The output of the worker, PUT chunk by chunk as it is cut, into a session of its own (#3); #6 once the output
 * is whole. Removing the file (or Cancel) stops the worker and aborts the session (#7). Pausing stops the PUTs
 * (each chunk under way is sent again on resume); the worker then waits too, with its chunks unsent.
 */
export async function sendShrunk(
  uppy: Uppy<VideoMeta, Body>,
  deps: ShrinkDeps,
  file: File,
  { box, trim, probe }: { box: ShrinkTarget | null; trim: Trim | undefined; probe: Probe },
): Promise<void> {
  const client = deps.client();
  const videoId = await deps.ensureVideo(file);
  // An output is never continued: a session an earlier encode of this file left (a reload, Golden Retriever's
  // restore) goes first (#7), so no session ever holds chunks of two encodes.
  const stale = file.meta.shrinkSession;
  if (stale) await client.abortMultipart(stale).catch(() => undefined);
  const session = await client.beginMultipart(videoId);
  deps.setMeta(file.id, { shrinkSession: session.key });
  const chunkSize = Math.max(deps.chunkSize() ?? SHRUNK_CHUNK_BYTES, MIN_CHUNK_BYTES);
  const shrinker = new Shrinker();
  const stopped = new AbortController();
  const etags = new Map<number, string>();
  const sent = new Map<number, number>();
  const duration = probe.facts?.duration ?? 0;
  const kept = trim && duration ? (trim.end - trim.start) / duration : 1;
  let estimate = probe.shrinks && box ? probe.outBytesPerSecond * duration * kept : (file.size ?? 0) * kept;
  let paused = !!uppy.getFile(file.id)?.isPaused;
  /** The chunks waiting out a pause: each goes on when it ends (or the upload stops). */
  const waiting = new Set<() => void>();
  const wake = () => (waiting.forEach((go) => go()), waiting.clear());
  const running = new Set<AbortController>();

  const progress = throttled(() => {
    const current = uppy.getFile(file.id);
    if (!current) return;
    const bytesUploaded = [...sent.values()].reduce((a, b) => a + b, 0);
    uppy.emit('upload-progress', current, {
      uploadStarted: current.progress.uploadStarted ?? Date.now(),
      bytesUploaded,
      bytesTotal: Math.max(estimate, bytesUploaded),
    });
  });

  const setPaused = (value: boolean) => {
    paused = value;
    if (paused) running.forEach((put) => put.abort());
    else wake();
  };
  const onPause = (f: File | undefined, isPaused: boolean) => f?.id === file.id && setPaused(isPaused);
  const onPauseAll = () => setPaused(true);
  const onResumeAll = () => setPaused(false);
  const onRemoved = (f: File) => f.id === file.id && stopped.abort();
  const onCancelAll = () => stopped.abort();
  uppy.on('upload-pause', onPause);
  uppy.on('pause-all', onPauseAll);
  uppy.on('resume-all', onResumeAll);
  uppy.on('file-removed', onRemoved);
  uppy.on('cancel-all', onCancelAll);
  stopped.signal.addEventListener('abort', () => {
    shrinker.stop();
    running.forEach((put) => put.abort());
    wake();
  });

  /** One chunk: #4, then its PUT (#5), again after a pause, until its ETag is in. */
  async function put(chunkId: number, bytes: Blob): Promise<void> {
    while (!stopped.signal.aborted) {
      while (paused && !stopped.signal.aborted) await new Promise<void>((go) => waiting.add(go));
      if (stopped.signal.aborted) break;
      const attempt = new AbortController();
      running.add(attempt);
      try {
        const { url } = await client.getChunkUploadUrl(videoId, session.key, chunkId, attempt.signal);
        const etag = await putBytes({
          url,
          body: bytes,
          contentType: 'video/mp4',
          signal: attempt.signal,
          verify: deps.verifyChunks(),
          onProgress: ({ loaded }) => (sent.set(chunkId, loaded), progress()),
          onRetry: (err, _retry, delay) => deps.onRetry?.(file, err, delay),
        });
        etags.set(chunkId, etag);
        sent.set(chunkId, bytes.size);
        progress();
        return;
      } catch (err) {
        sent.set(chunkId, 0);
        if (!(isAbort(err) && (paused || stopped.signal.aborted))) throw err;
      } finally {
        running.delete(attempt);
      }
    }
  }

  const puts: Promise<void>[] = [];
  try {
    const { size } = await shrinker.convert(
      file.data as Blob,
      // A fixed window: the encoder, not the link, is what limits it.
      { box, trim, chunkSize, window: deps.parallelUploads() ?? DEFAULT_PARALLEL_UPLOADS },
      {
        chunk: (chunkId, bytes) => {
          const sending = put(chunkId, new Blob([bytes])).then(() => shrinker.sent(chunkId));
          sending.catch(() => stopped.abort());
          puts.push(sending);
        },
        progress: (fraction, written) => {
          if (fraction > 0.05) estimate = Math.max(written, written / fraction);
        },
      },
    );
    estimate = size;
    await Promise.all(puts);
    if (stopped.signal.aborted) throw new DOMException('The upload was cancelled.', 'AbortError');
    const chunks = [...etags].sort(([a], [b]) => a - b).map(([chunkId, eTag]) => ({ chunkId, eTag }));
    const { url } = await client.completeMultipart(videoId, session.key, chunks);
    deps.setMeta(file.id, { shrinkSession: undefined });
    progress.now();
    const current = uppy.getFile(file.id);
    if (current) uppy.emit('upload-success', current, { status: 200, body: {}, uploadURL: url });
  } catch (err) {
    stopped.abort();
    // The output was held in memory only: what was sent cannot be finished, so the session goes (#7) and a Retry
    // encodes again.
    await client.abortMultipart(session.key).catch(() => undefined);
    if (uppy.getFile(file.id)) deps.setMeta(file.id, { shrinkSession: undefined });
    const failure = await Promise.allSettled(puts).then(
      (results) => results.find((r) => r.status === 'rejected')?.reason as unknown,
    );
    const removed = !uppy.getFile(file.id);
    if (!removed) fail(uppy, file, isAbort(err) && failure ? failure : asError(err));
  } finally {
    shrinker.stop();
    uppy.off('upload-pause', onPause);
    uppy.off('pause-all', onPauseAll);
    uppy.off('resume-all', onResumeAll);
    uppy.off('file-removed', onRemoved);
    uppy.off('cancel-all', onCancelAll);
  }
}

const asError = (err: unknown): Error =>
  err instanceof Error
    ? err
    : new VideoServiceError(`The video could not be shrunk: ${String(err)}`, 0, 'shrink_failed', false);

/** `fn` at most every 100 ms (the Dashboard re-renders on each), and `now()` at once. */
function throttled(fn: () => void): (() => void) & { now: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      fn();
    }, 100);
  };
  return Object.assign(call, { now: () => (clearTimeout(timer), (timer = undefined), fn()) });
}
