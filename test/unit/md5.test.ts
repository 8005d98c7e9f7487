import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileMd5 } from '../../service/storage/md5.js';

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const openFiles = async () =>
  Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));

describe('The MD5 of a body being written, read back by a worker thread (service/storage/md5.ts)', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'md5-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  /** Writes `bytes` to a new file in uneven pieces, telling the hash after each write, as writeBody does. */
  async function written(name: string, bytes: Buffer) {
    const path = join(dir, name);
    const file = await open(path, 'w');
    const hash = fileMd5(path);
    for (let at = 0, piece = 1; at < bytes.length; piece = (piece * 7) % 997) {
      const end = Math.min(bytes.length, at + piece * 4096 + 13);
      await file.write(bytes.subarray(at, end), 0, end - at, at);
      hash.written((at = end));
    }
    await file.close();
    return { path, hash };
  }

  it('is the MD5 of every byte, for files written side by side, small and several MiB', async () => {
    const bodies = [randomBytes(9 * 1024 * 1024 + 17), randomBytes(3 * 1024 * 1024), randomBytes(5), Buffer.alloc(0)];
    const digests = await Promise.all(
      bodies.map(async (bytes, i) => (await written(`body-${i}`, bytes)).hash.digest(bytes.length)),
    );
    assert.deepEqual(digests, bodies.map(md5));
  });

  it('refuses a file shorter than the size it was said to have, naming both, and lets the file go', async () => {
    const { path, hash } = await written('short', randomBytes(2 * 1024 * 1024));
    await assert.rejects(hash.digest(3 * 1024 * 1024), {
      message: `The MD5 of a stored body could not be read: ${path} ends at ${2 * 1024 * 1024} bytes, before the ${3 * 1024 * 1024} written`,
    });
    assert.ok(!(await openFiles()).includes(path), 'the worker closed the file');
  });

  it('lets go of a dropped body: its file is not held open', async () => {
    // The worker reads its messages in order: once a later body's MD5 is back, what came before was handled.
    const handled = async () => (await written('later', randomBytes(10))).hash.digest(10);
    const { path, hash } = await written('dropped', randomBytes(4 * 1024 * 1024));
    await handled();
    assert.ok((await openFiles()).includes(path), 'held while the body is written');
    hash.drop();
    await handled();
    assert.ok(!(await openFiles()).includes(path));
  });
});
