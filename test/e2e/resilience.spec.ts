import { media, sha256 } from '../helpers/media.js';
import { retryDelayMs } from '../../src/api/retry.js';
import { storedSha256 } from '../helpers/service.js';
import {
  addFile,
  env,
  event,
  expect,
  expectIntact,
  faults,
  finishedChunks,
  message,
  open,
  pauseMidChunk,
  progress,
  sessionOf,
  storageRequests,
  test,
  throttleUploads,
} from './demo.js';

/**
 * Uploads that survive (issue 4). Each test checks that the stored source is the file, byte for byte,
 * and that the service received at most the file plus the bytes of the attempts that failed.
 */
const MULTIPART = { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'no-preview': '' };

test('retries a failing chunk alone (500, dropped connection) and completes', async ({ page, storageAuth }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, {
    rules: [
      { target: 'chunk-put', nth: [2], action: 'status', status: 500 },
      { target: 'chunk-put', nth: [3], action: 'reset' },
    ],
  });
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
  await faults(page, {
    rules: [{ target: 'chunk-put', nth: [2], action: 'status', status: 403, code: 'signature_expired' }],
  });
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

/** Every try of the policy together, at the longest: 1 + 2 + 4 + 8 + 16 s (src/api/retry.ts). */
const RETRY_BUDGET_MS = [1, 2, 3, 4, 5].reduce((sum, retry) => sum + retryDelayMs(retry, undefined, () => 0.999999), 0);

test('offline for longer than every retry together: nothing is sent, no error, and the upload completes intact', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  const cdp = await throttleUploads(page, 2 * 1024 * 1024);
  // Recorded in the browser: a request made offline never reaches the service's log.
  const sent: { url: string; at: number }[] = [];
  page.on('request', (r) => sent.push({ url: r.url(), at: Date.now() }));
  await addFile(page, file);
  await expect
    .poll(async () => finishedChunks(await storageRequests(page, since)).length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  const network = (offline: boolean) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 2 * 1024 * 1024,
    });
  await network(true);
  const cut = Date.now();
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  // Offline as long as the person's train is in a tunnel: longer than the retry policy could ever wait.
  await page.waitForTimeout(RETRY_BUDGET_MS + 4000);
  const back = Date.now();
  await network(false);
  // The PUT under way when the network went may still report; nothing may start after that.
  expect(
    sent.filter((r) => r.at > cut + 500 && r.at < back),
    'no request while offline',
  ).toEqual([]);
  await expect(page.locator('#events li[data-event="upload-error"]'), 'no error while offline').toHaveCount(0);
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since, { oneSession: true });
  await expect(page.locator('#events li[data-event="upload-error"]')).toHaveCount(0);
});

// The policy's whole course once, for a 502 (every retry waited out: 25 s); the other statuses it retries are
// classified by the same rule (src/upload, test/unit/retry.test.ts), and the test after this one sends each once.
test(`a chunk answered 502 gets exactly 6 attempts spaced as the policy says; the upload fails retryable, and Retry continues the session`, async ({
  page,
}) => {
  test.setTimeout(150_000);
  const status = 502;
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  // One chunk at a time: from the 2nd chunk PUT on, every one fails (the second chunk and its retries).
  await faults(page, {
    rules: [{ target: 'chunk-put', nth: Array.from({ length: 10 }, (_, i) => i + 2), action: 'status', status }],
  });
  // The page's own clock times the attempts (Resource Timing): events relayed to the test arrive with
  // a latency that varies by tenths of a second on a busy machine. Room for every entry of the page.
  await page.addInitScript(() => performance.setResourceTimingBufferSize(100_000));
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  await addFile(page, file);
  const failure = await event(page, 'upload-error', 120_000);
  expect(failure.retryable).toBe(true);
  // Attempts as the page makes them: for a 408 on a reused connection Chromium itself sends the request
  // once more before the page hears of it, so the service may see one request more than the page made.
  const refused = await page.evaluate(
    (status) =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((e) => e.initiatorType === 'xmlhttprequest' && e.responseStatus === status)
        .map((e) => ({ url: e.name.split('?')[0], start: e.startTime, end: e.responseEnd })),
    status,
  );
  expect(refused.length, 'six attempts, then it gives up').toBe(6);
  expect(new Set(refused.map((a) => a.url)).size, 'all of one chunk').toBe(1);
  expect((await storageRequests(page, since)).filter((r) => r.status === status).length).toBeGreaterThanOrEqual(6);
  for (let retry = 1; retry < refused.length; retry++) {
    const gap = refused[retry]!.start - refused[retry - 1]!.end;
    // The shortest wait the policy allows before this retry (jitter at its least); the page's clock is
    // coarsened to a tenth of a millisecond.
    expect(gap, `wait before retry ${retry}`).toBeGreaterThanOrEqual(retryDelayMs(retry, undefined, () => 0) - 1);
  }
  await faults(page, {});
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--retry').click();
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since, { oneSession: true });
});

test('a chunk answered 408, then 504, is sent again each time, and the upload completes in one session', async ({
  page,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  // Two 408s: should Chromium itself send a 408 on a reused connection once more, the page still meets one.
  await faults(page, {
    rules: [
      { target: 'chunk-put', nth: [2, 3], action: 'status', status: 408 },
      { target: 'chunk-put', nth: [4], action: 'status', status: 504 },
    ],
  });
  await page.addInitScript(() => performance.setResourceTimingBufferSize(100_000));
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  const seen = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => e.initiatorType === 'xmlhttprequest')
      .map((e) => e.responseStatus),
  );
  expect(seen, 'the page met a 408 and a 504, and went on').toEqual(expect.arrayContaining([408, 504]));
  await expectIntact(page, videoId, file, since, { oneSession: true });
  await expect(page.locator('#events li[data-event="upload-error"]')).toHaveCount(0);
});

test('pausing a multipart upload stops bytes at the storage; resuming sends no finished chunk again', async ({
  page,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await open(page, { ...MULTIPART, 'parallel-uploads': '1' });
  await throttleUploads(page, 3 * 1024 * 1024);
  await addFile(page, file);
  await expect
    .poll(async () => finishedChunks(await storageRequests(page, since)).length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  // Paused while a chunk is on its way.
  const { toggle } = await pauseMidChunk(page, since);
  await toggle.click();
  const { videoId } = await event(page, 'upload-success');
  // Each chunk stored once: a chunk finished before the pause was not sent again.
  await expectIntact(page, videoId, file, since, { oneSession: true });
});

test('pausing a single-link upload says resuming restarts it, and it completes', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await open(page, { 'no-preview': '' });
  await throttleUploads(page, 3 * 1024 * 1024);
  await addFile(page, file);
  await expect(page.locator('video-uploader [data-cy="togglePauseResume"]')).toBeVisible();
  // Paused once bytes are on their way.
  await expect.poll(async () => (await progress(page))?.bytesSent ?? 0).toBeGreaterThan(0);
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
  page.on(
    'request',
    (r) => /\/videos\/[0-9a-f]{24}\/uploads$/.test(r.url()) && r.method() === 'POST' && links.push(r.url()),
  );
  await faults(page, {
    rules: [{ target: 'single-put', nth: [1], action: 'status', status: 403, code: 'signature_expired' }],
  });
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
  expect(await storedSha256(env('SERVICE_DATA'), videoId), 'the altered chunk was replaced').toBe(await sha256(file));
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
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).not.toBe(await sha256(file));
});
