import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { media } from '../helpers/media.js';
import { tempDir } from '../helpers/temp.js';
import { addFile, expect, open, test } from './demo.js';

/** SSIM (1 is the same picture) of `image` to the frame of `video` shown at `seconds`, scaled to the image's size. */
async function likeness(image: string, video: string, seconds: number, size: string): Promise<number> {
  const { stderr } = await promisify(execFile)('ffmpeg', [
    ...['-hide_banner', '-ss', String(seconds), '-i', video, '-i', image],
    ...['-lavfi', `[0:v]scale=${size},format=yuv420p[source];[1:v]format=yuv420p[card];[source][card]ssim`],
    ...['-frames:v', '1', '-f', 'null', '-'],
  ]);
  return Number(/All:([\d.]+)/.exec(stderr)?.[1] ?? 0);
}

test('shows a frame of an MP4 on its card, taken about 1 s in', async ({ page }) => {
  await open(page, {}, { autoProceed: false });
  const video = await media('h264-aac-720p-10s.mp4');
  await addFile(page, video);
  const frame = page.locator('video-uploader .uppy-Dashboard-Item-previewImg');
  await expect(frame).toHaveAttribute('src', /^blob:/);
  const card = await frame.evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    const jpeg = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    return { width: img.naturalWidth, height: img.naturalHeight, jpeg: Array.from(jpeg) };
  });
  expect(card).toMatchObject({ width: 240, height: 135 });
  // The test pattern (ffmpeg's testsrc2) moves and counts: a frame differs from those half a second away. Of
  // the source's frames at 0, 0.5, 1, 1.5 and 2 s (decoded by ffmpeg), the card's is likest to the one at 1 s.
  const image = join(await tempDir('card-'), 'card.jpg');
  await writeFile(image, Uint8Array.from(card.jpeg));
  const times = [0, 0.5, 1, 1.5, 2];
  const scores = await Promise.all(times.map((t) => likeness(image, video, t, '240:135')));
  const likest = times[scores.indexOf(Math.max(...scores))];
  expect(likest, `SSIM of the card's frame to the source's at ${times.join(', ')} s: ${scores.join(', ')}`).toBe(1);
});

test('types an MPEG-TS file by its container and shows the video icon, not a text document', async ({ page }) => {
  await open(page, {}, { autoProceed: false });
  await addFile(page, await media('mpeg2-mp2-4s.ts'));
  const icon = page.locator('video-uploader .uppy-Dashboard-Item-previewIcon');
  // Uppy's icon colour for video/* (@uppy/dashboard getFileTypeIcon); a text document's is #5a5e69.
  await expect(icon).toHaveCSS('color', 'rgb(25, 175, 103)');
  await expect(page.locator('video-uploader .uppy-Dashboard-Item-previewImg')).toHaveCount(0);
});
