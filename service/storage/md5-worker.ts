/**
 * The MD5 worker (storage/md5.ts starts one per process): hashes files while they are being written, reading back
 * from the file (the page cache) the bytes its writer says are written. Messages in order per file: progress
 * `{ id, path, upto }`, the last with `end: true`, answered by `{ id, md5 }` or `{ id, error }`; `{ id, drop: true }`
 * forgets a file whose body failed.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

export type HashRequest = { id: number; path: string; upto: number; end?: boolean } | { id: number; drop: true };
export type HashAnswer = { id: number; md5: string } | { id: number; error: string };

const buffer = Buffer.allocUnsafe(1024 * 1024);
const files = new Map<number, { fd: number; md5: Hash; at: number }>();

function close(id: number): void {
  const file = files.get(id);
  files.delete(id);
  if (file) closeSync(file.fd);
}

parentPort!.on('message', (m: HashRequest) => {
  if ('drop' in m) return close(m.id);
  try {
    let file = files.get(m.id);
    if (!file) files.set(m.id, (file = { fd: openSync(m.path, 'r'), md5: createHash('md5'), at: 0 }));
    while (file.at < m.upto) {
      const n = readSync(file.fd, buffer, 0, Math.min(buffer.length, m.upto - file.at), file.at);
      if (n === 0) throw new Error(`${m.path} ends at ${file.at} bytes, before the ${m.upto} written`);
      file.md5.update(buffer.subarray(0, n));
      file.at += n;
    }
    if (!m.end) return;
    const md5 = file.md5.digest('hex');
    close(m.id);
    parentPort!.postMessage({ id: m.id, md5 } satisfies HashAnswer);
  } catch (err) {
    close(m.id);
    parentPort!.postMessage({ id: m.id, error: (err as Error).message } satisfies HashAnswer);
  }
});
