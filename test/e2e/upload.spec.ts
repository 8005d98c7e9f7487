import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { media, sha256 } from '../helpers/media.js';
import { storedSha256 } from '../helpers/service.js';
import {
  addFile,
  askChunkUrl,
  env,
  event,
  expect,
  expectPreviewPlays,
  finishedChunks,
  getVideo,
  open,
  sessionOf,
  storageRequests,
  test,
  throttleUploads,
} from './demo.js';

test('uploads a 10 s 720p MP4 by the signed link, and the preview plays', async ({ page, storageAuth }) => {
  await open(page);
  await addFile(page, await media('h264-aac-720p-10s.mp4'));
  const { videoId } = await event(page, 'upload-success');
  await expectPreviewPlays(page, 1280);
  const video = await getVideo(page, videoId);
  expect(video.status).toBe('ready');
  expect(video.upload_method).toBe('single');
  expect(storageAuth.length).toBe(1);

  // embed_url plays inside an iframe of another page.
  await page.setContent(
    `<iframe src="${video.playback.embed_url}" width="640" height="360" allow="autoplay"></iframe>`,
  );
  const embedded = page.frameLocator('iframe').locator('video');
  await embedded.evaluate((v: HTMLVideoElement) => ((v.muted = true), v.play()));
  await expect
    .poll(() => embedded.evaluate((v: HTMLVideoElement) => v.currentTime > 1 && v.videoWidth === 1280), {
      timeout: 30_000,
    })
    .toBe(true);
});

test('uploads in parallel 5 MB chunks above a 1 MB threshold; the stored source is byte for byte the file', async ({
  page,
  storageAuth,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const before = (await storageRequests(page)).length;
  await open(page, { 'multipart-threshold': '1MB', 'chunk-size': '5MB' });
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
  const mine = finishedChunks(await storageRequests(page, before));
  expect(mine.length).toBeGreaterThanOrEqual(3);
  const overlapping = mine.some((a) =>
    mine.some((b) => a !== b && a.startedAt < b.endedAt! && b.startedAt < a.endedAt!),
  );
  expect(overlapping, 'chunks of one file were in flight together').toBe(true);
  await expectPreviewPlays(page, 1280);
  expect((await getVideo(page, videoId)).upload_method).toBe('multipart');
  expect(storageAuth.length).toBeGreaterThanOrEqual(3);
});

test('cancelling a multipart upload aborts its session on the service (#7)', async ({ page, storageAuth }) => {
  const before = (await storageRequests(page)).length;
  await open(page, { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'parallel-uploads': '1' });
  await throttleUploads(page, 4 * 1024 * 1024);
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  await expect
    .poll(async () => finishedChunks(await storageRequests(page, before)).length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  const session = sessionOf(finishedChunks(await storageRequests(page, before))[0]!);
  await page
    .locator('video-uploader button.uppy-StatusBar-actionBtn--cancel, video-uploader button[title="Cancel"]')
    .first()
    .click();
  await expect
    .poll(async () => {
      const res = await askChunkUrl(page, session, 9);
      return [res.status(), (await res.json()).error?.message as string];
    })
    .toEqual([409, expect.stringContaining('aborted')]);
  // Also those of a chunk PUT that was still writing when the session was aborted.
  await expect
    .poll(() => existsSync(join(env('SERVICE_DATA'), 'chunks', session)), { message: 'its chunks are gone from disk' })
    .toBe(false);
  expect(storageAuth.length).toBeGreaterThan(0);
});

test('refuses a file that is not a video before uploading, and says why', async ({ page }) => {
  const notes = join(tmpdir(), 'meeting-notes.txt');
  await writeFile(notes, 'Agenda: nothing to upload here.\n');
  await open(page);
  await addFile(page, notes);
  const message = page
    .locator('video-uploader [role=alert]', { hasText: 'Only video files' })
    .filter({ visible: true });
  await expect(message).toBeVisible();
  await expect(message, 'said once, not twice').toHaveCount(1);
  // Refused before it was added: the Dashboard lists no file, so no video can be created for it.
  await expect(page.locator('video-uploader .uppy-Dashboard-Item')).toHaveCount(0);
  await expect(page.locator('#events li[data-event="video-created"]')).toHaveCount(0);
});

test('a token that expires mid-upload is refreshed and the upload completes', async ({ page, storageAuth }) => {
  const tokens: string[] = [];
  page.on('response', async (res) => {
    if (res.url().endsWith('/api/video-token')) tokens.push((await res.json()).token);
  });
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  await open(page, { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'parallel-uploads': '1', 'no-preview': '' });
  await throttleUploads(page, 4 * 1024 * 1024);
  await addFile(page, file);
  const before = (await storageRequests(page)).length;
  await expect
    .poll(async () => finishedChunks(await storageRequests(page, before)).length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  expect(tokens.length).toBe(1);
  await page.request.post(`${env('SERVICE_URL')}/__test__/expire-token`, { data: { token: tokens[0] } });
  const { videoId } = await event(page, 'upload-success');
  expect(tokens.length, 'the element fetched a new token').toBe(2);
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
  expect(storageAuth.length).toBeGreaterThan(0);
});

test('no request that reached the storage origin in this run carried Authorization', async ({ page }) => {
  const requests = await storageRequests(page);
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((r) => r.authorization)).toEqual([]);
});

test('the demo page takes no base-url or token-url from its address bar', async ({ page }) => {
  const evil = encodeURIComponent('https://evil.example/collect');
  await page.goto(`${env('DEMO_URL')}?base-url=${evil}&token-url=${evil}&max-files=3`);
  const uploader = page.locator('video-uploader');
  await expect(uploader, 'other attributes still apply').toHaveAttribute('max-files', '3');
  await expect(uploader).toHaveAttribute('base-url', env('SERVICE_URL'));
  await expect(uploader).toHaveAttribute('token-url', '/api/video-token');
});

test('in a browser that cannot play HLS (no MediaSource, no native HLS), the preview says so instead of a black box', async ({
  page,
}) => {
  // An engine without Media Source Extensions or native HLS, as some embedded WebViews are.
  await page.addInitScript(() => {
    delete (window as { MediaSource?: unknown }).MediaSource;
    delete (window as { ManagedMediaSource?: unknown }).ManagedMediaSource;
    HTMLMediaElement.prototype.canPlayType = () => '';
  });
  await open(page);
  await addFile(page, await media('h264-aac-4s.mov'));
  await event(page, 'video-ready');
  const preview = page.locator('video-uploader .preview');
  await expect(preview).toHaveAttribute('data-state', 'unplayable');
  await expect(preview.locator('[role=status]')).toHaveText('This browser cannot play HLS video.');
  await expect(preview.locator('video')).toHaveCount(0);
});
