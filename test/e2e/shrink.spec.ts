import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { media, sha256 } from '../helpers/media.js';
import { storedSha256 } from '../helpers/service.js';
import { addFile, env, event, expect, expectPreviewPlays, getVideo, open, test } from './demo.js';

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
    const sent = await probe(join(env('SERVICE_DATA'), 'videos', videoId, 'source'));
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
});

test('the card offers 1080p and the original with a predicted time each; the person sends the original', async ({
  page,
}) => {
  const source = await media('h264-aac-4k-4s.mp4');
  await open(page, { 'max-upload-resolution': '1080p' });
  await page.locator('video-uploader').evaluate((el) => el.removeAttribute('auto-proceed'));
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
