import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIPPER_HTML, CLIPPER_JS, INDEX_HTML, MAIN_JS } from '../helpers/consumer.js';
import { push } from '../helpers/live.js';
import { media, sha256 } from '../helpers/media.js';
import { serveStatic } from '../helpers/static.js';
import { addFile, clipperReady, env, event, expect, expectPreviewPlays, getVideo, test } from '../e2e/demo.js';
import { storedSha256 } from '../helpers/service.js';

const CDN = fileURLToPath(new URL('../../dist/cdn/', import.meta.url));

/**
 * For the describe block it is called in: dist/cdn copied beside an index.html of `html`, served as plain static files.
 * Answers where the page is (`url`) and the folder served (`dir`), once the block has begun.
 */
function staticPage(html: string): { url: string; dir: string } {
  const page = { url: '', dir: '' };
  let server: Server | undefined;
  test.beforeAll(async () => {
    page.dir = await mkdtemp(join(tmpdir(), 'cdn-page-'));
    await cp(CDN, join(page.dir, 'cdn'), { recursive: true });
    await writeFile(join(page.dir, 'index.html'), html);
    ({ url: page.url, server } = await serveStatic(page.dir, env('DEMO_URL')));
  });
  test.afterAll(async () => {
    server?.close();
    await rm(page.dir, { recursive: true, force: true });
  });
  return page;
}

/**
 * The CDN files as a page without a bundler uses them: plain static files, `<script type="module" src>`, no import
 * map. dist/cdn is what `npm run build` (and so `npm pack`) makes; the pages' own scripts are the consumers' ones.
 */
test.describe('dist/cdn/video-uploader.js on a page of plain static files', () => {
  const served = staticPage(
    INDEX_HTML(
      `<script type="module" src="/cdn/video-uploader.js"></script><script type="module">${MAIN_JS.replace("import 'video-uploader';", '')}</script>`,
    ),
  );

  test('loads with no bundler and no import map, uploads in chunks, and previews with hls.js from beside it', async ({
    page,
  }) => {
    const errors: string[] = [];
    const scripts: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Scripts fetched over the network; the MD5 worker is inlined, so it starts from a blob: URL.
    page.on(
      'request',
      (r) => r.resourceType() === 'script' && !r.url().startsWith('blob:') && scripts.push(new URL(r.url()).pathname),
    );
    await page.goto(served.url);
    await page.locator('video-uploader').evaluate((el) => {
      for (const [k, v] of Object.entries({
        'multipart-threshold': '1MB',
        'chunk-size': '5MB',
        'verify-chunks': '',
        'auto-proceed': '',
      }))
        el.setAttribute(k, v);
    });
    await expect(page.locator('video-uploader .uppy-Dashboard')).not.toHaveClass(/uppy-Dashboard--isDisabled/);
    const file = await media('h264-aac-720p-10s-12mb.mp4');
    await addFile(page, file);
    const { videoId } = await event(page, 'upload-success');
    expect((await getVideo(page, videoId)).upload_method).toBe('multipart');
    expect(await storedSha256(env('SERVICE_DATA'), videoId)).toBe(await sha256(file));
    await expectPreviewPlays(page, 1280);
    expect(errors).toEqual([]);
    // The entry, then its lazy chunks (the uploader, Golden Retriever, the MD5 worker, hls.js), all from /cdn.
    expect(scripts[0]).toBe('/cdn/video-uploader.js');
    expect(
      scripts.some((s) => /^\/cdn\/hls-[\w-]+\.js$/.test(s)),
      scripts.join(' '),
    ).toBe(true);
    expect(
      scripts.every((s) => s.startsWith('/cdn/')),
      scripts.join(' '),
    ).toBe(true);
  });

  test('loads a language from beside it when the page asks for one', async ({ page }) => {
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
    await page.goto(served.url);
    await page.evaluate(() => document.documentElement.setAttribute('lang', 'fr'));
    await expect(page.locator('video-uploader .uppy-Dashboard-note')).toContainText('Fichiers vidéo');
    await expect(page.locator('video-uploader .uppy-Root')).toContainText('Déposer les fichiers ici');
    expect(scripts.filter((s) => /^\/cdn\/(packs|fr|fr_FR)-[\w-]+\.js$/.test(s)).length, scripts.join(' ')).toBe(3);
  });
});

test.describe('dist/cdn/recording-clipper.js on a page of plain static files', () => {
  const served = staticPage(
    CLIPPER_HTML(
      `<script type="module" src="/cdn/recording-clipper.js"></script><script type="module">${CLIPPER_JS.replace("import 'video-uploader/clipper';", '')}</script>`,
    ),
  );

  test('loads alone with no bundler and no import map, plays a recording with hls.js from beside it, and converts a part', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const errors: string[] = [];
    const scripts: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
    // The demo's stream, as its page would push it (the key goes to a visitor it signed in).
    const cookie = (await fetch(env('DEMO_URL'))).headers.get('set-cookie')!.split(';')[0]!;
    const live = (await (await fetch(new URL('/api/live', env('DEMO_URL')), { headers: { cookie } })).json()) as {
      server: string;
      streamKey: string;
    };
    expect(await push(`${live.server}/${live.streamKey}`, 4, { realTime: false })).toBe(0);

    await page.goto(served.url);
    const clipper = await clipperReady(page);
    // From the default start, the recording's first frame: asked half a frame early, a moment before the publish
    // began, which #10 takes as its start (LEAD_IN_MS).
    await expect(clipper.getByRole('textbox', { name: 'Start' })).toHaveValue('00:00:00.000');
    await clipper.getByRole('button', { name: 'Convert to video' }).click();
    const requested = await event(page, 'clip-requested');
    const ready = await event(page, 'clip-ready', 90_000);
    expect(ready.recordingId).toBe(requested.recordingId);
    await expect
      .poll(() => clipper.locator('video.result').evaluate((v: HTMLVideoElement) => v.readyState), {
        timeout: 30_000,
      })
      .toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
    // The entry, then hls.js, all from /cdn; nothing of the uploader's file or of Uppy.
    expect(scripts[0]).toBe('/cdn/recording-clipper.js');
    expect(
      scripts.some((s) => /^\/cdn\/hls-[\w-]+\.js$/.test(s)),
      scripts.join(' '),
    ).toBe(true);
    expect(
      scripts.every((s) => s.startsWith('/cdn/') && s !== '/cdn/video-uploader.js'),
      scripts.join(' '),
    ).toBe(true);
    const texts = await Promise.all(scripts.map((s) => readFile(join(served.dir, s), 'utf8')));
    expect(
      texts.some((t) => t.includes('uppy-Dashboard')),
      'the clipper page loads nothing of Uppy',
    ).toBe(false);
  });
});
