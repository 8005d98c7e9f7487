import type { BrowserContext, Page } from '@playwright/test';
import { copyFile, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { media, sha256 } from '../helpers/media.js';
import { storedSha256 } from '../helpers/service.js';
import {
  addFile,
  askChunkUrl,
  env,
  event,
  expect,
  expectIntact,
  faults,
  finishedChunks,
  getVideo,
  message,
  open,
  progress,
  sessionOf,
  storageRequests,
  test,
  throttleUploads,
} from './demo.js';
import { tempDir } from '../helpers/temp.js';

/** Resume after a reload or a crashed tab, and what happens to sessions left behind (issue 4). */

const MULTIPART = { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'parallel-uploads': '1', 'no-preview': '' };
const SIX_HOURS = 6 * 60 * 60 * 1000;

/** Moves the service's clock 6 hours on, and the page's to the same instant (the service's clock may already be ahead). */
async function sixHoursLater(page: Page) {
  const res = await page.request.post(`${env('SERVICE_URL')}/__test__/clock`, {
    data: { advanceMs: SIX_HOURS + 60_000 },
  });
  await page.clock.setSystemTime((await res.json()).now);
}

/** The element's ledger, from a context's saved storage. */
function localStorage_(state: {
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}): string {
  const origin = state.origins.find((o) => env('DEMO_URL').startsWith(o.origin));
  return origin?.localStorage.find((i) => i.name === 'video-uploader:uploads:v1')?.value ?? '{}';
}

/**
 * Starts a throttled multipart upload of `file` and waits until a chunk is stored: any chunk, or `chunk`
 * (its number) when given.
 */
async function startUpload(
  page: Page,
  file: string,
  since: number,
  attributes: Record<string, string> = MULTIPART,
  chunk?: number,
) {
  await open(page, attributes);
  await throttleUploads(page, 2 * 1024 * 1024);
  await addFile(page, file);
  await expect
    .poll(
      async () =>
        finishedChunks(await storageRequests(page, since)).some((r) => !chunk || r.path.endsWith(`/${chunk}`)),
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** After this page's tab was closed: a new tab, six hours later, whose browser kept no file. */
async function reopenSixHoursLater(page: Page, context: BrowserContext): Promise<Page> {
  await page.close();
  const later = await context.newPage();
  await sixHoursLater(later);
  await forgetKeptFiles(context);
  await open(later, MULTIPART);
  return later;
}

/** Forgets what Golden Retriever kept (as a browser that could not keep the file would), from a plain page of the same origin. */
async function forgetKeptFiles(context: BrowserContext) {
  const plain = await context.newPage();
  await plain.goto(`${env('DEMO_URL')}api/config`);
  await plain.evaluate(async () => {
    for (const key of Object.keys(localStorage)) if (key.startsWith('uppyState:')) localStorage.removeItem(key);
    for (const db of await indexedDB.databases()) if (db.name) indexedDB.deleteDatabase(db.name);
  });
  await plain.close();
}

test('after a reload, Golden Retriever brings the file back and the upload continues from its finished chunks', async ({
  page,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await startUpload(page, file, since);
  await page.reload();
  await expect(page.locator('video-uploader')).toContainText('resume the upload');
  await expect(message(page, 'Add the same file again'), 'nothing to re-add: the file came back').toHaveCount(0);
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since, { oneSession: true });
});

test('a resumed upload of chunks that shrink counts each finished chunk at its own size', async ({ page }) => {
  const file = await media('h264-aac-720p-12s-21mb.mp4');
  const size = (await stat(file)).size;
  const since = (await storageRequests(page)).length;
  // chunk-size unset over two connections: 6, 5, 5 MiB and the rest, where @uppy/aws-s3 cuts four of 5.07 MiB.
  // Reloaded once the first, the one whose size differs most, is in.
  await startUpload(page, file, since, { 'multipart-threshold': '1MB', 'parallel-uploads': '2', 'no-preview': '' }, 1);
  await page.reload();
  await page.locator('video-uploader .uppy-StatusBar-actionBtn--upload').click();
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since, { oneSession: true });
  expect(await progress(page), 'the last progress counts the whole file').toMatchObject({
    bytesSent: size,
    bytesTotal: size,
  });
});

test('a file the browser did not keep is asked for again; the same file re-added continues its session', async ({
  page,
  context,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await startUpload(page, file, since);
  await page.goto('about:blank');
  await forgetKeptFiles(context);
  await open(page, MULTIPART);
  await expect(message(page, 'Add the same file again to continue')).toBeVisible();
  await addFile(page, file);
  const { videoId } = await event(page, 'upload-success');
  await expectIntact(page, videoId, file, since, { oneSession: true });
});

test("a different file with the same name, size and date does not continue another file's upload", async ({
  page,
  context,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const impostor = join(await tempDir('impostor-'), 'h264-aac-720p-10s-12mb.mp4');
  await copyFile(file, impostor);
  const bytes = await readFile(impostor);
  bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff; // the last MiB differs
  await writeFile(impostor, bytes);
  const { mtime } = await stat(file);
  await utimes(impostor, mtime, mtime);
  const since = (await storageRequests(page)).length;
  await startUpload(page, file, since);
  await page.goto('about:blank');
  await forgetKeptFiles(context);
  await open(page, MULTIPART);
  await addFile(page, impostor);
  const { videoId } = await event(page, 'upload-success');
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(impostor));
  const sessions = new Set(finishedChunks(await storageRequests(page, since)).map(sessionOf));
  expect(sessions.size, 'the impostor got a session of its own').toBe(2);
});

test('when the session expired meanwhile, the re-added file starts again and the person is told why', async ({
  page,
  context,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await startUpload(page, file, since);
  const first = sessionOf(finishedChunks(await storageRequests(page, since))[0]!);
  await page.goto('about:blank');
  await forgetKeptFiles(context);
  await sixHoursLater(page);
  const original = JSON.parse(localStorage_(await context.storageState()))[first].videoId;
  await open(page, MULTIPART);
  await expect(message(page, 'expired before it finished. Add the file again')).toBeVisible();
  await addFile(page, file);
  await expect(message(page, 'expired before all of it was sent')).toBeVisible();
  const { videoId } = await event(page, 'upload-success');
  expect(videoId, 'the restart went into the same video').toBe(original);
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
  const res = await askChunkUrl(page, first, 1);
  expect((await res.json()).error.message, 'the expired session was aborted').toContain('aborted');
});

test('a closed tab whose chunks were all in is completed the next time the element sees its ledger, even expired', async ({
  page,
  context,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await faults(page, {
    rules: [{ target: 'POST /videos/{id}/multipart-upload/complete', nth: [1], action: 'stall', stallMs: 120_000 }],
  });
  await open(page, { ...MULTIPART, 'parallel-uploads': '4' });
  await addFile(page, file);
  await expect.poll(async () => finishedChunks(await storageRequests(page, since)).length, { timeout: 30_000 }).toBe(3);
  const videoId = JSON.parse(
    (await page.locator('#events li[data-event="video-created"]').textContent())!.slice('video-created '.length),
  ).videoId;
  const later = await reopenSixHoursLater(page, context);
  await expect(message(later, 'it is now complete')).toBeVisible();
  const video = await getVideo(later, videoId);
  expect(['processing', 'ready']).toContain(video.status);
  expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
});

test('a closed tab whose session expired unfinished is aborted the next time the element sees its ledger', async ({
  page,
  context,
}) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await startUpload(page, file, since);
  const key = sessionOf(finishedChunks(await storageRequests(page, since))[0]!);
  const later = await reopenSixHoursLater(page, context);
  await expect(message(later, 'expired before it finished. Add the file again')).toBeVisible();
  const res = await askChunkUrl(later, key, 3);
  expect(res.status()).toBe(409);
  const ledger = JSON.parse((await later.evaluate(() => localStorage.getItem('video-uploader:uploads:v1')))!);
  expect(ledger[key]).toMatchObject({ discarded: true, chunks: {} });
});

test('leaving the page while an upload runs asks for confirmation', async ({ page }) => {
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await page.goto(env('DEMO_URL'));
  await page.locator('h1').click(); // a page may ask only after the person has interacted with it
  await startUpload(page, file, since);
  const dialog = page.waitForEvent('dialog');
  await page.close({ runBeforeUnload: true });
  const shown = await dialog;
  expect(shown.type()).toBe('beforeunload');
  await shown.dismiss(); // "stay on the page"
  expect(page.isClosed()).toBe(false);
  await page.close(); // and now leave without asking, so the upload does not outlive the test
});

test('mid-upload, once Golden Retriever has saved, no token is in localStorage, sessionStorage, IndexedDB or the console', async ({
  page,
}) => {
  const tokens: string[] = [];
  page.on('response', async (res) => {
    if (res.url().endsWith('/api/video-token')) tokens.push((await res.json()).token);
  });
  const logged: string[] = [];
  page.on('console', (m) => logged.push(m.text()));
  const file = await media('h264-aac-720p-10s-12mb.mp4');
  const since = (await storageRequests(page)).length;
  await startUpload(page, file, since);
  await page.locator('video-uploader [data-cy="togglePauseResume"]').click();
  const key = sessionOf(finishedChunks(await storageRequests(page, since))[0]!);
  const size = (await stat(file)).size;

  /** Everything the page keeps at rest, as text: both storages, and every record of every IndexedDB store. */
  const atRest = () =>
    page.evaluate(async () => {
      const request = <T>(r: IDBRequest<T>) =>
        new Promise<T>(
          (resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))),
        );
      const text = [JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })];
      for (const { name } of await indexedDB.databases()) {
        const db = await request(indexedDB.open(name!));
        for (const store of db.objectStoreNames) {
          const tx = db.transaction(store);
          const [keys, values] = await Promise.all([
            request(tx.objectStore(store).getAllKeys()),
            request(tx.objectStore(store).getAll()),
          ]);
          text.push(JSON.stringify([keys, values], (_k, v) => (v instanceof Blob ? `[blob of ${v.size} bytes]` : v)));
        }
        db.close();
      }
      return text.join('\n');
    });
  // Golden Retriever has saved: its state names the session, and IndexedDB holds the file itself.
  await expect.poll(atRest, { timeout: 10_000 }).toContain(`[blob of ${size} bytes]`);
  await expect.poll(atRest).toContain(key);
  const stored = await atRest();

  expect(tokens.length, 'the page did get a token').toBeGreaterThan(0);
  for (const token of tokens) {
    expect(stored.includes(token), 'no token at rest').toBe(false);
    expect(
      logged.some((line) => line.includes(token)),
      'no token in the console',
    ).toBe(false);
  }
});
