import type { Server } from 'node:http';
import { basename, dirname } from 'node:path';
import { isolated } from '../helpers/bidi.js';
import { media, sha256 } from '../helpers/media.js';
import { serveStatic } from '../helpers/static.js';
import { env, event, expect, expectPreviewPlays, getVideo, open, test } from './demo.js';
import { storedSha256 } from '../helpers/service.js';

/** A third party's file server on this machine (the demo runs with --allow-private-network, as `npm start` does). */
let files: { url: string; server: Server };
let file = '';
test.beforeAll(async () => {
  file = await media('h264-aac-720p-10s.mp4');
  files = await serveStatic(dirname(file), env('DEMO_URL'));
});
test.afterAll(() => files.server.close());

/** As a person does: the Dashboard's Link source, a pasted address, Import. */
async function importLink(page: import('@playwright/test').Page, url: string) {
  await page.locator('video-uploader [data-uppy-acquirer-id="Link"] button').click();
  await page.locator('video-uploader input[name="url"]').fill(url);
  await page.locator('video-uploader .video-uploader-link button[type="submit"]').click();
}

test('a link given to the Link source is imported by the service, processed and previewed, with the events of a file', async ({
  page,
}) => {
  await open(page);
  await importLink(page, new URL(basename(file), files.url).href);
  const created = await event(page, 'video-created');
  const { videoId } = await event(page, 'upload-success');
  expect(created.videoId).toBe(videoId);
  expect(created.file.name).toBe(basename(file));
  await expect(page.locator('video-uploader .uppy-Dashboard-AddFiles')).toBeVisible();
  await expectPreviewPlays(page, 1280);
  await event(page, 'video-ready');
  const video = await getVideo(page, videoId);
  expect(video.upload_method).toBe('import');
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
});

test('a link that leads nowhere is said so on its preview, and video-failed names why', async ({ page }) => {
  await open(page);
  await importLink(page, new URL('no-such-video.mp4', files.url).href);
  const { reason } = await event(page, 'video-failed');
  expect(reason).toBe('The import failed: the URL answered HTTP 404 Not Found.');
  const failed = page.locator('video-uploader .preview[data-state="failed"] [role="status"]');
  // The name and the reason each bidi-isolated in the sentence.
  await expect
    .poll(() => failed.evaluate((el) => el.textContent!.trim()))
    .toBe(
      `${isolated('no-such-video.mp4')} could not be processed: ${isolated('The import failed: the URL answered HTTP 404 Not Found.')}`,
    );
});

test('a link the service refuses at once is said so, in the Dashboard, and upload-error names why', async ({
  page,
}) => {
  await open(page);
  await importLink(page, 'http://user:secret@127.0.0.1/video.mp4');
  const { error } = await event(page, 'upload-error');
  expect(error).toMatch(/url ".*" is refused: a URL with a user name or password is not accepted/);
  await expect(page.locator('video-uploader .uppy-Informer [role="alert"]').first()).toContainText(
    'cannot be imported',
  );
});
