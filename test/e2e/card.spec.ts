import { media } from '../helpers/media.js';
import { addFile, expect, open, test } from './demo.js';

test('shows a frame of an MP4 on its card, taken about 1 s in', async ({ page }) => {
  await open(page);
  await page.locator('video-uploader').evaluate((el) => el.removeAttribute('auto-proceed'));
  await addFile(page, await media('h264-aac-720p-10s.mp4'));
  const frame = page.locator('video-uploader .uppy-Dashboard-Item-previewImg');
  await expect(frame).toHaveAttribute('src', /^blob:/);
  const drawn = await frame.evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    // The test pattern moves: a frame 1 s in is not the first one. Its pixels are read back from a canvas.
    const canvas = Object.assign(document.createElement('canvas'), {
      width: img.naturalWidth,
      height: img.naturalHeight,
    });
    const context = canvas.getContext('2d')!;
    context.drawImage(img, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let lit = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! + data[i + 1]! + data[i + 2]! > 60) lit++;
    return { width: img.naturalWidth, height: img.naturalHeight, lit: lit / (data.length / 4) };
  });
  expect(drawn).toMatchObject({ width: 240, height: 135 });
  expect(drawn.lit, 'a picture, not a black frame').toBeGreaterThan(0.5);
});

test('types an MPEG-TS file by its container and shows the video icon, not a text document', async ({ page }) => {
  await open(page);
  await page.locator('video-uploader').evaluate((el) => el.removeAttribute('auto-proceed'));
  await addFile(page, await media('mpeg2-mp2-4s.ts'));
  const icon = page.locator('video-uploader .uppy-Dashboard-Item-previewIcon');
  // Uppy's icon colour for video/* (@uppy/dashboard getFileTypeIcon); a text document's is #5a5e69.
  await expect(icon).toHaveCSS('color', 'rgb(25, 175, 103)');
  await expect(page.locator('video-uploader .uppy-Dashboard-Item-previewImg')).toHaveCount(0);
});
