import type Uppy from '@uppy/core';
import type { Body, UppyFile } from '@uppy/core';
import { isAbort, VideoServiceError } from '../api/errors.js';
import { MiB } from '../api/limits.js';
import type { Emit } from '../events.js';
import type { ShrinkTarget } from '../options.js';
import type { VideoMeta, WiringDeps } from '../upload/aws-s3-options.js';
import { fileInfo } from '../upload/file-info.js';
import { MIN_CHUNK_BYTES } from '../upload/plan.js';
import { putBytes } from '../upload/put.js';
import type { Probe } from './protocol.js';
import { Shrinker } from './shrinker.js';

type File = UppyFile<VideoMeta, Body>;
export type Uploader = (fileIds: string[], uploadId: string) => Promise<unknown>;

export interface ShrinkDeps extends WiringDeps {
  emit: Emit;
  shrinkTo: () => ShrinkTarget | null;
}

/**
 * Chunks of a shrunk video's output: small, as each is held in memory until its PUT ends (at most
 * `parallel-uploads` of them, plus the one being written), and at least the 5 MiB every chunk but the last must be.
 * 8 MiB chunks reach 80 GB within the spec's 10,000.
 */
const SHRUNK_CHUNK_BYTES = Math.max(8 * MiB, MIN_CHUNK_BYTES);
/** Bytes of the file PUT once per element to measure the link's upload speed, in a session then aborted (#7). */
const UPLINK_PROBE_BYTES = 4 * MiB;
/** A measured upload speed is trusted this long; later ones are measured again. */
const UPLINK_KEEP_MS = 5 * 60_000;

/**
 * Uppy's uploader when `max-upload-resolution` is set: each video first probed (shrink.worker.ts: can this browser
 * re-encode it, and how fast), then sent either shrunk, by this module, which streams the worker's output into a
 * multipart session (#3, #4, #5, #6) as it is written, or as it is, by @uppy/aws-s3 (`s3Upload`), both at once.
 * This module emits the Uppy events @uppy/aws-s3 would (`upload-start`, `upload-progress` in bytes of the output,
 * `upload-success`, `upload-error`), so the element's events and the Dashboard follow a shrunk video as any other.
 */
export function shrinkingUploader(uppy: Uppy<VideoMeta, Body>, deps: ShrinkDeps, s3Upload: Uploader): Uploader {
  let uplink: { bytesPerSecond: number; at: number } | undefined;

  /** The link's upload speed in bytes a second: measured once (per UPLINK_KEEP_MS) on the first bytes of `file`. */
  async function uplinkSpeed(file: File, videoId: string): Promise<number> {
    if (uplink && Date.now() - uplink.at < UPLINK_KEEP_MS) return uplink.bytesPerSecond;
    const client = deps.client();
    const session = await client.beginMultipart(videoId);
    try {
      const { url } = await client.getChunkUploadUrl(videoId, session.key, 1);
      const body = (file.data as Blob).slice(0, UPLINK_PROBE_BYTES);
      const started = performance.now();
      await putBytes({ url, body, contentType: 'application/octet-stream', onProgress: () => undefined });
      uplink = { bytesPerSecond: body.size / ((performance.now() - started) / 1000), at: Date.now() };
      return uplink.bytesPerSecond;
    } finally {
      await client.abortMultipart(session.key).catch(() => undefined);
    }
  }

  /** Probes `file` and says what is sent: its choice, the probe, and the predicted seconds for each choice. */
  async function decide(file: File, target: ShrinkTarget): Promise<{ probe: Probe; choice: string }> {
    const videoId = await deps.ensureVideo(file);
    const shrinker = new Shrinker();
    const [probe, rate] = await Promise.all([
      shrinker.probe(file.data as Blob, target).finally(() => shrinker.stop()),
      uplinkSpeed(file, videoId),
    ]);
    const size = file.size ?? 0;
    const predicted: Record<string, number> = { original: round(size / rate) };
    if (probe.shrinks) predicted[target.label] = round(predictShrunk(probe, rate));
    const choice = probe.shrinks ? target.label : 'original';
    deps.emit('shrink-start', {
      file: fileInfo(file),
      choice,
      predicted,
      canEncode: probe.shrinks,
      ...(probe.shrinks ? {} : { reason: probe.reason }),
    });
    return { probe, choice };
  }

  return async (fileIds, uploadId) => {
    const target = deps.shrinkTo();
    if (!target) return s3Upload(fileIds, uploadId);
    const files = uppy.getFilesByIds(fileIds).filter((f) => !f.error && !f.progress.uploadComplete);
    const asIs = fileIds.filter((id) => !files.some((f) => f.id === id));
    const shrinking: Promise<void>[] = [];
    // One probe at a time: each decodes and encodes the first seconds of its file.
    for (const file of files) {
      if (!(file.data instanceof Blob) || !file.type.startsWith('video/')) {
        asIs.push(file.id);
        continue;
      }
      uppy.emit('upload-start', [file]);
      const decision = await decide(file, target).catch((err: unknown) => fail(file, err));
      if (!decision) continue;
      if (decision.probe.shrinks) shrinking.push(sendShrunk(file, target, decision.probe));
      else asIs.push(file.id);
    }
    await Promise.all([asIs.length ? s3Upload(asIs, uploadId) : undefined, ...shrinking]);
  };

  function fail(file: File, err: unknown): undefined {
    if (!isAbort(err) && uppy.getFile(file.id)) uppy.emit('upload-error', uppy.getFile(file.id), err as Error);
    return undefined;
  }

  /**
   * The output of the worker, PUT chunk by chunk as it is cut, into a session of its own (#3); #6 once the output
   * is whole. Removing the file (or Cancel) stops the worker and aborts the session (#7). Pausing stops the PUTs
   * (each chunk under way is sent again on resume); the worker then waits too, with its chunks unsent.
   */
  async function sendShrunk(file: File, target: ShrinkTarget, probe: Probe & { shrinks: true }): Promise<void> {
    const client = deps.client();
    const videoId = await deps.ensureVideo(file);
    const session = await client.beginMultipart(videoId);
    const shrinker = new Shrinker();
    const stopped = new AbortController();
    const etags = new Map<number, string>();
    const sent = new Map<number, number>();
    let estimate = probe.outBytesPerSecond * probe.duration;
    let paused = !!uppy.getFile(file.id)?.isPaused;
    let resume: (() => void) | undefined;
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
      else resume?.();
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
      resume?.();
    });

    /** One chunk: #4, then its PUT (#5), again after a pause, until its ETag is in. */
    async function put(chunkId: number, bytes: Blob): Promise<void> {
      while (!stopped.signal.aborted) {
        while (paused && !stopped.signal.aborted) await new Promise<void>((r) => (resume = r));
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
        target,
        { chunkSize: SHRUNK_CHUNK_BYTES, window: deps.parallelUploads() },
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
      progress.now();
      const current = uppy.getFile(file.id);
      if (current) uppy.emit('upload-success', current, { status: 200, body: {}, uploadURL: url });
    } catch (err) {
      stopped.abort();
      // The output was held in memory only: what was sent cannot be finished, so the session goes (#7) and a Retry
      // encodes again.
      await client.abortMultipart(session.key).catch(() => undefined);
      const failure = await Promise.allSettled(puts).then(
        (results) => results.find((r) => r.status === 'rejected')?.reason as unknown,
      );
      const removed = !uppy.getFile(file.id);
      if (!removed) fail(file, isAbort(err) && failure ? failure : asError(err));
    } finally {
      shrinker.stop();
      uppy.off('upload-pause', onPause);
      uppy.off('pause-all', onPauseAll);
      uppy.off('resume-all', onResumeAll);
      uppy.off('file-removed', onRemoved);
      uppy.off('cancel-all', onCancelAll);
    }
  }
}

/** Seconds from the upload's start until a shrunk video's bytes are all in: encoding and sending overlap. */
export function predictShrunk(probe: Probe & { shrinks: true }, bytesPerSecond: number): number {
  const encode = (probe.duration * probe.frameRate) / probe.encodeFps;
  const bytes = probe.outBytesPerSecond * probe.duration;
  // The last chunk and chunk 1 go after the encoder's last frame.
  const tail = Math.min(bytes, 2 * SHRUNK_CHUNK_BYTES) / bytesPerSecond;
  return Math.max(encode, bytes / bytesPerSecond) + tail;
}

const round = (seconds: number) => Math.round(seconds * 10) / 10;

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
