import { expect, test, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { media } from '../helpers/media.js';
import { open as openDemo } from './demo.js';

/** The ways a person gives the element a file: keyboard and picker, drop, paste. Each ends in an upload. */

const open = (page: Page, attributes: Record<string, string> = { 'auto-proceed': '', 'no-preview': '' }) =>
  openDemo(page, attributes);

/** What has focus inside the element's shadow root (document.activeElement is only the host). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.querySelector('video-uploader')!.shadowRoot!.activeElement as HTMLElement | null;
    return el
      ? {
          text: (el.textContent ?? '').trim() || el.getAttribute('aria-label') || el.tagName,
          panel: el.closest('[data-uppy-paneltype]')?.getAttribute('data-uppy-paneltype') ?? null,
        }
      : null;
  });

const uploaded = (page: Page) =>
  expect(page.locator('#events li[data-event="upload-success"]')).toHaveCount(1, { timeout: 60_000 });

/** Puts a real File, read from disk, into a DataTransfer inside the page. */
async function dataTransfer(page: Page, path: string, name: string) {
  const bytes = [...(await readFile(path))];
  return page.evaluateHandle(
    ([data, fileName]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data as number[])], fileName as string, { type: 'video/mp4' }));
      return transfer;
    },
    [bytes, name] as const,
  );
}

test('adds and uploads a file with the keyboard alone', async ({ page }) => {
  await open(page);
  let found = false;
  for (let i = 0; i < 10 && !found; i++) {
    await page.keyboard.press('Tab');
    found = (await focused(page))?.text === 'browse files';
  }
  expect(found, 'Tab reaches "browse files"').toBe(true);
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Enter');
  await (await chooser).setFiles(await media('h264-aac-320p-4s.mp4'));
  await uploaded(page);
});

test('keeps Tab inside an open Dashboard overlay, cycling instead of escaping or sticking', async ({ page }) => {
  await open(page, {});
  await page
    .locator('video-uploader .uppy-Dashboard-input')
    .first()
    .setInputFiles(await media('h264-aac-320p-4s.mp4'));
  await page.locator('video-uploader .uppy-DashboardContent-addMore').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('video-uploader [data-uppy-paneltype="AddFiles"]')).toBeVisible();
  const seen: (string | null)[] = [];
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    expect(now?.panel, `Tab ${i + 1} stays in the overlay`).toBe('AddFiles');
    seen.push(now!.text);
  }
  expect(new Set(seen).size, 'focus moves through more than one control').toBeGreaterThan(1);
  await page.keyboard.press('Shift+Tab');
  expect((await focused(page))?.panel).toBe('AddFiles');
});

test('adds and uploads a dropped file', async ({ page }) => {
  await open(page);
  const transfer = await dataTransfer(page, await media('h264-aac-320p-4s.mp4'), 'dropped.mp4');
  const target = page.locator('video-uploader .uppy-Dashboard-inner');
  await target.dispatchEvent('dragover', { dataTransfer: transfer });
  await target.dispatchEvent('drop', { dataTransfer: transfer });
  await uploaded(page);
  await expect(page.locator('#events li[data-event="upload-success"]')).toContainText('dropped.mp4');
});

test('adds and uploads a pasted file', async ({ page }) => {
  await open(page);
  const transfer = await dataTransfer(page, await media('h264-aac-320p-4s.mp4'), 'pasted.mp4');
  await page.evaluate((clipboardData) => {
    const dashboard = document
      .querySelector('video-uploader')!
      .shadowRoot!.querySelector<HTMLElement>('.uppy-Dashboard-inner')!;
    dashboard.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, composed: true }));
  }, transfer);
  await uploaded(page);
  await expect(page.locator('#events li[data-event="upload-success"]')).toContainText('pasted.mp4');
});
