import type { Page } from '@playwright/test';
import { isolated } from '../helpers/bidi.js';
import { media } from '../helpers/media.js';
import { addFile, event, expect, open, test } from './demo.js';

/** What the Dashboard said, file names bidi-isolated as it says them. */
const said = (page: Page) =>
  page
    .locator('video-uploader .uppy-Informer [role="alert"]')
    .first()
    .evaluate((el) => el.textContent!.trim());

/** No video object was made for any file: nothing was refused late. */
async function expectNothingCreated(page: Page) {
  await page.waitForTimeout(500);
  await expect(page.locator('#events li[data-event="video-created"]')).toHaveCount(0);
  await expect(page.locator('video-uploader .uppy-Dashboard-Item')).toHaveCount(0);
}

test('refuses an MP4 longer than max-duration before adding it, naming its length and the limit', async ({ page }) => {
  await open(page, { 'max-duration': '5s' });
  await addFile(page, await media('h264-aac-720p-10s.mp4'));
  await expect
    .poll(() => said(page))
    .toBe(`${isolated('h264-aac-720p-10s.mp4')} is 10 s long; videos up to 5 s are accepted.`);
  await expectNothingCreated(page);
  await addFile(page, await media('h264-aac-320p-4s.mp4'));
  await event(page, 'upload-success');
});

test('reads an MPEG-TS (MPEG-2) file Chromium cannot decode with MediaInfo, and judges it the same', async ({
  page,
}) => {
  const wasm: string[] = [];
  page.on('request', (r) => /mediainfo|media-info/i.test(r.url()) && wasm.push(r.url()));
  await open(page, { 'max-duration': '3s' });
  await addFile(page, await media('mpeg2-mp2-4s.ts'));
  await expect
    .poll(() => said(page))
    .toBe(`${isolated('mpeg2-mp2-4s.ts')} is 4 s long; videos up to 3 s are accepted.`);
  await expectNothingCreated(page);
  expect(wasm.length, 'MediaInfo was loaded for it').toBeGreaterThan(0);
  await open(page, { 'min-duration': '2s', 'max-resolution': '720x576' });
  await addFile(page, await media('mpeg2-mp2-4s.ts'));
  await event(page, 'upload-success');
});

test('judges a portrait video by its longer and shorter sides against max-resolution and min-resolution', async ({
  page,
}) => {
  await open(page, { 'max-resolution': '480p' });
  await addFile(page, await media('h264-aac-portrait-3s.mp4'));
  await expect
    .poll(() => said(page))
    .toBe(`${isolated('h264-aac-portrait-3s.mp4')} is 720×1280; videos up to 853×480 are accepted.`);
  await expectNothingCreated(page);
  // 720p is 1280×720: the portrait 720×1280 fits it, side by side.
  await open(page, { 'max-resolution': '720p', 'min-resolution': '1280x720' });
  await addFile(page, await media('h264-aac-portrait-3s.mp4'));
  await event(page, 'upload-success');
});

test('min-resolution refuses a smaller frame; max-file-size still refuses beside the media limits', async ({
  page,
}) => {
  await open(page, { 'min-resolution': '1080p' });
  await addFile(page, await media('h264-aac-320p-4s.mp4'));
  await expect
    .poll(() => said(page))
    .toBe(`${isolated('h264-aac-320p-4s.mp4')} is 480×320; videos of at least 1920×1080 are accepted.`);
  await open(page, { 'max-duration': '1h', 'max-file-size': '1MB' });
  await addFile(page, await media('h264-aac-720p-10s-12mb.mp4'));
  await expect.poll(() => said(page)).toMatch(/exceeds maximum allowed size of 1 MB/);
  await expectNothingCreated(page);
});

test('names a media attribute it cannot read', async ({ page }) => {
  await open(page, {});
  await page.locator('video-uploader').evaluate((el) => el.setAttribute('max-duration', 'soon'));
  await expect(page.locator('video-uploader [part="error"]')).toHaveText(
    'max-duration="soon" is not valid: use a length such as 90s, 10m, 1h30m or 01:30:00.',
  );
});

test('each restriction refuses an MP4 and an MPEG-TS alike, by what the file is', async ({ page }) => {
  for (const [file, attributes, refusal] of [
    ['h264-aac-320p-4s.mp4', { 'min-duration': '5s' }, 'is 4 s long; videos of at least 5 s are accepted.'],
    ['mpeg2-mp2-4s.ts', { 'min-duration': '5s' }, 'is 4 s long; videos of at least 5 s are accepted.'],
    ['mpeg2-mp2-4s.ts', { 'max-resolution': '480p' }, 'is 720×576; videos up to 853×480 are accepted.'],
    ['mpeg2-mp2-4s.ts', { 'min-resolution': '1080p' }, 'is 720×576; videos of at least 1920×1080 are accepted.'],
    ['h264-aac-320p-4s.mp4', { 'max-resolution': '240p' }, 'is 480×320; videos up to 427×240 are accepted.'],
  ] as const) {
    await open(page, attributes);
    await addFile(page, await media(file));
    await expect.poll(() => said(page), `${file} ${JSON.stringify(attributes)}`).toBe(`${isolated(file)} ${refusal}`);
    await expectNothingCreated(page);
  }
});
