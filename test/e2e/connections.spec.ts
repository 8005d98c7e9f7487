import { randomBytes } from 'node:crypto';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageRequest } from '../../service/storage/server.js';
import { PER_HOST, START_CONNECTIONS } from '../../src/upload/connections.js';
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
 * How many chunk PUTs the element runs at once (src/upload/connections.ts), counted on the storage's own log of the
 * PUTs it received: with `parallel-uploads` unset it starts at six and adapts to the measured rate, never past six to
 * one host; set, the number is fixed. The service here hands out the chunk links on two storage hosts.
 */
const MiB = 1024 * 1024;
const CHUNKED = { 'multipart-threshold': '1MB', 'no-preview': '' };

/** `size` random bytes, a multiple of 16 MiB. */
async function randomFile(size: number, name: string): Promise<string> {
  const path = join(await tempDir('connections-'), name);
  const file = await openFile(path, 'w');
  for (let written = 0; written < size; written += 16 * MiB) await file.write(randomBytes(16 * MiB));
  await file.close();
  return path;
}

/** PUTs under way at `at` (storage clock): arrived, and not yet answered. */
const underWay = (puts: StorageRequest[], at: number) =>
  puts.filter((p) => p.startedAt <= at && at < p.endedAt!).length;

/** The most PUTs under way at once. */
const mostAtOnce = (puts: StorageRequest[]) => Math.max(...puts.map((p) => underWay(puts, p.startedAt)));

/** The most PUTs under way as each of `starting` arrived: the level then, whichever PUTs ended first. */
const mostAsStarting = (puts: StorageRequest[], starting: StorageRequest[]) =>
  Math.max(...starting.map((p) => underWay(puts, p.startedAt)));

/** The chunk PUTs in the order they arrived. */
const byStart = (puts: StorageRequest[]) => [...puts].sort((a, b) => a.startedAt - b.startedAt);

/**
 * Each chunk PUT's body read at 2 MB/s, as loss holds back each TCP connection on its own: every connection adds as
 * much as the others. (On loopback the kernel's socket buffers take the first few MB of each PUT at once; the chunks
 * are large, so that most of each goes at the held pace.)
 */
const HELD_BACK = { rules: [{ target: 'chunk-put', action: 'throttle', bytesPerSecond: 2_000_000 }] };

test('grows past six over two storage hosts where each connection adds its share, six at most on each', async ({
  page,
}) => {
  // 64 chunks of 8 MiB, about 12 MB/s at six. Six are measured by 6 to 9 s: the chunks run in step, and the kernel's
  // buffers on loopback take the last MB of each at once, so no progress comes, and no measurement ends, until the
  // next chunks start. Twelve are measured by 12 to 17 s, with 20 chunks or more left to start then (with 48, a late
  // measurement of six let the tail come first, which gives twelve up: one run in five failed).
  const file = await randomFile(512 * MiB, 'held-back.mp4');
  const before = (await storageRequests(page)).length;
  await faults(page, HELD_BACK);
  await open(page, { ...CHUNKED, 'chunk-size': '8MB' });
  await addFile(page, file);
  await event(page, 'upload-success', 110_000);
  const puts = byStart(finishedChunks(await storageRequests(page, before)));
  expect(puts.length).toBe(64);
  expect(underWay(puts, puts[START_CONNECTIONS - 1]!.startedAt), 'six from the start').toBe(START_CONNECTIONS);
  // The last chunks to start before the tail (six left): a level past six was kept, not only tried.
  const beforeTail = puts.slice(-PER_HOST - 4, -PER_HOST);
  expect(mostAsStarting(puts, beforeTail), 'past six before the tail').toBeGreaterThan(START_CONNECTIONS);
  // Chunk N's link names host (N-1) mod 2 (the service's default --storage-hosts 2). A seventh to one host the
  // browser would hold back itself; that the element never asks for one, test/unit/connections.test.ts.
  const onHost = (host: number) => puts.filter((p) => (Number(p.path.split('/').pop()) - 1) % 2 === host);
  for (const host of [0, 1]) expect(mostAtOnce(onHost(host)), `host ${host}`).toBeLessThanOrEqual(PER_HOST);
});

test('with parallel-uploads="3" runs three chunk PUTs at a time, whatever the rate says', async ({ page }) => {
  // 12 chunks of 8 MiB at 6 MB/s: about 15 s, past the first measurement a level could have moved at (5.5 s).
  const file = await randomFile(96 * MiB, 'fixed.mp4');
  const before = (await storageRequests(page)).length;
  await faults(page, HELD_BACK);
  await open(page, { ...CHUNKED, 'chunk-size': '8MB', 'parallel-uploads': '3' });
  await addFile(page, file);
  await event(page, 'upload-success', 60_000);
  const puts = byStart(finishedChunks(await storageRequests(page, before)));
  expect(puts.length).toBe(12);
  expect(mostAtOnce(puts)).toBe(3);
  // Still three at once in its last chunks, after the first measurement a level could have moved at.
  expect(mostAsStarting(puts, puts.slice(-5, -2))).toBe(3);
});

test('keeps no more than six connections where a few already fill the link', async ({ page }) => {
  // The page's whole upload held to 6 MiB/s: more connections change nothing, so none are kept. 48 chunks of 5 MiB:
  // about 40 s; six are measured by about 6 s, then twelve are tried, six measured again; by then too few chunks are
  // left for more to be judged before the tail, so one fewer is tried instead (test/unit/connections.test.ts has the
  // way down below six).
  const file = await randomFile(240 * MiB, 'full-link.mp4');
  const before = (await storageRequests(page)).length;
  await open(page, { ...CHUNKED, 'chunk-size': '5MB' });
  await throttleUploads(page, 6 * MiB);
  await addFile(page, file);
  await event(page, 'upload-success', 110_000);
  const puts = byStart(finishedChunks(await storageRequests(page, before)));
  expect(puts.length).toBe(48);
  expect(underWay(puts, puts[START_CONNECTIONS - 1]!.startedAt), 'six from the start').toBe(START_CONNECTIONS);
  expect(mostAtOnce(puts), 'twelve tried').toBe(2 * START_CONNECTIONS);
  // The last chunks to start, in the tail: the level it ends with.
  expect(mostAsStarting(puts, puts.slice(-PER_HOST)), 'six at most at the end').toBeLessThanOrEqual(START_CONNECTIONS);
});

test('sends a chunk that would end long after the others again, on another connection, and keeps the first answer', async ({
  page,
}) => {
  // Eight chunks of 8 MiB at loopback's pace, but the eighth PUT to arrive is read at 100 kB/s (the kernel's buffers
  // take its first MB at once): alone it would take most of a minute. Once every chunk has started and a second PUT
  // would end well before it, one goes.
  const file = await randomFile(64 * MiB, 'straggler.mp4');
  const before = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', nth: [8], action: 'throttle', bytesPerSecond: 100_000 }] });
  await open(page, { ...CHUNKED, 'chunk-size': '8MB' });
  await addFile(page, file);
  await event(page, 'upload-success', 60_000);
  const puts = byStart(
    (await storageRequests(page, before)).filter((r) => r.method === 'PUT' && r.path.startsWith('/chunks/')),
  );
  const { path } = puts[7]!;
  // The second answered while the slow one was still being read: every other chunk went once.
  expect(puts.filter((p) => p.path === path).map((p) => p.status === 200)).toEqual([false, true]);
  expect(puts.filter((p) => p.status === 200)).toHaveLength(8);
  expect(puts).toHaveLength(9);
});
