import type { Worker } from 'node:worker_threads';
import { MiB } from '../../src/api/limits.js';
import { sibling, startWorker } from '../modules.js';
import type { HashAnswer, HashRequest } from './md5-worker.js';

const WORKER = sibling('md5-worker', import.meta.url);

/** The worker is told of a file's progress once this many more bytes are written. */
const TELL_EVERY = MiB;

/** The MD5 of a file being written, as `writeBody` needs it. */
export interface FileMd5 {
  /** `bytes` of the file, from its start, are written (a write completed): the worker may read them. */
  written(bytes: number): void;
  /** The whole file is written, `size` bytes: its MD5 (hex). */
  digest(size: number): Promise<string>;
  /** The body failed: the worker lets go of the file. */
  drop(): void;
}

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (md5: string) => void; reject: (err: Error) => void }>();

function started(): Worker {
  if (worker) return worker;
  const thread = startWorker(WORKER);
  thread.on('message', (answer: HashAnswer) => {
    const waiter = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (waiting.size === 0) thread.unref();
    if ('md5' in answer) waiter?.resolve(answer.md5);
    else waiter?.reject(new Error(`The MD5 of a stored body could not be read: ${answer.error}`));
  });
  const failed = (err: Error) => {
    if (worker === thread) worker = undefined;
    for (const waiter of waiting.values()) waiter.reject(err);
    waiting.clear();
  };
  thread.on('error', failed);
  thread.on('exit', (code) => failed(new Error(`The MD5 worker ended (exit code ${code}).`)));
  // The worker keeps the process alive only while an MD5 is awaited (a listener refs it: this comes after them).
  thread.unref();
  return (worker = thread);
}

/**
 * The MD5 of the file at `path`, computed while it is written by a worker thread that reads the written bytes back
 * (from the page cache), not on the main thread: MD5 costs about 1.5 s of CPU per GiB here, which on the main
 * thread was more than half of its time during uploads, every other request waiting behind it. The main thread
 * sends a message per MiB written and copies nothing. One worker per process: it hashes about 700 MB/s, more than
 * the origin takes.
 */
export function fileMd5(path: string): FileMd5 {
  const thread = started();
  const id = nextId++;
  let told = 0;
  const tell = (m: HashRequest) => thread.postMessage(m);
  return {
    written(bytes) {
      if (bytes - told < TELL_EVERY) return;
      told = bytes;
      tell({ id, path, upto: bytes });
    },
    digest(size) {
      return new Promise((resolve, reject) => {
        if (worker !== thread) return reject(new Error('The MD5 worker ended while a body was being written.'));
        waiting.set(id, { resolve, reject });
        thread.ref();
        tell({ id, path, upto: size, end: true });
      });
    },
    drop: () => tell({ id, drop: true }),
  };
}
