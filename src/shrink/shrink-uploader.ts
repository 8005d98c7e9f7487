import type Uppy from '@uppy/core';
import type { Body, UppyFile } from '@uppy/core';
import { VideoServiceError } from '../api/errors.js';
import { MiB } from '../api/limits.js';
import type { Emit } from '../events.js';
import type { MediaLimits, ShrinkTarget } from '../options.js';
import type Dashboard from '@uppy/dashboard';
import type { ShrinkChoice, VideoMeta, WiringDeps } from '../upload/aws-s3-options.js';
import { fileInfo } from '../upload/file-info.js';
import { refusal } from '../upload/media-check.js';
import { shrinkStrings } from '../locale/shrink.js';
import { putBytes } from '../upload/put.js';
import type { Probe, Trim } from './protocol.js';
import { SHRINK_EDITOR_CSS, ShrinkEditor } from './shrink-editor.js';
import { fail, sendShrunk, SHRUNK_CHUNK_BYTES } from './send-shrunk.js';
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
  /** The element's language (its `lang` or its nearest ancestor's): shrinking's sentences follow it. */
  lang: () => string;
  /** Adds styles to the element's shadow root: the editor panel's (shrink-editor.ts). */
  adoptCss: (css: string) => void;
}

/**
 * The file's first bytes PUT once per element to measure the link's upload speed, in a session then aborted (#7): as
 * two chunks at once, as an upload sends them (one alone, in TCP's slow start, made the original 26–37 % slower than
 * it is in the bench).
 */
const UPLINK_PROBE_CHUNKS = 2;
const UPLINK_PROBE_BYTES = 4 * MiB;
/** A measured upload speed is trusted this long; later ones are measured again. */
const UPLINK_KEEP_MS = 5 * 60_000;

/**
 * What the element does with videos under `max-upload-resolution` or `trim`. Each video is probed when it is added
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
    const strings = () => shrinkStrings(deps.lang(), deps.strings());
    deps.adoptCss(SHRINK_EDITOR_CSS);
    uppy.use(ShrinkEditor, { target: dashboard, strings, trim: deps.trim });
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
    if (!probe.facts) return undefined;
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
      const chunks = Array.from({ length: UPLINK_PROBE_CHUNKS }, (_, i) => i + 1);
      const urls = await Promise.all(chunks.map((n) => client.getChunkUploadUrl(videoId, session.key, n)));
      const bodies = chunks.map((n) => (file.data as Blob).slice((n - 1) * UPLINK_PROBE_BYTES, n * UPLINK_PROBE_BYTES));
      // From the start to the last answer. (Timed on the second half of their progress events, it came out slower
      // still: they count bytes given to the socket's buffer, which takes the first half at once.)
      const started = performance.now();
      await Promise.all(
        bodies.map((body, i) =>
          putBytes({ url: urls[i]!.url, body, contentType: 'application/octet-stream', onProgress: () => undefined }),
        ),
      );
      const bytes = bodies.reduce((sum, body) => sum + body.size, 0);
      this.uplink = { bytesPerSecond: bytes / ((performance.now() - started) / 1000), at: Date.now() };
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

/** Seconds from the upload's start until a shrunk video's bytes are all in: encoding and sending overlap. */
export function predictShrunk(probe: Probe & { shrinks: true }, bytesPerSecond: number): number {
  const { duration, frameRate } = probe.facts;
  const encode = probe.startSeconds + (duration * frameRate) / probe.encodeFps;
  const bytes = probe.outBytesPerSecond * duration;
  // The last chunk goes after the encoder's last frame.
  const tail = Math.min(bytes, SHRUNK_CHUNK_BYTES) / bytesPerSecond;
  return Math.max(encode, bytes / bytesPerSecond) + tail;
}

const round = (seconds: number) => Math.round(seconds * 10) / 10;
