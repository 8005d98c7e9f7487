import type { AwsS3Options } from '@uppy/aws-s3';
import type { Body, Meta, UppyFile } from '@uppy/core';
import type { VideoServiceClient } from '../api/client.js';
import { VideoServiceError } from '../api/errors.js';
import type { Strings } from '../locale/en.js';
import { ChunkUrls } from './chunk-urls.js';
import type { ConnectionController, Flight } from './connections.js';
import type { ChunkLedger } from './ledger.js';
import { shrinkingRange, type UploadPlan } from './plan.js';
import { ProgressBatch } from './progress.js';
import { ExpiredUrlError, putRacing } from './put.js';

/** What the element keeps in each Uppy file's meta. */
export interface VideoMeta extends Meta {
  /** `_id` of the video created for this file (#1), once created. */
  videoId?: string;
  /** How this file is sent, fixed when it was added (so attribute changes apply to the next file). */
  uploadPlan?: UploadPlan;
  /** The multipart session of this file (#3), kept so that Retry and resume continue it. */
  session?: { key: string; expiresAt: number };
  /** See fingerprint.ts; set before the upload starts. */
  fingerprint?: string;
  /** With `max-upload-resolution` or `trim`: what is sent, once the file has been probed (shrink/shrink-uploader.ts). */
  shrink?: ShrinkChoice;
  /** The multipart session of a shrunk output under way: aborted, never continued, when its upload starts again. */
  shrinkSession?: string;
  /** With `trim`: the part of the video kept, in seconds, as the person chose it on the card. */
  trim?: { start: number; end: number };
}

/** A video's choices under `max-upload-resolution`, as `shrink-start` tells them and the card shows them. */
export interface ShrinkChoice {
  /** `original`, or the attribute's resolution (`1080p`). */
  choice: string;
  /** Predicted seconds from the upload's start to its end, for each choice the browser can make. */
  predicted: Record<string, number>;
  canEncode: boolean;
  /** Why the browser cannot re-encode it (shrink/protocol.ts `AsIsReason`). */
  reason?: string;
  /** The video's length and frame rate, when the browser could read them: the trim editor's scale. */
  duration?: number;
  frameRate?: number;
}
type File = UppyFile<VideoMeta, Body>;

export interface WiringDeps {
  client: () => VideoServiceClient;
  /** The current state of a file (the callbacks' copies can be stale). */
  getFile: (id: string) => File | undefined;
  /** Creates the file's video (#1) unless it has one, and returns its `_id`. */
  ensureVideo: (file: File, signal?: AbortSignal) => Promise<string>;
  ledger: ChunkLedger;
  fingerprint: (file: File) => Promise<string>;
  setMeta: (id: string, meta: Partial<VideoMeta>) => void;
  /** Whether the person removed or cancelled this file (then, and only then, its session is aborted). */
  cancelledByUser: (id: string) => boolean;
  /** Tells the person something about a file's upload (e.g. why it restarts). */
  notify: (message: string) => void;
  /** The element's sentences in the current language. */
  strings: () => Strings;
  /** Whether ETags are checked against the MD5 of the bytes sent (`verify-chunks`). */
  verifyChunks: () => boolean;
  /**
   * `parallel-uploads` now, or null when it is unset (chunk PUTs adapt: connections.ts): read when the plugin is
   * installed (configure() may come while it loads) and as chunks are sent.
   */
  parallelUploads: () => number | null;
  /** `max-parallel-uploads` now. */
  maxParallelUploads: () => number;
  onRetry?: (file: File, err: VideoServiceError, delayMs: number) => void;
}

/** A chunk the ledger already has: "signed" with this, it is answered from the ledger and never sent again. */
const LEDGER_URL = 'ledger:';
/** A chunk whose URL (#4) is on its way (chunk-urls.ts): "signed" with this, its PUT takes the URL when it starts. */
const AHEAD_URL = 'ahead:';

const contentType = (file: File) => file.type || 'application/octet-stream';
const planOf = (deps: WiringDeps, file: File) => deps.getFile(file.id)?.meta.uploadPlan ?? file.meta.uploadPlan;
/**
 * The bytes of a chunk: what @uppy/aws-s3 cut (`body`), unless the file's plan shrinks its chunks, which
 * @uppy/aws-s3 5.x cannot cut; then the plan's range (plan.ts, `shrinkingRange`). The progress reported is of these
 * bytes, so the file's total stays right.
 */
function chunkBytes(deps: WiringDeps, file: File, chunkId: number, body: Blob): Blob {
  const plan = planOf(deps, file);
  if (!plan?.shrink) return body;
  const data = file.data as Blob; // only a file picked from disk is sent in chunks
  const { start, end } = shrinkingRange(data.size, plan.shrink, chunkId);
  return data.slice(start, end);
}

/**
 * The @uppy/aws-s3 5.x options that speak the service's protocol. Uppy's `key` is the video `_id`
 * and its `uploadId` is the session key of #3, so every callback has both. Every PUT takes its turn from
 * `connections` once its URL names its host.
 */
export function awsS3Options(deps: WiringDeps, connections: ConnectionController): AwsS3Options<VideoMeta, Body> {
  /** Each signed URL handed out, with its file and whether it is a single link (#2) or a chunk URL (#4). */
  const signed = new Map<
    string,
    { file: File; single: boolean; chunk?: { videoId: string; sessionKey: string; chunkId: number } }
  >();
  const urls = new ChunkUrls(async (videoId, sessionKey, chunkId) => {
    return (await deps.client().getChunkUploadUrl(videoId, sessionKey, chunkId)).url;
  });
  const fileOfBlob = new WeakMap<Blob, File>();
  /**
   * The chunks (number → ETag) that each file's current @uppy/aws-s3 uploader completed, by the file's data.
   * It drops a chunk once complete, so when it resumes after a pause, listParts must name those. It must
   * name no other: a chunk it still holds and is told is in, it counts at its own size, not the plan's
   * (plan.ts), and the progress of the file would be off by the difference. Those go through signPart,
   * answered from the ledger at their real size. A new uploader (the first, Retry, a restore after a
   * reload) asks getChunkSize once, first.
   */
  const completed = new WeakMap<Blob, Map<number, string>>();
  const progress = new ProgressBatch<{ loaded: number; lengthComputable: true }>();
  return {
    // Every turn `connections` could give, and no more: the turns are its, Uppy's pauses (a 429, an expired URL) Uppy's.
    limit: connections.queueLimit,
    // Uppy's own retries are used for one thing only: re-signing a chunk whose URL expired
    // (ExpiredUrlError). Every other retry follows api/retry.ts, inside the client and putBytes.
    retryDelays: [0, 0, 0],
    shouldUseMultipart: (file) => {
      if (file.data instanceof Blob) fileOfBlob.set(file.data, file);
      return planOf(deps, file)?.method === 'multipart';
    },
    getChunkSize: (data) => {
      completed.set(data as Blob, new Map());
      const file = fileOfBlob.get(data as Blob);
      return (file && planOf(deps, file)?.chunkSize) || (data.size ?? 0);
    },

    // Single link: #1 then #2; the PUT (#5) goes through uploadPartBytes.
    async getUploadParameters(file, { signal }) {
      const videoId = await deps.ensureVideo(file, signal);
      const { url } = await deps.client().getUploadUrl(videoId, signal);
      signed.set(url, { file, single: true });
      return { method: 'PUT', url, headers: { 'Content-Type': contentType(file) } };
    },

    // Multipart: #1 then #3, or the file's own session again (Retry, resume). An expired session is
    // completed when every chunk is in; otherwise it is aborted and the upload starts over, saying why.
    async createMultipartUpload(file) {
      const current = deps.getFile(file.id) ?? file;
      const name = current.name ?? '';
      const printing = deps.fingerprint(current);
      const session = current.meta.session;
      // A file that claims an interrupted upload (a re-selected file, restored by id) must be that file.
      const claimed = session && deps.ledger.bySession(session.key);
      if (claimed && claimed.fingerprint !== (await printing))
        throw new VideoServiceError(
          `${name} is not the file whose upload was interrupted: same name and size, different content (fingerprint).`,
          0,
          'not_same_file',
          false,
        );
      // Any other file is hashed (for the ledger) while #1 and #3 are under way: neither waits for it (the worker's
      // start and 2 MiB read from disk took 190 ms where #1 took 140 on a 40 ms link, and #3 waited the difference).
      printing.catch(() => undefined); // awaited below, once the session is begun
      const videoId = await deps.ensureVideo(file);
      if (session && session.expiresAt > Date.now()) return { key: videoId, uploadId: session.key };
      if (session && deps.ledger.count(session.key) >= (planOf(deps, current)?.chunks ?? Infinity)) {
        return { key: videoId, uploadId: session.key };
      }
      if (session) {
        deps.ledger.forget(session.key);
        await deps
          .client()
          .abortMultipart(session.key)
          .catch(() => undefined);
        deps.notify(deps.strings().sessionExpired(name));
      }
      const client = deps.client();
      const fresh = await client.beginMultipart(videoId);
      // A file that cannot be hashed (its worker failed) cannot be uploaded resumably: its session goes (#7).
      const print = await printing.catch(async (err: unknown) => {
        await client.abortMultipart(fresh.key).catch(() => undefined);
        throw err;
      });
      const started = { key: fresh.key, expiresAt: fresh.expiresAt };
      deps.setMeta(file.id, { session: started });
      const plan = planOf(deps, current)!;
      deps.ledger.open({ fingerprint: print, baseUrl: client.baseUrl, videoId, name, session: started, plan });
      return { key: videoId, uploadId: fresh.key };
    },

    // #4 for this chunk and the next ones, one per connection, ahead of their PUTs (chunk-urls.ts says why);
    // none for a chunk that is already in.
    async signPart(file, { key, uploadId, partNumber }) {
      if (deps.ledger.get(uploadId, partNumber)) {
        const url = `${LEDGER_URL}${uploadId}/${partNumber}`;
        signed.set(url, { file, single: false, chunk: { videoId: key, sessionKey: uploadId, chunkId: partNumber } });
        return { method: 'PUT', url };
      }
      const last = planOf(deps, file)?.chunks ?? partNumber;
      urls.again(uploadId, partNumber);
      const ahead = connections.level(uploadId);
      urls.ahead(key, uploadId, partNumber, ahead, last, (id) => !!deps.ledger.get(uploadId, id));
      const url = `${AHEAD_URL}${uploadId}/${partNumber}`;
      signed.set(url, { file, single: false, chunk: { videoId: key, sessionKey: uploadId, chunkId: partNumber } });
      return { method: 'PUT', url, headers: { 'Content-Type': contentType(file) } };
    },

    // The spec has no list endpoint: signPart answers a chunk the ledger holds, and this names only
    // what the uploader itself completed (see `completed`).
    listParts: async (file) =>
      [...(completed.get(file.data as Blob) ?? [])].map(([PartNumber, ETag]) => ({ PartNumber, ETag })),

    // #6 with each ETag exactly as the storage sent it.
    async completeMultipartUpload(_file, { key, uploadId, parts }) {
      const chunks = parts.map((p) => ({ chunkId: p.PartNumber!, eTag: p.ETag! }));
      const { url } = await deps.client().completeMultipart(key, uploadId, chunks);
      deps.ledger.forget(uploadId);
      urls.forget(uploadId);
      connections.forget(uploadId);
      return { location: url };
    },

    // #7 when the person removes a file or cancels. Uppy also calls this after any failed upload;
    // then the session is kept, so that Retry continues it from its finished chunks.
    async abortMultipartUpload(file, { uploadId }) {
      if (!deps.cancelledByUser(file.id)) return;
      deps.ledger.forget(uploadId!);
      urls.forget(uploadId!);
      connections.forget(uploadId!);
      await deps.client().abortMultipart(uploadId!);
    },

    // #5: the bytes, to the signed URL, never with the token.
    async uploadPartBytes({ signature, body, onProgress: report, onComplete, signal }) {
      // @uppy/aws-s3 throws on progress of a file that was removed meanwhile: report only for live files.
      const target = signed.get(signature.url);
      const onProgress = (ev: { loaded: number; lengthComputable: true }) =>
        (!target || deps.getFile(target.file.id)) && report(ev);
      const { chunk } = target ?? {};
      const bytes = chunk ? chunkBytes(deps, target!.file, chunk.chunkId, body as Blob) : (body as Blob);
      let endTurn: (() => void) | undefined;
      let failed = false;
      const complete = (etag: string) => {
        if (chunk) completed.get(target!.file.data as Blob)?.set(chunk.chunkId, etag);
        onComplete?.(etag);
        return { ETag: etag };
      };
      try {
        if (signature.url.startsWith(LEDGER_URL)) {
          const etag = deps.ledger.get(chunk!.sessionKey, chunk!.chunkId)!;
          onProgress({ loaded: bytes.size, lengthComputable: true });
          return complete(etag);
        }
        const url = chunk ? await urls.take(chunk.videoId, chunk.sessionKey, chunk.chunkId) : signature.url;
        // Chunk N's link names one of the storage hosts, each with its own six connections (connections.ts).
        const chunks = target && planOf(deps, target.file)?.chunks;
        const left = chunk ? Math.max(0, (chunks ?? chunk.chunkId) - chunk.chunkId) : 0;
        const host = new URL(url).host;
        endTurn = await connections.acquire(host, chunk?.sessionKey, left, signal);
        let loaded = 0;
        let flight: Flight | undefined;
        const racing = putRacing({
          url,
          body: bytes,
          contentType: signature.headers?.['Content-Type'] ?? 'application/octet-stream',
          onProgress: (ev) => {
            // A retry starts again from 0: only what this attempt adds counts.
            if (flight) flight.loaded = ev.loaded;
            if (chunk) connections.sent(chunk.sessionKey, Math.max(0, ev.loaded - loaded));
            loaded = ev.loaded;
            progress.queue(onProgress, ev);
          },
          signal,
          verify: deps.verifyChunks(),
          onRetry: (err, _retry, delay) => {
            if (flight) connections.retrying(flight, delay);
            if (target) deps.onRetry?.(target.file, err, delay);
          },
        });
        // A chunk may get a twin at the end of its file's upload (connections.ts, the endgame); a single link never does.
        const land =
          chunk &&
          connections.fly(chunk.sessionKey, host, (flight = { size: bytes.size, loaded: 0, twin: racing.twin }));
        const etag = await racing.answer.catch((err: unknown) => (land?.(false), Promise.reject(err)));
        land?.(true);
        progress.flush(onProgress);
        return complete(etag);
      } catch (err) {
        failed = true;
        if (err instanceof ExpiredUrlError && target?.single) {
          throw new VideoServiceError(
            'The upload link expired before the file was sent. Retry to get a new link.',
            403,
            'signature_expired',
            false,
          );
        }
        throw err;
      } finally {
        // A failed PUT gives its turn back once Uppy has heard of the failure: Uppy aborts the file's other chunks
        // within this task, and a chunk waiting for a turn must not start in the one the failure freed.
        if (failed) setTimeout(() => endTurn?.(), 0);
        else endTurn?.();
        progress.flush(onProgress);
        signed.delete(signature.url);
      }
    },
  };
}
