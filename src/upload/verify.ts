import { VideoServiceError } from '../api/errors.js';

/**
 * MD5 of a chunk, computed in a Web Worker so that hashing never blocks the page, and compared with
 * the ETag the storage answered (S3-style storages, this service included, send the body's MD5).
 *
 * The worker's script is inlined (`?worker&inline`) into a chunk of its own, imported on first use. A
 * worker file referenced by URL does not survive a library build: Vite writes an origin-absolute path
 * that webpack cannot resolve and a consumer's Vite does not emit (vitejs/vite#15406), and esbuild and
 * plain Rollup emit no asset for `new URL(…, import.meta.url)` at all. An inlined worker is plain
 * JavaScript to every bundler. It starts from a blob: URL, so a Content-Security-Policy must allow
 * `worker-src blob:`.
 *
 * One worker, made on first use; its messages are matched to callers by id. A worker that fails to
 * start or dies rejects every pending hash (the upload then fails with `upload-error`, never hangs),
 * and the next hash starts a new one.
 */
let worker: Promise<Worker> | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (md5: string) => void; reject: (err: Error) => void }>();

const failure = (reason: string) =>
  new VideoServiceError(
    `The uploader could not hash the file in a Web Worker (${reason}). If the page has a Content-Security-Policy, it must allow "worker-src blob:".`,
    0,
    'worker_failed',
    false,
  );

function failAll(err: Error): void {
  worker = undefined;
  for (const waiter of pending.values()) waiter.reject(err);
  pending.clear();
}

async function startWorker(): Promise<Worker> {
  const { default: Md5Worker } = await import('./md5.worker.ts?worker&inline');
  const started = new Md5Worker();
  started.onmessage = (event: MessageEvent<{ id: number; md5?: string; error?: string }>) => {
    const { id, md5: hex, error } = event.data;
    const waiter = pending.get(id);
    pending.delete(id);
    if (hex) waiter?.resolve(hex);
    else waiter?.reject(failure(`MD5 failed: ${error}`));
  };
  started.onerror = (event) => {
    event.preventDefault();
    started.terminate();
    failAll(failure(event.message || 'its script did not load'));
  };
  return started;
}

export function md5(blob: Blob): Promise<string> {
  const id = nextId++;
  const hashed = new Promise<string>((resolve, reject) => pending.set(id, { resolve, reject }));
  (worker ??= startWorker()).then(
    (w) => w.postMessage({ id, blob }),
    (err: unknown) => failAll(failure(String((err as Error)?.message ?? err))),
  );
  return hashed;
}

/** Whether an ETag (quoted or not) is the MD5 given; a multipart-style ETag ("…-3") never is. */
export const etagMatches = (etag: string, hex: string): boolean =>
  etag.replace(/^W\//, '').replaceAll('"', '').toLowerCase() === hex;
