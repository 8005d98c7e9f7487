import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageRequest } from '../../demo/service/storage/server.js';
import { RAMP_FIRST_SETTLE_MS } from '../../src/upload/ramp.js';
import { tempDir } from '../helpers/temp.js';
import {
  addFile,
  event,
  expect,
  faults,
  finishedChunks,
  open,
  storageRequests,
  test,
  throttleUploads,
} from './demo.js';

/**
 * How many chunk PUTs the element runs at once (src/upload/ramp.ts): two at first, and one more while each
 * one more adds its share of throughput, up to `parallel-uploads`. Counted on the storage's own log.
 */
const MiB = 1024 * 1024;
const CHUNKED = { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'no-preview': '' };

async function randomFile(size: number, name: string): Promise<string> {
  const path = join(await tempDir('connections-'), name);
  await writeFile(path, randomBytes(size));
  return path;
}

/** The most chunk PUTs under way at once, among those that started before `until` (storage clock). */
function mostAtOnce(puts: StorageRequest[], until = Infinity): number {
  return Math.max(
    ...puts
      .filter((a) => a.startedAt < until)
      .map((a) => puts.filter((b) => b.startedAt <= a.startedAt && a.startedAt < b.endedAt!).length),
  );
}

test('adds connections while each one more adds its share, up to six, starting with two', async ({ page }) => {
  // Every chunk PUT read at 3 MB/s, as loss holds back each TCP connection: each one more adds as much. The
  // chunks are large because on loopback the kernel takes the first 4–5 MB of each PUT at once (its socket
  // buffers), and only the rest goes at the rate the element measures.
  const file = await randomFile(256 * MiB, 'held-back.mp4');
  const before = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', action: 'throttle', bytesPerSecond: 3_000_000 }] });
  try {
    await open(page, { ...CHUNKED, 'chunk-size': '16MB' });
    await addFile(page, file);
    await event(page, 'upload-success', 120_000);
  } finally {
    await faults(page, {});
  }
  const puts = finishedChunks(await storageRequests(page, before));
  expect(puts.length).toBe(16);
  const first = Math.min(...puts.map((p) => p.startedAt));
  expect(mostAtOnce(puts, first + RAMP_FIRST_SETTLE_MS), 'two at first').toBe(2);
  expect(mostAtOnce(puts), 'six at most, and six in the end').toBe(6);
});

test('stays at two or three connections where two already fill the link', async ({ page }) => {
  const file = await randomFile(48 * MiB, 'full-link.mp4');
  const before = (await storageRequests(page)).length;
  await open(page, CHUNKED);
  // The page's whole upload held to 4 MiB/s: two connections take all of it, a third adds nothing.
  await throttleUploads(page, 4 * MiB);
  await addFile(page, file);
  await event(page, 'upload-success', 60_000);
  const puts = finishedChunks(await storageRequests(page, before));
  expect(puts.length).toBe(10);
  expect(mostAtOnce(puts)).toBeLessThanOrEqual(3);
});
