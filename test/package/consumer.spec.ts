import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { VIDEO_UPLOADER_EVENTS } from '../../src/events.js';
import { APPS, buildApp } from '../helpers/consumer.js';
import { push } from '../helpers/live.js';
import { media, sha256 } from '../helpers/media.js';
import { serveStatic } from '../helpers/static.js';
import {
  addFile,
  clipperReady,
  env,
  event,
  expect,
  expectPreviewPlays,
  faults,
  getVideo,
  progress,
  test,
} from '../e2e/demo.js';
import { storedSha256 } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

/**
 * What ships, as a frontend team gets it: the packed package in a fresh webpack 5 app and a fresh Vite app,
 * each built for production with nothing but the bundler's defaults (helpers/consumer.ts), served as
 * static files, and used in Chromium against the local service (issue 15).
 */
const served = new Map<string, { url: string; server: Server }>();

for (const app of APPS) {
  test.describe(`the packed package in a ${app.name} app, built for production`, () => {
    let dir = '';
    test.beforeAll(async () => {
      test.setTimeout(600_000);
      const built = await buildApp(app);
      dir = built.dir;
      served.set(app.name, await serveStatic(built.dist, env('DEMO_URL')));
    });

    if (app.tools.includes('typescript')) {
      test('types the tag and its events for TypeScript users once the package is imported', async () => {
        // Fails (exit 2, with the compiler's messages) if a type is missing or loose.
        await promisify(execFile)('npx', ['tsc', '-p', '.'], { cwd: dir });
      });
    }
    if (app.name === 'react') {
      test('renders the wrapper on the server (react-dom/server) without error', async () => {
        // The tag, ready for the browser: @lit/react sets the element's properties once it runs there.
        const { stdout, stderr } = await promisify(execFile)('node', ['ssr.mjs'], { cwd: dir });
        expect(stdout.trim()).toBe('<video-uploader></video-uploader>');
        expect(stderr).toBe('');
      });
    }
    test.afterAll(() => served.get(app.name)?.server.close());

    if (app.name === 'react') {
      test("calls each of the wrapper's nine on… props with its event's detail", async ({ page }) => {
        test.setTimeout(240_000);
        const handled = async (name: string) => (await page.locator(`#events li[data-event="${name}"]`).all()).length;
        await openApp(page, app.name, {});

        // A video that uploads, is processed and plays: onVideoCreated, onUploadProgress, onUploadSuccess,
        // onVideoReady, onPreviewPlaying.
        const file = await media('h264-aac-320p-4s.mp4');
        await addFile(page, file);
        const created = await event(page, 'video-created');
        expect(created.file.name).toBe('h264-aac-320p-4s.mp4');
        const success = await event(page, 'upload-success');
        expect(success.videoId).toBe(created.videoId);
        const size = (await stat(file)).size;
        await expect.poll(() => progress(page)).toMatchObject({ bytesSent: size, bytesTotal: size });
        expect((await event(page, 'video-ready')).video._id).toBe(created.videoId);
        expect((await event(page, 'preview-playing')).videoId).toBe(created.videoId);

        // A video larger than max-upload-resolution: the packed worker (Mediabunny, inlined) shrinks it as it is
        // sent, onShrinkStart.
        await page.locator('video-uploader').evaluate((el) => el.setAttribute('max-upload-resolution', '240p'));
        await page.locator('video-uploader .uppy-DashboardContent-addMore').click();
        await addFile(page, await fileOf('shrunk.mp4', await readFile(file)));
        expect(await event(page, 'shrink-start')).toMatchObject({ choice: '240p', canEncode: true });
        await expect(page.locator('#events li[data-event="upload-success"]')).toHaveCount(2, { timeout: 60_000 });
        await page.locator('video-uploader').evaluate((el) => el.removeAttribute('max-upload-resolution'));

        // Bytes that are no video: the service says so, onVideoFailed.
        await page.locator('video-uploader .uppy-DashboardContent-addMore').click();
        await addFile(page, await fileOf('garbage.mp4', randomBytes(50_000)));
        const failed = await event(page, 'video-failed');
        expect(failed.video._id).not.toBe(created.videoId);
        expect(failed.reason).toContain('could not be read as video or audio');

        // #2 answers what is not JSON: onUploadError.
        await faults(page, { rules: [{ target: 'POST /videos/{id}/uploads', nth: [1], action: 'not-json' }] });
        await page.locator('video-uploader .uppy-DashboardContent-addMore').click();
        await addFile(page, await fileOf('refused.mp4', randomBytes(50_000)));
        const uploadError = await event(page, 'upload-error');
        expect(uploadError.file.name).toBe('refused.mp4');
        expect(uploadError.error).toContain('not JSON');
        expect(uploadError.retryable).toBe(false);

        // An attribute the element cannot use: onConfigError.
        await page.locator('video-uploader').evaluate((el) => el.setAttribute('chunk-size', 'lots'));
        // (The first render, before the app has fetched its base URL, has already been refused with base-url="".)
        const configErrors = page.locator('#events li[data-event="config-error"]');
        await expect(configErrors.last()).toContainText('"attribute":"chunk-size"');
        expect(JSON.parse((await configErrors.last().textContent())!.slice('config-error '.length))).toMatchObject({
          attribute: 'chunk-size',
          value: 'lots',
        });

        for (const name of VIDEO_UPLOADER_EVENTS) expect(await handled(name), `on… prop of ${name}`).toBeGreaterThan(0);
      });
    }

    if (app.name !== 'react') {
      test("speaks the page's language from the app's own chunks, and follows it when it changes", async ({ page }) => {
        await openApp(page, app.name, {});
        const root = page.locator('video-uploader .uppy-Root');
        await expect(root).toContainText('Drop files here');
        await page.evaluate(() => document.documentElement.setAttribute('lang', 'he'));
        // @uppy/locales he_IL, and ours (src/locale/he.ts), laid out right to left.
        await expect(root).toContainText('גרור לכאן קבצים');
        await expect(page.locator('video-uploader .uppy-Dashboard-note')).toContainText('קובצי וידאו');
        await expect(root).toHaveAttribute('dir', 'rtl');
        await page.evaluate(() => document.documentElement.setAttribute('lang', 'ja-JP'));
        await expect(root).toContainText('ここにファイルをドロップ');
        await expect(root).toHaveAttribute('dir', 'ltr');
      });
    }

    if (app.name !== 'react') {
      test('<recording-clipper> from video-uploader/clipper: lists the stream, plays the recording, no Uppy loaded', async ({
        page,
      }) => {
        // The stream key goes to a visitor a demo page signed in.
        const cookie = (await fetch(env('DEMO_URL'))).headers.get('set-cookie')!.split(';')[0]!;
        const live = (await (await fetch(new URL('/api/live', env('DEMO_URL')), { headers: { cookie } })).json()) as {
          server: string;
          streamKey: string;
        };
        expect(await push(`${live.server}/${live.streamKey}`, 4, { realTime: false })).toBe(0);
        const loaded: string[] = [];
        page.on('response', (r) => loaded.push(r.url()));
        await page.goto(new URL('clipper.html', served.get(app.name)!.url).href);
        await clipperReady(page);
        const texts = await Promise.all(
          loaded
            .filter((u) => u.startsWith(served.get(app.name)!.url) && u.endsWith('.js'))
            .map(async (u) => (await fetch(u)).text()),
        );
        expect(
          texts.some((t) => t.includes('uppy-Dashboard')),
          'the clipper page loads nothing of Uppy',
        ).toBe(false);
      });
    }

    test('uploads by the single link and previews', async ({ page }) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await openApp(page, app.name, {});
      const file = await media('h264-aac-720p-10s.mp4');
      await addFile(page, file);
      const { videoId } = await event(page, 'upload-success');
      await expectPreviewPlays(page, 1280);
      expect((await getVideo(page, videoId)).upload_method).toBe('single');
      expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
      expect(errors).toEqual([]);
    });

    test('uploads in chunks with verify-chunks (the worker runs) and previews', async ({ page }) => {
      const workers: string[] = [];
      page.on('worker', (w) => workers.push(w.url()));
      await openApp(page, app.name, { 'multipart-threshold': '1MB', 'chunk-size': '5MB', 'verify-chunks': '' });
      const file = await media('h264-aac-720p-10s-12mb.mp4');
      await addFile(page, file);
      const { videoId } = await event(page, 'upload-success');
      await expect(page.locator('#events li[data-event="upload-error"]')).toHaveCount(0);
      expect(workers.length, 'the MD5 worker started').toBeGreaterThan(0);
      expect((await getVideo(page, videoId)).upload_method).toBe('multipart');
      expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
      await expectPreviewPlays(page, 1280);
    });
  });
}

/** Opens the app's page, sets attributes on the element (null removes one) and waits until the Dashboard takes files. */
async function openApp(page: import('@playwright/test').Page, name: string, attributes: Record<string, string | null>) {
  await page.goto(served.get(name)!.url);
  await page.locator('video-uploader').evaluate((el, attrs) => {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null) el.removeAttribute(k);
      else el.setAttribute(k, v);
    }
    el.setAttribute('auto-proceed', '');
  }, attributes);
  await expect(page.locator('video-uploader .uppy-Dashboard')).not.toHaveClass(/uppy-Dashboard--isDisabled/);
}

/** A file of these bytes under this name, in a folder of its own. */
async function fileOf(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(await tempDir('consumer-file-'), name);
  await writeFile(path, bytes);
  return path;
}
