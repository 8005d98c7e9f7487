import type AwsS3 from '@uppy/aws-s3';
import type Uppy from '@uppy/core';
import type { Body } from '@uppy/core';
import { MiB } from '../api/limits.js';
import type { ShrinkDeps, Shrinking, Uploader } from '../shrink/shrink-uploader.js';
import { awsS3Options, type VideoMeta } from './aws-s3-options.js';
import { ConnectionController } from './connections.js';

/** The chunk ledger and Uppy's events translated: needed once files come, so loaded with the wiring. */
export { ChunkLedger } from './ledger.js';
export { translateEvents } from './uppy-events.js';

/** Golden Retriever keeps files up to this size in IndexedDB across a reload; bigger ones are asked for again. */
const KEEP_FILES_UP_TO = 64 * MiB;

/**
 * @uppy/aws-s3 and Golden Retriever, loaded with import() right after the Dashboard appears (this module too, with
 * the wiring in aws-s3-options.ts): they are needed to upload and to keep files, not to show anything (measured in
 * bench/widget.bench.ts). Resolves once both are
 * installed and Golden Retriever's restore has landed. When it finds saved state, it later replaces Uppy's files
 * and uploads wholesale, dropping any file added meanwhile: so the caller keeps the Dashboard disabled until then
 * (at once when nothing was saved, after 5 s at worst). False when `current()` says the instance was replaced.
 */
export async function installPlugins(
  uppy: Uppy<VideoMeta, Body>,
  hooks: ShrinkDeps,
  current: () => boolean,
): Promise<boolean> {
  const [{ default: AwsS3 }, { default: GoldenRetriever }] = await Promise.all([
    import('@uppy/aws-s3'),
    import('@uppy/golden-retriever'),
  ]);
  if (!current()) return false;
  const connections = new ConnectionController({ fixed: hooks.parallelUploads, ceiling: hooks.maxParallelUploads });
  connectionsOf.set(uppy, connections);
  connections.onQueueLimit = () => applyParallelUploads(uppy);
  installUploaders(uppy, hooks, () => uppy.use(AwsS3, awsS3Options(hooks, connections)));
  const saved = (() => {
    try {
      // Golden Retriever 5.x keeps its metadata under this key (its MetaDataStore, `uppyState:<uppy id>`).
      return localStorage.getItem(`uppyState:${uppy.getID()}`) !== null;
    } catch {
      return false;
    }
  })();
  const restored = new Promise<void>((resolve) => {
    if (!saved) return resolve();
    // Golden Retriever 5.x restores by one setState whose patch has `recoveredState`; no event says it landed.
    const landed = (_prev: unknown, _next: unknown, patch?: Record<string, unknown>) => {
      if (patch && 'recoveredState' in patch) done();
    };
    const done = () => (uppy.off('state-update', landed), clearTimeout(timer), resolve());
    const timer = setTimeout(done, 5000);
    uppy.on('state-update', landed);
  });
  // Golden Retriever 5.x spreads `indexedDB` into its IndexedDBStore, so the size limits reach it, though
  // GoldenRetrieverOptions does not declare them.
  const keep = { maxFileSize: KEEP_FILES_UP_TO, maxTotalSize: 4 * KEEP_FILES_UP_TO } as { name?: string };
  uppy.use(GoldenRetriever, { serviceWorker: false, indexedDB: keep });
  await restored;
  return true;
}

/**
 * @uppy/aws-s3's uploader, behind one that first sends the videos to shrink (`max-upload-resolution`) through
 * shrink/shrink-uploader.ts, loaded only when the attribute is set and an upload starts. @uppy/aws-s3 5.x cannot send
 * an output whose size is known only at its end (it cuts its chunks from the file's size at the start), and Uppy runs
 * its uploaders one after the other: so its uploader is taken as it installs and called for the other files, at
 * the same time.
 */
function installUploaders(uppy: Uppy<VideoMeta, Body>, hooks: ShrinkDeps, installAwsS3: () => void): void {
  const addUploader = uppy.addUploader.bind(uppy);
  let s3Upload: Uploader | undefined;
  uppy.addUploader = (fn) => ((s3Upload = fn as Uploader), uppy);
  try {
    installAwsS3();
  } finally {
    uppy.addUploader = addUploader;
  }
  // Loaded with the first video added while `max-upload-resolution` or `trim` is set (its card then shows the
  // choices), or uploaded.
  let loaded: Promise<Shrinking> | undefined;
  const shrinking = () =>
    (loaded ??= import('../shrink/shrink-uploader.js').then((m) => new m.Shrinking(uppy, hooks, s3Upload!)));
  const wanted = () => hooks.shrinkTo() !== null || hooks.trim();
  uppy.on('file-added', (file) => void (wanted() && shrinking().then((s) => s.added(file))));
  uppy.addUploader(async (fileIds, uploadId) =>
    wanted() ? (await shrinking()).upload(fileIds, uploadId) : s3Upload!(fileIds, uploadId),
  );
}

/** Each Uppy instance's chunk PUTs at once (connections.ts), made when @uppy/aws-s3 is installed. */
const connectionsOf = new WeakMap<Uppy<VideoMeta, Body>, ConnectionController>();

/**
 * Uppy's queue sized again, after `parallel-uploads` or `max-parallel-uploads` changed or a new storage host was
 * seen (`ConnectionController.queueLimit`). @uppy/aws-s3 5.x reads `limit` once, into the RateLimitedQueue it keeps as
 * `requests`; setOptions does not resize that queue, so its limit is set where the queue reads it. A raised limit
 * starts nothing by itself (the queue looks for more only when a request ends): unless Uppy paused it (offline, a
 * 429), it is told to look now.
 */
export function applyParallelUploads(uppy: Uppy<VideoMeta, Body>): void {
  const s3 = uppy.getPlugin<AwsS3<VideoMeta, Body>>('AwsS3Multipart');
  const connections = connectionsOf.get(uppy);
  if (!s3 || !connections) return;
  const requests = (s3 as unknown as { requests: { limit: number; isPaused: boolean; resume(): void } }).requests;
  const raised = connections.queueLimit > requests.limit;
  requests.limit = connections.queueLimit;
  if (raised && !requests.isPaused) requests.resume();
}
