import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folders made here, removed when the test process exits (a test may serve or reuse one until then). */
const made = new Set<string>();
process.once('exit', () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A new, empty temporary folder named `prefix…`, removed when the test process exits. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
