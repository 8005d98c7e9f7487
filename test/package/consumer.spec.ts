import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { media, sha256 } from '../helpers/media.js';
import { serveStatic } from '../helpers/static.js';
import { addFile, env, event, expect, expectPreviewPlays, getVideo, test } from '../e2e/demo.js';

/**
 * What ships, as a frontend team gets it: `npm pack`, installed into a fresh webpack 5 app and a fresh Vite
 * app, each built for production with nothing but the bundler's defaults, served as static files, and
 * used in Chromium against the local service (issue 15).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The page and the JS entry of every app: the README's snippet, and a log of the element's events. */
const INDEX_HTML = (script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>consumer</title></head>
<body><video-uploader token-url="/api/video-token"></video-uploader><ol id="events"></ol>${script}</body></html>`;
const MAIN_JS = `import 'video-uploader';

const uploader = document.querySelector('video-uploader');
const log = document.querySelector('#events');
for (const name of ['upload-success', 'upload-error', 'video-ready', 'preview-playing']) {
  uploader.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.dataset.event = name;
    item.textContent = name + ' ' + JSON.stringify(event.detail, (key, value) => (key === 'data' ? undefined : value instanceof Error ? value.message : value));
    log.append(item);
  });
}
fetch('/api/config').then((r) => r.json()).then(({ baseUrl }) => uploader.setAttribute('base-url', baseUrl));
`;

interface App {
  name: string;
  /** Its package.json's devDependencies, at the versions this repository uses. */
  tools: string[];
  files: Record<string, string>;
  build: string[];
  /** Written after the build, into the output folder (webpack emits no HTML of its own). */
  afterBuild?: Record<string, string>;
}

const APPS: App[] = [
  {
    name: 'webpack',
    tools: ['webpack', 'webpack-cli'],
    files: {
      'src/index.js': MAIN_JS,
      'webpack.config.mjs': `export default { mode: 'production', entry: './src/index.js', output: { path: new URL('./dist', import.meta.url).pathname, filename: 'main.js', clean: true } };\n`,
    },
    build: ['npx', 'webpack'],
    afterBuild: { 'dist/index.html': INDEX_HTML('<script src="main.js"></script>') },
  },
  {
    name: 'vite',
    tools: ['vite'],
    files: { 'index.html': INDEX_HTML('<script type="module" src="/src/main.js"></script>'), 'src/main.js': MAIN_JS },
    build: ['npx', 'vite', 'build'],
  },
];

/** The packed tarball, made once for every app (`npm pack` runs prepack, the library build, as `npm publish` does). */
let packed: Promise<string> | undefined;
const pack = () =>
  (packed ??= (async () => {
    const work = await mkdtemp(join(tmpdir(), 'video-uploader-pack-'));
    await run('npm', ['pack', '--pack-destination', work], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return join(work, (await readdir(work)).find((f) => f.endsWith('.tgz'))!);
  })());

/** Writes the app, installs the tarball and its bundler as a consumer would, builds it, and serves its output. */
async function buildApp(app: App): Promise<{ url: string; server: Server }> {
  const tarball = await pack();
  const dir = await mkdtemp(join(tmpdir(), `video-uploader-${app.name}-app-`));
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const devDependencies = Object.fromEntries(app.tools.map((t) => [t, ours.devDependencies[t]!]));
  const files = { ...app.files, 'package.json': JSON.stringify({ name: `${app.name}-app`, private: true, type: 'module', dependencies: { 'video-uploader': `file:${tarball}` }, devDependencies }) };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  await run(app.build[0]!, app.build.slice(1), { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  for (const [name, text] of Object.entries(app.afterBuild ?? {})) await writeFile(join(dir, name), text);
  return serveStatic(join(dir, 'dist'), env('DEMO_URL'));
}

const served = new Map<string, { url: string; server: Server }>();

for (const app of APPS) {
  test.describe(`the packed package in a ${app.name} app, built for production`, () => {
    test.beforeAll(async () => {
      test.setTimeout(600_000);
      served.set(app.name, await buildApp(app));
    });
    test.afterAll(() => served.get(app.name)?.server.close());

    test('uploads by the single link and previews', async ({ page }) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await openApp(page, app.name, {});
      const file = await media('h264-aac-720p-10s.mp4');
      await addFile(page, file);
      const { videoId } = await event(page, 'upload-success');
      await expectPreviewPlays(page, 1280);
      expect((await getVideo(page, videoId)).upload_method).toBe('single');
      expect(await sha256(join(env('SERVICE_DATA'), 'videos', videoId, 'source'))).toBe(await sha256(file));
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
      expect(await sha256(join(env('SERVICE_DATA'), 'videos', videoId, 'source'))).toBe(await sha256(file));
      await expectPreviewPlays(page, 1280);
    });
  });
}

/** Opens the app's page, sets attributes on the element (null removes one) and waits until the Dashboard takes files. */
async function openApp(page: import('@playwright/test').Page, name: string, attributes: Record<string, string | null>) {
  await page.goto(served.get(name)!.url);
  await page.locator('video-uploader').evaluate((el, attrs) => {
    for (const [k, v] of Object.entries(attrs)) (v === null ? el.removeAttribute(k) : el.setAttribute(k, v));
    el.setAttribute('auto-proceed', '');
  }, attributes);
  await expect(page.locator('video-uploader .uppy-Dashboard')).not.toHaveClass(/uppy-Dashboard--isDisabled/);
}
