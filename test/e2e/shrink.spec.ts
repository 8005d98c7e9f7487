import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { firstFrameLikeness, media, sha256 } from '../helpers/media.js';
import { storedSha256, storedSource } from '../helpers/service.js';
import {
  addFile,
  askChunkUrl,
  env,
  event,
  expect,
  expectPreviewPlays,
  faults,
  finishedChunks,
  getVideo,
  open,
  pauseMidChunk,
  progress,
  sessionOf,
  storageRequests,
  test,
  throttleUploads,
} from './demo.js';

const run = promisify(execFile);

/** The video stream of a file as ffprobe reads it, and the file's length. */
async function probe(path: string) {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-count_packets'],
    ...['-show_entries', 'stream=codec_name,width,height,nb_read_packets:format=duration', '-of', 'json', path],
  ]);
  const { streams, format } = JSON.parse(stdout) as {
    streams: { codec_name: string; width: number; height: number; nb_read_packets: string }[];
    format: { duration: string };
  };
  return { ...streams[0]!, frames: Number(streams[0]!.nb_read_packets), duration: Number(format.duration) };
}

test.describe('max-upload-resolution: the browser shrinks a video before it is sent', () => {
  test('a 4K video is sent as 1080p H.264, as long as the source, and plays', async ({ page, storageAuth }) => {
    const source = await media('h264-aac-4k-4s.mp4');
    await open(page, { 'max-upload-resolution': '1080p' });
    await addFile(page, source);
    const start = await event(page, 'shrink-start');
    expect(start).toMatchObject({ choice: '1080p', canEncode: true });
    expect(start.predicted.original).toBeGreaterThan(0);
    expect(start.predicted['1080p']).toBeGreaterThan(0);
    const { videoId } = await event(page, 'upload-success', 120_000);
    const sent = await probe(await storedSource(env('SERVICE_DATA'), videoId));
    const original = await probe(source);
    expect(sent).toMatchObject({ codec_name: 'h264', width: 1920, height: 1080 });
    expect(Math.abs(sent.frames - original.frames), `frames: ${sent.frames} of ${original.frames}`).toBeLessThanOrEqual(
      1,
    );
    expect(Math.abs(sent.duration - original.duration)).toBeLessThanOrEqual(1 / 30 + 0.03);
    await expectPreviewPlays(page, 1920);
    expect((await getVideo(page, videoId)).upload_method).toBe('multipart');
    expect(storageAuth.length).toBeGreaterThan(0);
  });

  test("a phone's upright video stands upright: shrunk to 720p, its turn kept, it plays upright", async ({ page }) => {
    await open(page, { 'max-upload-resolution': '720p' });
    await addFile(page, await media('h264-aac-1080p-turned-3s.mp4'));
    expect(await event(page, 'shrink-start')).toMatchObject({ choice: '720p', canEncode: true });
    const { videoId } = await event(page, 'upload-success', 120_000);
    const sent = await storedSource(env('SERVICE_DATA'), videoId);
    // Stored on its side as the phone stored it, the display matrix saying so; the service turns it into pixels.
    expect(await probe(sent)).toMatchObject({ codec_name: 'h264', width: 1280, height: 720 });
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream_side_data=rotation', '-of', 'csv=p=0'],
      sent,
    ]);
    expect(Math.abs(Number(stdout.trim()))).toBe(90);
    // Whichever rung the player picks (the service adds a 360p one to what it encodes), it is taller than wide.
    const preview = page.locator('video-uploader video');
    await expect(preview).toBeVisible({ timeout: 90_000 });
    await expect
      .poll(() => preview.evaluate((v: HTMLVideoElement) => v.currentTime > 1 && v.videoHeight > v.videoWidth), {
        timeout: 30_000,
      })
      .toBe(true);
  });
});

test('the card offers 1080p and the original with a predicted time each; the person sends the original', async ({
  page,
}) => {
  const source = await media('h264-aac-4k-4s.mp4');
  await open(page, { 'max-upload-resolution': '1080p' }, { autoProceed: false });
  await addFile(page, source);
  // The editor opens by itself once the video is probed, the attribute's choice first and chosen.
  const choices = page.locator('video-uploader').getByRole('group', { name: 'Send this video as' });
  await expect(choices).toBeVisible({ timeout: 60_000 });
  const radios = choices.getByRole('radio');
  await expect(radios).toHaveCount(2);
  await expect(choices.locator('label').nth(0)).toHaveText(/^ ?1080p · about [\d.]+ (s|min)/);
  await expect(choices.locator('label').nth(1)).toHaveText(/^ ?Original · about [\d.]+ (s|min)/);
  await expect(radios.nth(0)).toBeChecked();
  await radios.nth(1).check();
  await page.locator('video-uploader .uppy-DashboardContent-save').click();
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const start = await event(page, 'shrink-start');
  expect(start).toMatchObject({ choice: 'original', canEncode: true });
  expect(Object.keys(start.predicted).sort()).toEqual(['1080p', 'original']);
  const { videoId } = await event(page, 'upload-success', 120_000);
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(source));
});

test('trim: the part chosen on the card by the keys, 00:03.500 to 00:08.000, becomes a 4.5 s video starting on that frame', async ({
  page,
}) => {
  const source = await media('h264-aac-720p-10s.mp4');
  await open(page, { trim: '' }, { autoProceed: false });
  await addFile(page, source);
  const start = page.locator('video-uploader video-trim-editor [role="slider"]').first();
  const end = page.locator('video-uploader video-trim-editor [role="slider"]').last();
  await expect(start).toBeVisible({ timeout: 60_000 });
  // The start: 3 s by the arrows, then half a second of frames (30 fps) by Shift+arrows.
  await start.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  for (let i = 0; i < 15; i++) await page.keyboard.press('Shift+ArrowRight');
  await expect(start).toHaveAttribute('aria-valuetext', '00:03.500');
  await end.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(end).toHaveAttribute('aria-valuetext', '00:08.000');
  await page.locator('video-uploader .uppy-DashboardContent-save').click();
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const { videoId } = await event(page, 'upload-success', 120_000);
  const sent = await storedSource(env('SERVICE_DATA'), videoId);
  const kept = await probe(sent);
  expect(kept).toMatchObject({ codec_name: 'h264', width: 1280, height: 720 });
  expect(Math.abs(kept.frames - 135), `frames: ${kept.frames}`).toBeLessThanOrEqual(1);
  // Its first frame is the source's at 3.5 s, not one beside it.
  const [before, at, after] = await firstFrameLikeness(sent, source, 3.5 - 1 / 30, 3);
  expect(at, `SSIM ${before} | ${at} | ${after}`).toBeGreaterThan(Math.max(before!, after!));
});

test('a video this browser cannot decode (HEVC here) is sent as it is, and its card says so', async ({ page }) => {
  const source = await media('hevc-aac-4s.mkv');
  await open(page, { 'max-upload-resolution': '480p' }, { autoProceed: false });
  await addFile(page, source);
  await expect(page.locator('video-uploader .video-uploader-shrink [role="status"]')).toHaveText(
    'This browser cannot re-encode this video: it is sent as it is.',
    { timeout: 60_000 },
  );
  await page.locator('video-uploader .uppy-DashboardContent-save').click();
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const start = await event(page, 'shrink-start');
  expect(start).toMatchObject({ choice: 'original', canEncode: false, reason: 'undecodable' });
  expect(Object.keys(start.predicted)).toEqual(['original']);
  const { videoId } = await event(page, 'upload-success', 120_000);
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(source));
});

test('max-duration with trim: a longer video is taken, starts trimmed to the limit, and a longer trim is refused by name', async ({
  page,
}) => {
  const source = await media('h264-aac-720p-10s.mp4');
  await open(page, { trim: '', 'max-duration': '6s' }, { autoProceed: false });
  await addFile(page, source);
  const end = page.locator('video-uploader video-trim-editor [role="slider"]').last();
  await expect(end).toHaveAttribute('aria-valuetext', '00:06.000', { timeout: 60_000 });
  await page.locator('video-uploader .uppy-DashboardContent-save').click();
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const { videoId } = await event(page, 'upload-success', 120_000);
  expect((await probe(await storedSource(env('SERVICE_DATA'), videoId))).frames).toBe(180);

  // The end moved past the limit: the upload is refused, saying why, and nothing is sent.
  await open(page, { trim: '', 'max-duration': '6s' }, { autoProceed: false });
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  await expect(end).toHaveAttribute('aria-valuetext', '00:06.000', { timeout: 60_000 });
  await end.focus();
  await page.keyboard.press('End');
  await page.locator('video-uploader .uppy-DashboardContent-save').click();
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const refused = await event(page, 'upload-error');
  expect(refused.error).toMatch(/is 10 s long; videos up to 6 s are accepted/);
  expect(refused.retryable).toBe(false);
});

/**
 * A shrinking upload with several chunks: `trim` with `max-duration="9s"` starts the 10 s, 10 Mbit/s video trimmed to
 * 9 s, which is re-encoded at its own rate (about 11 MB) and sent in 5 MB chunks, one at a time, at 2 MB/s.
 */
const SHRINKING_IN_CHUNKS = { trim: '', 'max-duration': '9s', 'chunk-size': '5MB', 'parallel-uploads': '1' };

test('pausing a shrinking upload stops its bytes; resuming ends in one clean video from one session', async ({
  page,
}) => {
  const since = (await storageRequests(page)).length;
  await open(page, SHRINKING_IN_CHUNKS);
  await throttleUploads(page, 2 * 1024 * 1024);
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  // Past the probe (its 4 MiB PUT times the link): the output's chunks are on their way.
  await expect.poll(async () => (await progress(page))?.bytesSent ?? 0, { timeout: 60_000 }).toBeGreaterThan(0);
  const { key, toggle } = await pauseMidChunk(page, since);
  await toggle.click();
  const { videoId } = await event(page, 'upload-success', 120_000);
  const chunks = finishedChunks(await storageRequests(page, since));
  expect(new Set(chunks.map(sessionOf)), 'one session').toEqual(new Set([key]));
  expect(new Set(chunks.map((r) => r.path)).size, 'three chunks').toBe(3);
  expect((await probe(await storedSource(env('SERVICE_DATA'), videoId))).frames).toBe(270);
});

test('offline in the middle of a shrinking upload: nothing fails, and it ends in one clean video', async ({ page }) => {
  await open(page, SHRINKING_IN_CHUNKS);
  const cdp = await throttleUploads(page, 2 * 1024 * 1024);
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  await expect.poll(async () => (await progress(page))?.bytesSent ?? 0, { timeout: 60_000 }).toBeGreaterThan(0);
  const network = (offline: boolean) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 2 * 1024 * 1024,
    });
  await network(true);
  await page.waitForTimeout(6000);
  await network(false);
  const { videoId } = await event(page, 'upload-success', 120_000);
  await expect(page.locator('#events li[data-event="upload-error"]')).toHaveCount(0);
  expect((await probe(await storedSource(env('SERVICE_DATA'), videoId))).frames).toBe(270);
});

test('a reload in the middle of a shrinking upload: it starts again, the first session is aborted, and one clean video results', async ({
  page,
}) => {
  const since = (await storageRequests(page)).length;
  await open(page, SHRINKING_IN_CHUNKS);
  await throttleUploads(page, 2 * 1024 * 1024);
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  await expect
    .poll(async () => finishedChunks(await storageRequests(page, since)).length, { timeout: 60_000 })
    .toBeGreaterThan(0);
  const first = sessionOf(finishedChunks(await storageRequests(page, since))[0]!);
  await page.reload();
  await expect(page.locator('video-uploader')).toContainText('resume the upload');
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const { videoId } = await event(page, 'upload-success', 120_000);
  expect((await probe(await storedSource(env('SERVICE_DATA'), videoId))).frames).toBe(270);
  // The first encode's session was aborted (#7), never completed with chunks of the second.
  const sessions = new Set(finishedChunks(await storageRequests(page, since)).map(sessionOf));
  expect(sessions.size).toBe(2);
  expect((await (await askChunkUrl(page, first, 1)).json()).error.code).toMatch(/session_(closed|aborted)|not_found/);
});

test('Retry after a shrinking upload failed encodes again into a new session; the failed one is aborted', async ({
  page,
}) => {
  const since = (await storageRequests(page)).length;
  await faults(page, { rules: [{ target: 'chunk-put', nth: [2], action: 'status', status: 400 }] });
  await open(page, SHRINKING_IN_CHUNKS);
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  const failure = await event(page, 'upload-error', 120_000);
  expect(failure.error).toMatch(/refused/);
  const failed = sessionOf(finishedChunks(await storageRequests(page, since))[0]!);
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--retry').click();
  const { videoId } = await event(page, 'upload-success', 120_000);
  expect((await probe(await storedSource(env('SERVICE_DATA'), videoId))).frames).toBe(270);
  const sessions = new Set(finishedChunks(await storageRequests(page, since)).map(sessionOf));
  expect([...sessions].filter((s) => s !== failed).length, 'a second session').toBe(1);
  expect((await (await askChunkUrl(page, failed, 1)).json()).error.code).toMatch(/session_(closed|aborted)|not_found/);
});
