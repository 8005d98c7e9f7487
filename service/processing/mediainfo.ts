import type { MediaInfo } from '../../src/api/types.js';
import { DEFAULT_PROBE_SECONDS, LimitError, spoken } from './ffmpeg.js';
import { sibling, startWorker } from '../modules.js';

const WORKER = sibling('mediainfo-worker', import.meta.url);

/**
 * The spec's `mediainfo` of a file, read in a worker thread of its own. mediainfo.js's WASM parser runs
 * synchronously between its reads: in the API's process a file that keeps it busy would stall every request of
 * every user. In a worker it costs that thread only, which is ended past `timeoutMs`.
 */
export function readMediaInfo(
  file: string,
  { timeoutMs = DEFAULT_PROBE_SECONDS * 1000 }: { timeoutMs?: number } = {},
): Promise<MediaInfo> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(WORKER, { workerData: { file } });
    const timer = setTimeout(() => {
      reject(
        new LimitError(`MediaInfo took longer than ${spoken(timeoutMs / 1000)} to read the file, so it was stopped.`),
      );
      void worker.terminate();
    }, timeoutMs);
    const settle = () => clearTimeout(timer);
    worker.once('message', (info: MediaInfo) => (settle(), resolve(info), void worker.terminate()));
    worker.once('error', (err) => (settle(), reject(err)));
    // After an answer this changes nothing; without one it is the failure.
    worker.once(
      'exit',
      (code) => (settle(), reject(new Error(`MediaInfo's worker ended (exit code ${code}) without an answer.`))),
    );
  });
}
