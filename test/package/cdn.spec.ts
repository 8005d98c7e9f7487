import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INDEX_HTML, MAIN_JS } from '../helpers/consumer.js';
import { media, sha256 } from '../helpers/media.js';
import { serveStatic } from '../helpers/static.js';
import { addFile, env, event, expect, expectPreviewPlays, getVideo, test } from '../e2e/demo.js';
import { storedSha256 } from '../helpers/service.js';

const CDN = fileURLToPath(new URL('../../dist/cdn/', import.meta.url));

/**
 * The CDN file as a page without a bundler uses it: plain static files, `<script type="module" src>`, no import
 * map. dist/cdn is what `npm run build` (and so `npm pack`) makes; the page's own script is the consumers' one.
 */
test.describe('dist/cdn/video-uploader.js on a page of plain static files', () => {
  let dir = '';
  let served: { url: string; server: Server };
  test.beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cdn-page-'));
    await cp(CDN, join(dir, 'cdn'), { recursive: true });
    const page = INDEX_HTML(
      `<script type="module" src="/cdn/video-uploader.js"></script><script type="module">${MAIN_JS.replace("import 'video-uploader';", '')}</script>`,
    );
    await writeFile(join(dir, 'index.html'), page);
    served = await serveStatic(dir, env('DEMO_URL'));
  });
  test.afterAll(async () => {
    served.server.close();
    await rm(dir, { recursive: true, force: true });
  });

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
