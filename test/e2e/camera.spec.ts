import type { Page } from '@playwright/test';
import { chromiumLaunchOptions } from '../helpers/browser.js';
import { event, expect, getVideo, open, test } from './demo.js';

// Chromium's fake camera and microphone (a moving test pattern and a beep), allowed without a prompt.
const launch = chromiumLaunchOptions();
test.use({
  launchOptions: {
    ...launch,
    args: [...launch.args, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  },
});

/** As a person does: the Camera source, record for `ms`, stop, and keep the recording. */
async function record(page: Page, ms: number) {
  await page.locator('video-uploader [data-uppy-acquirer-id="Webcam"] button').click();
  await page.locator('video-uploader [aria-label="Begin video recording"]').click();
  await page.waitForTimeout(ms);
  await page.locator('video-uploader [aria-label="Stop video recording"]').click();
  await page.locator('video-uploader [aria-label="Submit recorded file"]').click();
}

test('sources="…,camera" records from the camera, and the recording uploads as a file and becomes a video', async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
  await open(page);
  await expect(page.locator('video-uploader [data-uppy-acquirer-id="Link"]')).toBeVisible();
  await expect(page.locator('video-uploader [data-uppy-acquirer-id="Webcam"]')).toHaveCount(0);
  expect(
    scripts.some((s) => s.includes('@uppy/webcam')),
    'not loaded unless chosen',
  ).toBe(false);

  await open(page, { sources: 'files,link,camera' });
  await record(page, 2500);
  const { videoId } = await event(page, 'upload-success');
  const video = await (async () => {
    for (;;) {
      const v = await getVideo(page, videoId);
      if (v.status !== 'processing') return v;
      await page.waitForTimeout(500);
    }
  })();
  expect(video.status, video.failure_reason).toBe('ready');
  expect(video.duration).toBeGreaterThan(1.5);
});

test('a recording goes through the same restrictions as a file', async ({ page }) => {
  await open(page, { sources: 'files,camera', 'max-duration': '1s' });
  await expect(page.locator('video-uploader [data-uppy-acquirer-id="Link"]')).toHaveCount(0);
  await record(page, 2500);
  await expect(page.locator('video-uploader .uppy-Informer [role="alert"]').first()).toContainText(
    /long; videos up to 1 s are accepted\./,
  );
  await page.waitForTimeout(500);
  await expect(page.locator('#events li[data-event="video-created"]')).toHaveCount(0);
});
