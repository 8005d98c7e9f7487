import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folders made here, removed when the test process exits (a test may serve or reuse one until then). */
const made = new Set<string>();
const removeAll = () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
process.once('exit', removeAll);
// Node runs no exit hook when a signal ends it: Ctrl-C on a bench, or a runner stopping a test file, would leave
// every folder behind. The folders go at once; then, unless a runner (Playwright, the web test runner) listens
// for the signal to shut down in its own way, the process ends as the signal would have ended it (128 + number).
// They go once more as the last exit hook, after those that stop child processes (bench/link/emulator.ts kills
// what runs in its namespaces): a service still running could write into its folder again meanwhile. The handler
// stays, so that a second signal while those hooks run (`timeout` passes one on after `pkill` sent its own) is
// handled, not the end of the process before they are done.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    removeAll();
    if (process.listenerCount(signal) > 1) return;
    process.removeListener('exit', removeAll);
    process.once('exit', removeAll);
    process.exit(128 + constants.signals[signal]);
  });
}

/** A new, empty temporary folder named `prefix…`, removed when the test process exits. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
