import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { isolated } from '../helpers/bidi.js';
import { sha256 } from '../helpers/media.js';
import { addFile, env, event, expect, faults, getVideo, message, open, storageOrigins, test } from './demo.js';
import { storedSha256 } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

/** Bad input (issue 4): each gets a clear message, loses nothing, and leaves no spinner turning. */

async function fileNamed(name: string, bytes: Uint8Array = randomBytes(64 * 1024)): Promise<string> {
  const path = join(await tempDir('bad-input-'), name);
  await writeFile(path, bytes);
  return path;
}

/** The upload has stopped with an error: the status bar says so and nothing spins. */
async function expectStoppedWithError(page: Page) {
  await expect(page.locator('video-uploader .uppy-StatusBar')).toHaveClass(/is-error/);
  await expect(page.locator('video-uploader .uppy-StatusBar-spinner')).toHaveCount(0);
  await expect(page.locator('video-uploader .uppy-StatusBar-actionBtn--retry')).toBeVisible();
}

test('refuses an empty file with a message', async ({ page }) => {
  await open(page);
  await addFile(page, await fileNamed('empty.mp4', new Uint8Array(0)));
  await expect(message(page, `${isolated('empty.mp4')} is empty (0 bytes)`)).toBeVisible();
  await expect(page.locator('#events li[data-event="video-created"]')).toHaveCount(0);
});

test('refuses a file over max-file-size, naming the limit', async ({ page }) => {
  await open(page, { 'max-file-size': '50KB' });
  await addFile(page, await fileNamed('big.mp4'));
  await expect(message(page, `${isolated('big.mp4')} exceeds maximum allowed size of 50 KB`)).toBeVisible();
});

test('refuses the same file twice, and uploads it once', async ({ page }) => {
  const path = await fileNamed('twice.mp4');
  await open(page, { 'no-preview': '' });
  await addFile(page, path);
  await event(page, 'upload-success');
  await page.locator('video-uploader .uppy-DashboardContent-addMore').click();
  await addFile(page, path);
  await expect(message(page, `duplicate file '${isolated('twice.mp4')}'`)).toBeVisible();
  await expect(page.locator('#events li[data-event="video-created"]')).toHaveCount(1);
});

test('uploads a file whose size is an exact multiple of the chunk size', async ({ page }) => {
  const path = await fileNamed('exact.mp4', randomBytes(10 * 1024 * 1024));
  await open(page, { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'no-preview': '' });
  await addFile(page, path);
  const { videoId } = await event(page, 'upload-success');
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(path));
});

test('shows file names with HTML, right-to-left text, emoji and 255 characters as text, safely', async ({ page }) => {
  const names = [
    '<img src=x onerror="window.pwned=1">.mp4',
    'عطلة الصيف \u202Egnp.mp4',
    '🎬 première 🎉.mp4',
    `${'a'.repeat(251)}.mp4`,
  ];
  await open(page);
  for (const [i, name] of names.entries()) {
    if (i > 0) await page.locator('video-uploader .uppy-DashboardContent-addMore').click();
    await addFile(page, await fileNamed(name));
  }
  await expect(page.locator('#events li[data-event="upload-success"]')).toHaveCount(names.length, { timeout: 60_000 });
  expect(await page.evaluate(() => (window as any).pwned)).toBeUndefined();
  await expect(page.locator('video-uploader img[src=x]')).toHaveCount(0);
  const items = page.locator('video-uploader .uppy-Dashboard-Item-name');
  const titles = await items.evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  expect(titles.sort()).toEqual([...names].sort());
  await expect(items.filter({ hasText: '<img src=x' }), 'the HTML is shown as text').toHaveCount(1);
  const isolation = await page
    .locator('video-uploader .uppy-Dashboard-Item-name')
    .first()
    .evaluate((e) => getComputedStyle(e).unicodeBidi);
  expect(isolation).toBe('isolate');
  for (const li of await page.locator('#events li[data-event="video-created"]').all()) {
    const { videoId, file } = JSON.parse((await li.textContent())!.slice('video-created '.length));
    expect((await getVideo(page, videoId)).file_name).toBe(file.name);
  }
});

test('a service answer that is not JSON gets a clear error, not a spinner', async ({ page }) => {
  await faults(page, { rules: [{ target: 'POST /videos/{id}/uploads', nth: [1], action: 'not-json' }] });
  await open(page, { 'no-preview': '' });
  await addFile(page, await fileNamed('clip.mp4'));
  const { error, retryable } = await event(page, 'upload-error');
  expect(error).toContain('#2');
  expect(error).toContain('not JSON');
  expect(retryable).toBe(false);
  await expectStoppedWithError(page);
});

test('a service answer without url or key gets a clear error, not a spinner', async ({ page }) => {
  await faults(page, {
    rules: [{ target: 'POST /videos/{id}/multipart-upload/begin', nth: [1], action: 'no-fields' }],
  });
  await open(page, { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'no-preview': '' });
  await addFile(page, await fileNamed('clip.mp4', randomBytes(6 * 1024 * 1024)));
  const { error } = await event(page, 'upload-error');
  expect(error).toContain('#3');
  expect(error).toContain('without the fields the spec names');
  await expectStoppedWithError(page);
});

test('a storage that does not expose ETag is named, with the header it must expose', async ({ page }) => {
  await faults(page, { rules: [], exposeEtag: false });
  await open(page, { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'no-preview': '' });
  await addFile(page, await fileNamed('clip.mp4', randomBytes(6 * 1024 * 1024)));
  const { error, retryable } = await event(page, 'upload-error');
  expect(error).toContain('Access-Control-Expose-Headers: ETag');
  // The host of the PUT that failed: chunks alternate over the storage origin's hosts.
  expect(
    storageOrigins().some((origin) => error.includes(origin)),
    error,
  ).toBe(true);
  expect(retryable).toBe(false);
  await expectStoppedWithError(page);
});
