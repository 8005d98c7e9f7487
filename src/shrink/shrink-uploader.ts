import type Uppy from '@uppy/core';
import type { Body, UppyFile } from '@uppy/core';
import { isAbort, VideoServiceError } from '../api/errors.js';
import { MiB } from '../api/limits.js';
import type { Emit } from '../events.js';
import { hasMediaLimits, type MediaLimits, type ShrinkTarget } from '../options.js';
import type Dashboard from '@uppy/dashboard';
import type { ShrinkChoice, VideoMeta, WiringDeps } from '../upload/aws-s3-options.js';
import { fileInfo } from '../upload/file-info.js';
import { refusal } from '../upload/media-check.js';
import { MIN_CHUNK_BYTES } from '../upload/plan.js';
import { putBytes } from '../upload/put.js';
import type { Probe, Trim } from './protocol.js';
import { ShrinkEditor } from './shrink-editor.js';
import { Shrinker } from './shrinker.js';

type File = UppyFile<VideoMeta, Body>;
export type Uploader = (fileIds: string[], uploadId: string) => Promise<unknown>;

export interface ShrinkDeps extends WiringDeps {
  emit: Emit;
  shrinkTo: () => ShrinkTarget | null;
  /** Whether each video's card has a trim editor (`trim`). */
  trim: () => boolean;
  /** `max-duration`, `max-resolution` and the like: judged again on what is sent. */
  media: () => MediaLimits;
  /** `chunk-size`, when set: the output's chunks too (at least 5 MiB). */
  chunkSize: () => number | null;
}

/**
 * Chunks of a shrunk video's output, unless `chunk-size` says otherwise: small, as each is held in memory until its PUT ends (at most
 * `parallel-uploads` of them, plus the one being written), and at least the 5 MiB every chunk but the last must be.
 * 8 MiB chunks reach 80 GB within the spec's 10,000.
 */
const SHRUNK_CHUNK_BYTES = Math.max(8 * MiB, MIN_CHUNK_BYTES);
/** Bytes of the file PUT once per element to measure the link's upload speed, in a session then aborted (#7). */
const UPLINK_PROBE_BYTES = 4 * MiB;
/** A measured upload speed is trusted this long; later ones are measured again. */
const UPLINK_KEEP_MS = 5 * 60_000;

/**
 * What the element does with videos under `max-upload-resolution`. Each video is probed when it is added
 * (shrink.worker.ts: can this browser re-encode it, and how fast; and the link's upload speed, once), so its card
 * shows the choices with their predicted times (shrink-editor.ts) before the upload. The uploader then sends each
 * either shrunk, streaming the worker's output into a multipart session (#3, #4, #5, #6) as it is written
 * (`sendShrunk`), or as it is, through @uppy/aws-s3 (`s3Upload`), both at once. Shrunk videos get the Uppy events
 * @uppy/aws-s3 would emit (`upload-start`, `upload-progress` in bytes of the output, `upload-success`,
 * `upload-error`), so the element's events and the Dashboard follow them as any other.
 */
export class Shrinking {
  private uplink: { bytesPerSecond: number; at: number } | undefined;
  /** Each added video's probe, by file id: made once, read by the card and by the upload. */
  private readonly probes = new Map<string, Promise<Probe>>();
  /** The editor opens by itself for the first video probed only. */
  private opened = false;

  constructor(
    private readonly uppy: Uppy<VideoMeta, Body>,
    private readonly deps: ShrinkDeps,
    private readonly s3Upload: Uploader,
  ) {
    const dashboard = uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard');
    uppy.use(ShrinkEditor, { target: dashboard, strings: deps.strings, trim: deps.trim });
    uppy.on('file-removed', (file) => this.probes.delete(file.id));
  }

  /** A file was added: a video is probed at once, so that its card has the choices before the upload. */
  added(file: File): void {
    if (shrinkable(file)) void this.probe(file).catch(() => undefined);
  }

  /** The upload of `fileIds`: videos as their choice (and their trim) says, the rest by @uppy/aws-s3. */
  readonly upload: Uploader = async (fileIds, uploadId) => {
    const target = this.deps.shrinkTo();
    const files = this.uppy.getFilesByIds(fileIds).filter((f) => !f.error && !f.progress.uploadComplete);
    const asIs = fileIds.filter((id) => !files.some((f) => f.id === id && shrinkable(f)));
    const shrinking: Promise<void>[] = [];
    for (const file of files.filter(shrinkable)) {
      this.uppy.emit('upload-start', [file]);
      const probe = await this.probe(file).catch((err: unknown) => fail(this.uppy, file, err));
      const current = this.uppy.getFile(file.id);
      const shrink = current?.meta.shrink;
      if (!probe || !shrink || !current) continue;
      if (target) this.deps.emit('shrink-start', { file: fileInfo(file), ...publicChoice(shrink) });
      const box = probe.shrinks && target && shrink.choice !== 'original' ? target : null;
      // A video the browser cannot decode is sent as it is, untrimmed (its card said so).
      const trim = this.deps.trim() && (probe.shrinks || probe.reason === 'fits') ? current.meta.trim : undefined;
      const why = this.refusal(current, probe, box, trim);
      if (why) fail(this.uppy, file, new VideoServiceError(why, 0, 'media_refused', false));
      else if (box || trim) shrinking.push(sendShrunk(this.uppy, this.deps, current, { box, trim, probe }));
      else asIs.push(file.id);
    }
    await Promise.all([asIs.length ? this.s3Upload(asIs, uploadId) : undefined, ...shrinking]);
  };

  /**
   * Why what would be sent breaks the media limits, judged on the video as sent: its trimmed length, its output
   * frame. (When it was added, it was judged on what it would become: uppy-controller.ts, `factsSent`.)
   */
  private refusal(file: File, probe: Probe, box: ShrinkTarget | null, trim: Trim | undefined): string | undefined {
    const limits = this.deps.media();
    if (!probe.facts || !hasMediaLimits(limits)) return undefined;
    const { duration, width, height } = probe.facts;
    const shrunk = probe.shrinks && box;
    return refusal(
      file.name ?? '',
      {
        duration: trim ? trim.end - trim.start : duration,
        width: shrunk ? probe.outWidth : width,
        height: shrunk ? probe.outHeight : height,
      },
      limits,
      this.deps.strings(),
    );
  }

  /** The probe of `file`, made once: its choices and predicted times go into its meta (`shrink`). */
  private probe(file: File): Promise<Probe> {
    let probing = this.probes.get(file.id);
    if (!probing) {
      probing = this.measure(file);
      this.probes.set(file.id, probing);
      probing.catch(() => this.probes.delete(file.id));
    }
    return probing;
  }

  private async measure(file: File): Promise<Probe> {
    const target = this.deps.shrinkTo();
    const shrinker = new Shrinker();
    const probing = shrinker.probe(file.data as Blob, target).finally(() => shrinker.stop());
    // Only the choices need the link's speed (and the video, #1, whose session measures it).
    const [probe, rate] = await Promise.all([
      probing,
      target ? this.deps.ensureVideo(file).then((videoId) => this.uplinkSpeed(file, videoId)) : undefined,
    ]);
    const predicted: Record<string, number> = rate ? { original: round((file.size ?? 0) / rate) } : {};
    if (probe.shrinks && target && rate) predicted[target.label] = round(predictShrunk(probe, rate));
    const { maxDuration, maxResolution } = this.deps.media();
    // A source above max-resolution may be sent shrunk only; one above max-duration starts trimmed to it.
    const { width = 0, height = 0, duration = 0 } = probe.facts ?? {};
    const above =
      maxResolution && (Math.max(width, height) > maxResolution.long || Math.min(width, height) > maxResolution.short);
    if (probe.shrinks && above) delete predicted.original;
    const facts = probe.facts ? { duration: probe.facts.duration, frameRate: probe.facts.frameRate } : {};
    // The person's choice stays across a probe made again (after a reload, Golden Retriever keeps the meta).
    const chosen = this.uppy.getFile(file.id)?.meta.shrink?.choice;
    const shrink: ShrinkChoice = probe.shrinks
      ? { choice: chosen && chosen in predicted ? chosen : target!.label, predicted, canEncode: true, ...facts }
      : { choice: 'original', predicted, canEncode: false, reason: probe.reason, ...facts };
    const trim =
      this.deps.trim() && maxDuration !== null && duration > maxDuration ? { start: 0, end: maxDuration } : undefined;
    if (!this.uppy.getFile(file.id)) return probe;
    const kept = this.uppy.getFile(file.id)?.meta.trim;
    this.uppy.setFileMeta(file.id, { shrink, ...(trim && !kept ? { trim } : {}) });
    // Like Uppy's own autoOpen, for the first file only: the person sees the choices once, and the pencil after.
    const dashboard = this.uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard');
    const idle = !dashboard?.getPluginState().activeOverlayType && !this.uppy.opts.autoProceed;
    // Opened for a video with choices, or with a trim, or that the browser cannot shrink: the panel says so.
    const fits = !probe.shrinks && probe.reason === 'fits';
    const editable = fits ? this.deps.trim() : target !== null;
    if (editable && !this.opened && idle && !file.progress.uploadStarted) {
      this.opened = true;
      dashboard?.openFileEditor(this.uppy.getFile(file.id));
    }
    return probe;
  }

  /** The link's upload speed in bytes a second: measured once (per UPLINK_KEEP_MS) on the first bytes of `file`. */
  private async uplinkSpeed(file: File, videoId: string): Promise<number> {
    if (this.uplink && Date.now() - this.uplink.at < UPLINK_KEEP_MS) return this.uplink.bytesPerSecond;
    const client = this.deps.client();
    const session = await client.beginMultipart(videoId);
    try {
      const { url } = await client.getChunkUploadUrl(videoId, session.key, 1);
      const body = (file.data as Blob).slice(0, UPLINK_PROBE_BYTES);
      const started = performance.now();
      await putBytes({ url, body, contentType: 'application/octet-stream', onProgress: () => undefined });
      this.uplink = { bytesPerSecond: body.size / ((performance.now() - started) / 1000), at: Date.now() };
      return this.uplink.bytesPerSecond;
    } finally {
      await client.abortMultipart(session.key).catch(() => undefined);
    }
  }
}

/** What `shrink-start` tells of a choice: not the facts kept for the trim editor. */
const publicChoice = ({ choice, predicted, canEncode, reason }: ShrinkChoice) => ({
  choice,
  predicted,
  canEncode,
  ...(reason ? { reason } : {}),
});

/** A picked video file (not a link, not a recording without bytes): what `max-upload-resolution` may shrink. */
const shrinkable = (file: File) => file.data instanceof Blob && file.type.startsWith('video/');

function fail(uppy: Uppy<VideoMeta, Body>, file: File, err: unknown): undefined {
  const current = uppy.getFile(file.id);
  if (!isAbort(err) && current) uppy.emit('upload-error', current, err as Error);
  return undefined;
}

/**
 * The output of the worker, PUT chunk by chunk as it is cut, into a session of its own (#3); #6 once the output
 * is whole. Removing the file (or Cancel) stops the worker and aborts the session (#7). Pausing stops the PUTs
 * (each chunk under way is sent again on resume); the worker then waits too, with its chunks unsent.
 */
async function sendShrunk(
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
      { box, trim, chunkSize, window: deps.parallelUploads() },
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

/** Seconds from the upload's start until a shrunk video's bytes are all in: encoding and sending overlap. */
export function predictShrunk(probe: Probe & { shrinks: true }, bytesPerSecond: number): number {
  const { duration, frameRate } = probe.facts;
  const encode = (duration * frameRate) / probe.encodeFps;
  const bytes = probe.outBytesPerSecond * duration;
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
