import type { BrowserLauncher, TestRunnerConfig } from '@web/test-runner';
import { defaultReporter, type Reporter, type TestResult } from '@web/test-runner';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { puppeteerLauncher } from '@web/test-runner-puppeteer';
import { webdriverLauncher } from '@web/test-runner-webdriver';
import { createReadStream, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';
import { pruneUppyCss } from '../../vite.config.js';
import { firstLine } from '../../scripts/test-summary.js';
import { chromiumLaunchOptions } from '../helpers/browser.js';
import { push } from '../helpers/live.js';
import { media, RECIPES, type MediaName } from '../helpers/media.js';
import { startService, until, type RunningService } from '../helpers/service.js';
import { MINIBROWSER, startWebKitDriver } from '../helpers/webkit.js';
import { probeForPages } from './media-for-pages.js';

/**
 * Component tests: the element in real Chromium, talking to the real local service over 127.0.0.1.
 * The service starts with the runner; tests read its addresses and a token from /__env.
 * Source and test modules are served by Vite, as for the demo and the library build (TypeScript,
 * decorators, CSS as a string, Uppy's JSON and CommonJS imports); the runner serves only its own files.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The runner's own files: its page, its websocket and /__env, and its browser runtime under @web. */
const RUNNER_PATHS = /^\/($|__|node_modules\/@web\/)/;
let service: RunningService;
let token: string;
let vite: ViteDevServer;
let viteOrigin = '';
let clip: { streamId: string; token: string; recordingId: string };

/** For <recording-clipper>: a stream with one stopped recording of 6 s (pushed as fast as ffmpeg encodes), and a clip token. */
async function recordingToClip(service: RunningService, key: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await service.call(method, path, { token: key, body });
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const stream = await call('POST', '/live_streams', { name: 'component tests' });
  if ((await push(stream.ingest.url, 6, { realTime: false })) !== 0) throw new Error('the RTMP push failed');
  const [recording] = await until('the recording to stop', async () => {
    const list = await call('GET', `/live_streams/${stream._id}/temporary_recordings`);
    return list[0]?.status === 'stopped' ? list : undefined;
  });
  const { token } = await call('POST', '/tokens', { scope: 'clip', live_stream_id: stream._id, ttl_seconds: 86_400 });
  return { streamId: stream._id as string, token: token as string, recordingId: recording._id as string };
}

/** The three engines, by the names BROWSERS and test/counts.json give them. */
const ENGINES = ['chromium', 'firefox', 'webkit'];
/**
 * BROWSERS=chromium,firefox,webkit (all three when unset or empty) runs only those, to save time while working;
 * CI unsets it (.ci/run), and the closing line fails an engine that ran fewer tests than test/counts.json records.
 * A name that is not an engine is refused rather than silently running nothing.
 */
function chosenEngines(list = process.env.BROWSERS): string[] {
  if (!list) return ENGINES;
  const names = list.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !ENGINES.includes(n));
  if (unknown.length > 0)
    throw new Error(`BROWSERS=${list}: ${unknown.join(', ')} is not an engine; use ${ENGINES.join(', ')}`);
  return names;
}
const engines = chosenEngines();

const webkit = await startWebKitDriver();
const LAUNCHERS: Record<string, BrowserLauncher> = {
  chromium: playwrightLauncher({ product: 'chromium', launchOptions: { ...chromiumLaunchOptions(), headless: true } }),
  // Debian's firefox-esr, driven by Puppeteer over WebDriver BiDi (Playwright cannot drive a stock Firefox).
  // Its session prefers a dark colour scheme: BiDi cannot emulate media, so theme="auto" is tested against this.
  // (The launcher's own copy of @web/test-runner-core is a patch release apart from the runner's: same shape.)
  firefox: puppeteerLauncher({
    launchOptions: {
      browser: 'firefox',
      executablePath: '/usr/bin/firefox-esr',
      headless: true,
      extraPrefsFirefox: { 'layout.css.prefers-color-scheme.content-override': 0 },
    },
  }) as unknown as BrowserLauncher,
  // Debian's WebKitGTK: WebKitWebDriver automating its MiniBrowser under Xvfb, over classic WebDriver.
  webkit: webdriverLauncher({
    hostname: '127.0.0.1',
    port: webkit.port,
    logLevel: 'error',
    capabilities: {
      browserName: 'MiniBrowser',
      'wdio:enforceWebDriverClassic': true,
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    } as WebdriverIO.Capabilities,
  }) as unknown as BrowserLauncher,
};

/** Counts passed and failed tests per engine into .test-results/component.json, for npm test's closing line. */
function countingReporter(): Reporter {
  return {
    async onTestRunFinished({ sessions }) {
      const counts: Record<string, { passed: number; failed: number; failures: string[] }> = {};
      for (const engine of engines) counts[engine] = { passed: 0, failed: 0, failures: [] };
      for (const session of sessions) {
        const engine = ENGINES.find((name) => LAUNCHERS[name] === session.browser)!;
        const count = counts[engine]!;
        type Suite = { name: string; tests: TestResult[]; suites: Suite[] };
        const walk = (suite: Suite, path: string[]) => {
          for (const t of suite.tests) {
            if (t.skipped) continue;
            if (t.passed) count.passed++;
            else {
              count.failed++;
              const message = firstLine(t.error?.message);
              count.failures.push(
                `${session.testFile} › ${[...path, t.name].join(' › ')}${message ? `: ${message}` : ''}`,
              );
            }
          }
          for (const s of suite.suites) walk(s, [...path, s.name].filter(Boolean));
        };
        if (session.testResults) walk(session.testResults as Suite, []);
        if (session.errors.length > 0 && !session.testResults?.tests.length) {
          count.failed++;
          count.failures.push(
            `${session.testFile}: ${firstLine(session.errors[0]?.message) || 'the file failed to run'}`,
          );
        }
      }
      await mkdir(`${ROOT}/.test-results`, { recursive: true });
      await writeFile(`${ROOT}/.test-results/component.json`, JSON.stringify({ engines: counts }));
    },
  };
}

const config: TestRunnerConfig = {
  reporters: [defaultReporter(), countingReporter()],
  rootDir: ROOT,
  files: ['test/component/**/*.test.ts'],
  concurrency: 1,
  testsFinishTimeout: 300_000,
  // forbidOnly: a committed it.only or describe.only fails its file instead of narrowing the run.
  testFramework: { config: { timeout: 30_000, forbidOnly: true } },
  browsers: engines.map((engine) => LAUNCHERS[engine]!),
  filterBrowserLogs: ({ args }) =>
    !args.some((a) => typeof a === 'string' && (a.startsWith('[vite]') || a.startsWith('Lit is in dev mode'))),
  middleware: [
    // Test media, made by ffmpeg when a test first asks for it (test/helpers/media.ts): /__media/<recipe>.
    async (ctx, next) => {
      const name = /^\/__media\/([\w.-]+)$/.exec(ctx.path)?.[1];
      if (!name || !(name in RECIPES)) return next();
      ctx.type = name.slice(name.lastIndexOf('.'));
      ctx.body = createReadStream(await media(name as MediaName));
    },
    // The service's test hooks, for tests in the page: forwarded from here, as the service gives them no CORS.
    async (ctx, next) => {
      if (!ctx.path.startsWith('/__test__/')) return next();
      const body =
        ctx.method === 'POST'
          ? await new Promise<string>((resolve) => {
              let text = '';
              ctx.req.on('data', (d: Buffer) => (text += d.toString()));
              ctx.req.on('end', () => resolve(text));
            })
          : undefined;
      const res = await fetch(service.api + ctx.url, {
        method: ctx.method,
        headers: { 'content-type': 'application/json' },
        body,
      });
      ctx.status = res.status;
      ctx.set('content-type', res.headers.get('content-type') ?? 'application/json');
      ctx.body = Buffer.from(await res.arrayBuffer());
    },
    probeForPages,
    async (ctx, next) => {
      if (RUNNER_PATHS.test(ctx.path)) return next();
      const res = await fetch(viteOrigin + ctx.url);
      ctx.status = res.status;
      ctx.set('content-type', res.headers.get('content-type') ?? 'application/javascript');
      ctx.body = Buffer.from(await res.arrayBuffer());
    },
  ],
  plugins: [
    {
      name: 'local-service-and-vite',
      async serverStart() {
        vite = await createServer({
          configFile: false,
          root: ROOT,
          logLevel: 'warn',
          appType: 'custom',
          server: { host: '127.0.0.1', port: 0, hmr: false },
          // Every dependency pre-bundled before the first page asks: one the element imports lazily, found only
          // mid-run, made Vite re-bundle and reload with new hashes, and a browser that had the old ones failed.
          optimizeDeps: {
            include: [
              'lit',
              'lit/decorators.js',
              'lit/directives/if-defined.js',
              'lit/directives/style-map.js',
              '@uppy/core',
              '@uppy/dashboard',
              '@uppy/aws-s3',
              '@uppy/golden-retriever',
              'preact',
              'mediainfo.js',
              // Every language pack the element may load (src/locale/packs.ts), found before the first test runs.
              ...readdirSync(`${ROOT}/node_modules/@uppy/locales/lib`)
                .filter((f) => f.endsWith('.js'))
                .map((f) => `@uppy/locales/lib/${f}`),
              'hls.js',
              'hash-wasm',
              'mediabunny',
              '@open-wc/testing',
              '@web/test-runner-commands',
              'axe-core',
            ],
          },
          // The runner's websocket module (imported by @open-wc/testing) is the runner's to serve.
          plugins: [
            pruneUppyCss(),
            {
              name: 'wtr-websocket',
              resolveId: (id) =>
                id.endsWith('__web-dev-server__web-socket.js')
                  ? { id: '/__web-dev-server__web-socket.js', external: true }
                  : null,
            },
          ],
        });
        await vite.listen();
        viteOrigin = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
        // The clipper's tests read a stopped recording (helpers.ts), which completes a merge window after it stopped:
        // a window longer than the run of the three engines keeps it stopped for each.
        service = await startService({ args: ['--merge-window-seconds', String(24 * 60 * 60)] });
        token = await service.token('component-tests');
        clip = await recordingToClip(service, token);
      },
      async serverStop() {
        await Promise.all([service?.stop(), vite?.close()]);
      },
      serve(context) {
        if (context.path === '/__env')
          return {
            body: JSON.stringify({
              ...{ api: service.api, storage: service.storage, storageOrigins: service.storageOrigins },
              ...{ token, clip },
            }),
            type: 'json',
          };
      },
    },
  ],
};

export default config;
