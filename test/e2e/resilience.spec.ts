import { join } from 'node:path';
import { media, sha256 } from '../helpers/media.js';
import { addFile, env, event, expect, expectIntact, faults, finishedChunks, message, open, sessionOf, storageRequests, test, throttleUploads } from './demo.js';

/**
 * Uploads that survive (issue 4). Each test checks that the stored source is the file, byte for byte,
 * and that the service received at most the file plus the bytes of the attempts that failed.
 */
const MULTIPART = { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'no-preview': '' };


test('retries a failing chunk alone (500, dropped connection) and completes', async ({ page, storageAuth }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', nth: [2], action: 'status', status: 500 }, { target: 'chunk-put', nth: [3], action: 'reset' }] });
  await open(page, MULTIPART);
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  const requests = await expectIntact(page, videoId, file, since);
  expect(requests.filter((r) => r.status !== 200).length).toBeGreaterThanOrEqual(1);
  expect(storageAuth.length).toBeGreaterThan(3);
});

test('honours Retry-After on a 429 before sending the chunk again', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', nth: [1], action: 'status', status: 429, retryAfter: 2 }] });
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  const requests = await expectIntact(page, videoId, file, since);
  const refused = requests.find((r) => r.status === 429)!;
  const again = requests.find((r) => r.path === refused.path && r.status === 200)!;
  expect(again.startedAt - refused.endedAt!, 'waited what Retry-After said').toBeGreaterThanOrEqual(1900);
});

test('gets a fresh URL from #4 when a chunk URL has expired (403), and completes', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  const signing: string[] = [];
  page.on('request', (r) => r.url().includes('get-chunk-upload-url') && signing.push(r.url()));
  await faults(page, { rules: [{ target: 'chunk-put', nth: [2], action: 'status', status: 403, code: 'signature_expired' }] });
  await open(page, MULTIPART);
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  const requests = await expectIntact(page, videoId, file, since);
  expect(signing.length, 'one more #4 call than chunks').toBe(finishedChunks(requests).length + 1);
});

test('survives #4 and #6 failing once with 500', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, {
    rules: [
      { target: 'POST /videos/{id}/multipart-upload/get-chunk-upload-url', nth: [2], action: 'status', status: 500 },
      { target: 'POST /videos/{id}/multipart-upload/complete', nth: [1], action: 'status', status: 500 },
    ],
  });
  await open(page, MULTIPART);
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since);
});

test('an error retrying cannot fix says so; Retry continues from the finished chunks', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', nth: [2], action: 'status', status: 400 }] });
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  await addFile(page, file);
  const failure = await event(page, 'upload-error');
  expect(failure.retryable).toBe(false);
  await expect(page.locator('video-uploader .uppy-StatusBar')).toContainText(/failed/i);
  const before = finishedChunks(await storageRequests(page, since)).map(sessionOf);
  expect(before.length).toBe(1);
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--retry').click();
  const { videoId } = await event(page, 'upload-success');
  const requests = await expectIntact(page, videoId, file, since);
  expect(new Set(finishedChunks(requests).map(sessionOf)).size, 'the same session, continued').toBe(1);
});

test('losing the network pauses the upload; getting it back resumes it with no user action', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  const cdp = await throttleUploads(page, 2 * 1024 * 1024);
  await addFile(page, file);
  await expect.poll(async () => finishedChunks(await storageRequests(page, since)).length, { timeout: 30_000 }).toBeGreaterThan(0);
  const network = (offline: boolean) =>
    cdp.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: 2 * 1024 * 1024 });
  await network(true);
  const cut = Date.now();
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  await page.waitForTimeout(4000);
  const back = Date.now();
  await network(false);
  // A PUT already under way may finish; nothing new starts until the network is back.
  const startedOffline = (await storageRequests(page, since)).filter((r) => r.startedAt > cut + 200 && r.startedAt < back);
  expect(startedOffline, 'no request starts while offline').toEqual([]);
  await expect(page.locator('#events li[data-event="upload-error"]'), 'no error while offline').toHaveCount(0);
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since);
});

test('pause and resume continue a multipart upload from its finished chunks', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  await throttleUploads(page, 3 * 1024 * 1024);
  await addFile(page, file);
  await expect.poll(async () => finishedChunks(await storageRequests(page, since)).length, { timeout: 30_000 }).toBeGreaterThan(0);
  const toggle = page.locator('video-uploader [data-cy="togglePauseResume"]');
  await toggle.click();
  await page.waitForTimeout(1500);
  await toggle.click();
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since);
});

test('pausing a single-link upload says resuming restarts it, and it completes', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await open(page, { 'no-preview': '' });
  await throttleUploads(page, 3 * 1024 * 1024);
  await addFile(page, file);
  await expect(page.locator('video-uploader [data-cy="togglePauseResume"]')).toBeVisible();
  await page.waitForTimeout(1000);
  await page.locator('video-uploader [data-cy="togglePauseResume"]').click();
  await expect(message(page, 'starts it again from the beginning')).toBeVisible();
  await page.locator('video-uploader [data-cy="togglePauseResume"]').click();
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since);
});

test('Retry after the signed link expired gets a new link from #2', async ({ page }) => {
  const file = await media('h264-aac-720p-10s.mp4');
  const since = (await storageRequests(page)).length;
  const links: string[] = [];
  page.on('request', (r) => /\/videos\/[0-9a-f]{24}\/uploads$/.test(r.url()) && r.method() === 'POST' && links.push(r.url()));
  await faults(page, { rules: [{ target: 'single-put', nth: [1], action: 'status', status: 403, code: 'signature_expired' }] });
  await open(page, { 'no-preview': '' });
  await addFile(page, file);
  const failure = await event(page, 'upload-error');
  expect(failure.error).toContain('link expired');
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--retry').click();
  const { videoId } = await event(page, 'upload-success');
  expect(links.length).toBe(2);
  await expectIntact(page, videoId, file, since);
});

test('verify-chunks catches a chunk the storage stored altered, and sends it again', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', nth: [2], action: 'corrupt' }] });
  await open(page, { ...MULTIPART, 'verify-chunks': '' });
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  expect(await sha256(join(env('SERVICE_DATA'), 'videos', videoId, 'source')), 'the altered chunk was replaced').toBe(await sha256(file));
  const puts = (await storageRequests(page, since)).filter((r) => r.method === 'PUT');
  expect(puts.length, 'one chunk was sent twice').toBe(finishedChunks(puts).length);
  expect(new Set(puts.map((r) => r.path)).size).toBe(puts.length - 1);
});

test('without verify-chunks the same alteration goes unnoticed (what the attribute is for)', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  await faults(page, { rules: [{ target: 'chunk-put', nth: [2], action: 'corrupt' }] });
  await open(page, MULTIPART);
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  expect(await sha256(join(env('SERVICE_DATA'), 'videos', videoId, 'source'))).not.toBe(await sha256(file));
});
