import { expect, test as base, type Page } from '@playwright/test';
import { stat } from 'node:fs/promises';
import { sha256 } from '../helpers/media.js';
import type { StorageRequest } from '../../service/storage/server.js';
import { storedSha256 } from '../helpers/service.js';

/** What the end-to-end tests share: the demo page, the service's test hooks, and a storage-Authorization watch. */
export const env = (name: string) => process.env[name] ?? '';
/** The storage origin on each of its hosts (`--storage-hosts`): chunk links alternate over them. */
export const storageOrigins = () => env('STORAGE_URLS').split(',').filter(Boolean);

/**
 * Every test runs on the demo page and records, from the browser's side, every request it sent to
 * the storage origin: none may carry Authorization.
 */
export const test = base.extend<{ storageAuth: string[]; noFaultsAfter: void }>({
  // Faults set by a test never outlive it.
  noFaultsAfter: [
    async ({ request }, use) => {
      await use();
      await request.post(`${env('SERVICE_URL')}/__test__/faults`, { data: {} });
    },
    { auto: true },
  ],
  storageAuth: [
    async ({ page }, use) => {
      const seen: string[] = [];
      page.on('request', (request) => {
        if (storageOrigins().some((origin) => request.url().startsWith(origin)))
          seen.push(request.headers().authorization ?? '');
      });
      await use(seen);
      expect(seen.length, 'the test reached the storage').toBeGreaterThan(0);
      expect(seen.filter(Boolean), 'no storage request carried Authorization').toEqual([]);
    },
    { auto: false },
  ],
});

/** The demo page with these attributes, and `auto-proceed` unless `autoProceed` is false (the Upload button then starts). */
export async function open(page: Page, attributes: Record<string, string> = {}, { autoProceed = true } = {}) {
  await page.goto(`${env('DEMO_URL')}?${new URLSearchParams({ 'auto-proceed': '', ...attributes })}`);
  await expect(page.locator('video-uploader .uppy-Dashboard-input').first()).toBeAttached();
  // The Dashboard takes files once Golden Retriever has restored (see UppyController.loadPlugins).
  await expect(page.locator('video-uploader .uppy-Dashboard')).not.toHaveClass(/uppy-Dashboard--isDisabled/);
  if (!autoProceed) await page.locator('video-uploader').evaluate((el) => el.removeAttribute('auto-proceed'));
}

/**
 * Pauses the upload (the Status Bar's toggle) while a chunk PUT is under way, and checks what a pause must do: the
 * PUT under way is cut off (it ends with no answer), and no byte reaches the session `key` for 3 s, as a person
 * would wait. Answers the session and the toggle, to resume with.
 */
export async function pauseMidChunk(page: Page, since: number) {
  const underWay = () =>
    storageRequests(page, since).then((all) => all.filter((r) => r.method === 'PUT' && r.endedAt === undefined));
  await expect.poll(async () => (await underWay()).length, { timeout: 60_000 }).toBeGreaterThan(0);
  const key = sessionOf((await underWay())[0]!);
  const interrupted = (await underWay()).map((r) => r.path);
  const toggle = page.locator('video-uploader [data-cy="togglePauseResume"]');
  await toggle.click();
  await expect.poll(async () => (await underWay()).length).toBe(0);
  const ended = (await storageRequests(page, since)).filter((r) => r.method === 'PUT' && interrupted.includes(r.path));
  expect(
    ended.map((r) => r.status),
    'the chunk under way was cut off by the pause',
  ).toEqual(interrupted.map(() => 0));
  const bytes = await received(page, key);
  const requests = (await storageRequests(page, since)).length;
  await page.waitForTimeout(3000);
  expect(await received(page, key), 'no byte reached the storage while paused').toBe(bytes);
  expect((await storageRequests(page, since)).length, 'no request while paused').toBe(requests);
  return { key, toggle };
}

export async function addFile(page: Page, path: string) {
  await page.locator('video-uploader .uppy-Dashboard-input').first().setInputFiles(path);
}

/** The detail of the first event of that name the demo page logged. */
export async function event(page: Page, name: string, timeout = 90_000): Promise<any> {
  const item = page.locator(`#events li[data-event="${name}"]`).first();
  await expect(item).toBeAttached({ timeout });
  return JSON.parse((await item.textContent())!.slice(name.length + 1));
}

/** The latest upload-progress the demo page logged (it keeps one line per file), if any. */
export async function progress(page: Page): Promise<{ bytesSent: number; bytesTotal: number } | undefined> {
  const item = page.locator('#events li[data-event="upload-progress"]').last();
  if ((await item.count()) === 0) return undefined;
  return JSON.parse((await item.textContent())!.slice('upload-progress '.length));
}

/** A token of the demo organization, from the integrator backend, as the page gets one. */
export async function token(page: Page): Promise<string> {
  return (await (await page.request.post(`${env('DEMO_URL')}api/video-token`)).json()).token;
}

export async function getVideo(page: Page, id: string) {
  return (
    await page.request.get(`${env('SERVICE_URL')}/videos/${id}`, {
      headers: { authorization: `Bearer ${await token(page)}` },
    })
  ).json();
}

/** What reached the storage origin (the service's test log), from the `since`-th request on. */
export async function storageRequests(page: Page, since = 0): Promise<StorageRequest[]> {
  return (
    (await (await page.request.get(`${env('SERVICE_URL')}/__test__/storage-requests`)).json())
      .requests as StorageRequest[]
  ).slice(since);
}

export const finishedChunks = (requests: StorageRequest[]) =>
  requests.filter((r) => r.method === 'PUT' && r.path.startsWith('/chunks/') && r.status === 200);
export const sessionOf = (r: StorageRequest) => r.path.split('/')[2]!;

export async function expectPreviewPlays(page: Page, width: number) {
  const video = page.locator('video-uploader video');
  await expect(video).toBeVisible({ timeout: 90_000 });
  await expect
    .poll(() => video.evaluate((v: HTMLVideoElement) => ({ playing: v.currentTime > 2, width: v.videoWidth })), {
      timeout: 30_000,
    })
    .toEqual({
      playing: true,
      width,
    });
}

/** Slows the page's uploads to `bytesPerSecond` (Chromium's network emulation), so a test can act mid-upload. */
export async function throttleUploads(page: Page, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
  return cdp;
}

/** Sets the service's faults (see service/faults.ts); `{}` clears them. */
export async function faults(page: Page, body: unknown): Promise<void> {
  expect((await page.request.post(`${env('SERVICE_URL')}/__test__/faults`, { data: body })).status()).toBe(200);
}

export async function received(page: Page, id: string): Promise<number> {
  return (await (await page.request.get(`${env('SERVICE_URL')}/__test__/received/${id}`)).json()).bytes;
}

/** A visible message of the element (Uppy's Informer, role=alert). */
export const message = (page: Page, text: string | RegExp) =>
  page.locator('video-uploader [role=alert]', { hasText: text }).filter({ visible: true });

/** Asks #4 for a URL in the session `key`, as the element would; its answer shows the session's state. */
export async function askChunkUrl(page: Page, key: string, chunkId: number) {
  return page.request.post(`${env('SERVICE_URL')}/videos/multipart-upload/get-chunk-upload-url`, {
    headers: { authorization: `Bearer ${await token(page)}` },
    data: { key, chunkId },
  });
}

const CHUNK = 5 * 1024 * 1024;

/**
 * What every upload test checks (issue 4): the stored source is the file byte for byte; each chunk was
 * stored once; the service received at most the file plus what the failed attempts carried; and, with
 * `oneSession`, the upload continued a single session. Returns the PUTs since `since`.
 */
export async function expectIntact(
  page: Page,
  videoId: string,
  file: string,
  since: number,
  { oneSession = false } = {},
) {
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
  const requests = (await storageRequests(page, since)).filter((r) => r.method === 'PUT');
  const done = finishedChunks(requests);
  expect(new Set(done.map((r) => r.path)).size, 'no chunk was stored twice').toBe(done.length);
  if (oneSession) expect(new Set(done.map(sessionOf)).size, 'one session, continued').toBe(1);
  const failed = requests.filter((r) => r.status !== 200).length;
  const size = (await stat(file)).size;
  const key = done[0] && sessionOf(done[0]);
  const bytes = await received(page, key ?? videoId);
  expect(bytes).toBeGreaterThanOrEqual(size);
  expect(bytes, `received at most the file plus ${failed} failed attempt(s)`).toBeLessThanOrEqual(
    size + failed * (key ? CHUNK : size),
  );
  return requests;
}

export { expect };

/** A <recording-clipper> that has its recording: the start slider enabled and the recording's first frames in. */
export async function clipperReady(page: Page) {
  const clipper = page.locator('recording-clipper');
  await expect(clipper.getByRole('slider', { name: 'Start' })).toHaveAttribute('aria-disabled', 'false', {
    timeout: 30_000,
  });
  await expect
    .poll(() => clipper.locator('video.recording').evaluate((v: HTMLVideoElement) => v.readyState), {
      timeout: 30_000,
    })
    .toBeGreaterThanOrEqual(2);
  return clipper;
}
