/**
 * MD5 of a chunk, computed in a Web Worker so that hashing never blocks the page, and compared with
 * the ETag the storage answered (S3-style storages, this service included, send the body's MD5).
 * One worker, made on first use; its messages are matched to callers by id.
 */
let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (md5: string) => void; reject: (err: Error) => void }>();

export function md5(blob: Blob): Promise<string> {
  worker ??= Object.assign(new Worker(new URL('./md5.worker.ts', import.meta.url), { type: 'module' }), {
    onmessage: (event: MessageEvent<{ id: number; md5?: string; error?: string }>) => {
      const { id, md5: hex, error } = event.data;
      const waiter = pending.get(id);
      pending.delete(id);
      if (hex) waiter?.resolve(hex);
      else waiter?.reject(new Error(`MD5 of a chunk failed: ${error}`));
    },
  });
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker!.postMessage({ id, blob });
  });
}

/** Whether an ETag (quoted or not) is the MD5 given; a multipart-style ETag ("…-3") never is. */
export const etagMatches = (etag: string, hex: string): boolean => etag.replace(/^W\//, '').replaceAll('"', '').toLowerCase() === hex;
