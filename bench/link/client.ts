/**
 * bench/link.bench.ts's browser end, run inside the client's namespace: serves the built pages on that
 * namespace's 127.0.0.1, launches headless Chromium (its TCP sockets CUBIC, from the LD_PRELOAD in the
 * environment), and runs each contender in a fresh page of its own with the file picked from disk, as a user
 * picks it. Prints one JSON line per contender: {label, result, connections} (what the page's function returned:
 * the ms an upload took, or bench/shrink-page.ts's figures; its requests at once) with, when asked, `memory`; or
 * {label, error}.
 *
 *   client.ts CONFIG_JSON    see ClientConfig
 */
import { chromium } from 'playwright';
import { chromiumLaunchOptions } from '../../test/helpers/browser.js';
import { serveStatic } from '../../test/helpers/static.js';
import { browserRss, peakRss, type BrowserRss } from '../memory.js';

export interface Contender {
  label: string;
  /**
   * The built page (bench/page.html: the widget and raw uploads; bench/peers/page.html: the peers;
   * bench/uppy5-page.html: @uppy/aws-s3 5.x; bench/shrink-page.html: the widget until `video-ready`).
   */
  page: 'bench/page.html' | 'bench/peers/page.html' | 'bench/uppy5-page.html' | 'bench/shrink-page.html';
  /**
   * The page's function and its arguments: `bench(mode, api, token, chunkMiB, attributes)`, `peer(name, endpoint)`,
   * `uppy5(api, token)` or `shrink(api, token, attributes)`.
   */
  call: 'bench' | 'peer' | 'uppy5' | 'shrink' | 'shrinkAlone';
  args: unknown[];
  /**
   * The test hook that answers once the service has no job due or running (`/__test__/jobs/idle`): the next
   * contender starts only then, so that the processing this one's uploads started does not share the cores with it.
   */
  idle?: string;
}

export interface ClientConfig {
  dist: string;
  /**
   * The service's API origin: the pages' server asks it when a page loads, as an integrator's site signs its
   * visitor in (test/helpers/static.ts).
   */
  api: string;
  file: string;
  contenders: Contender[];
  /** A contender still running after this long is stopped and reported as such. */
  deadlineSeconds: number;
  /** Whether to measure the browser's memory (bench/memory.ts): with the page idle, and its peak while it runs. */
  memory?: boolean;
  /** Chromium's `--host-resolver-rules`: the addresses of names no DNS here knows (`MAP store.bench 198.18.0.2`). */
  hostRules?: string;
}

/** The browser's resident set with the page loaded and the file picked, before it runs: the median of 5 samples. */
async function idleRss(): Promise<BrowserRss> {
  const samples: BrowserRss[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(await browserRss());
    await new Promise((r) => setTimeout(r, 250));
  }
  const median = (pick: (s: BrowserRss) => number) => samples.map(pick).sort((a, b) => a - b)[2]!;
  return { renderer: median((s) => s.renderer), browser: median((s) => s.browser) };
}

/**
 * BENCH_TIMELINE=1: each request of the last run, from Resource Timing, and the page's marks (bench/page.ts), in
 * ms from the page's start.
 */
async function timeline(page: import('playwright').Page): Promise<string> {
  const entries = await page.evaluate(() => [
    ...performance
      .getEntriesByType('mark')
      .map((e) => [`(mark) ${e.name}`, Math.round(e.startTime), Math.round(e.startTime)] as const),
    ...performance
      .getEntriesByType('resource')
      .map((e) => e as PerformanceResourceTiming)
      .filter((e) => !/\.(js|css|html)$/.test(new URL(e.name).pathname))
      .map((e) => [new URL(e.name).pathname.slice(0, 60), Math.round(e.startTime), Math.round(e.responseEnd)] as const),
  ]);
  entries.sort((a, b) => a[1] - b[1]);
  return entries
    .map(([path, start, end]) => `    ${String(start).padStart(6)} → ${String(end).padStart(6)}  ${path}`)
    .join('\n');
}

/**
 * The upload's requests at once, from Resource Timing: those to neither the page's origin nor the API (the storage's
 * hosts, a peer's server). `most` at any time, and `atLast` as the last of them started: the level an adaptive
 * upload ended with, before its tail (every request still under way was started at that level).
 */
async function connections(page: import('playwright').Page, api: string): Promise<{ most: number; atLast: number }> {
  const spans = await page.evaluate(
    (apiOrigin) =>
      performance
        .getEntriesByType('resource')
        .filter((e) => ![location.origin, apiOrigin].includes(new URL(e.name).origin))
        .map((e) => [e.startTime, (e as PerformanceResourceTiming).responseEnd] as const),
    new URL(api).origin,
  );
  const underWay = (at: number) => spans.filter(([start, end]) => start <= at && at < end).length;
  const starts = spans.map(([start]) => start);
  return { most: Math.max(0, ...starts.map(underWay)), atLast: starts.length ? underWay(Math.max(...starts)) : 0 };
}

const config = JSON.parse(process.argv[2]!) as ClientConfig;
const { url, server } = await serveStatic(config.dist, config.api);
const launch = chromiumLaunchOptions();
if (config.hostRules) launch.args.push(`--host-resolver-rules=${config.hostRules}`);
const browser = await chromium.launch({ ...launch, headless: true });
try {
  for (const contender of config.contenders) {
    const page = await browser.newPage();
    let peak: ReturnType<typeof peakRss> | undefined;
    try {
      await page.goto(url + contender.page);
      await page.waitForFunction(() => (window as any).benchReady === true, undefined, { timeout: 60_000 });
      await page.locator('#source').setInputFiles(config.file);
      const idle = config.memory ? await idleRss() : undefined;
      peak = config.memory ? peakRss() : undefined;
      let deadline: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        page.evaluate(([call, args]) => (window as any)[call](...args), [contender.call, contender.args] as const),
        new Promise<never>((_, reject) => {
          deadline = setTimeout(
            () => reject(new Error(`did not finish within ${config.deadlineSeconds} s`)),
            config.deadlineSeconds * 1000,
          );
        }),
      ]).finally(() => clearTimeout(deadline));
      const memory = peak && { idle, peak: await peak.stop() };
      console.log(
        JSON.stringify({ label: contender.label, result, memory, connections: await connections(page, config.api) }),
      );
      if (process.env.BENCH_TIMELINE) console.error(await timeline(page));
    } catch (err) {
      console.log(JSON.stringify({ label: contender.label, error: (err as Error).message.split('\n')[0] }));
    } finally {
      await peak?.stop();
      await page.close();
    }
    // A JSON body, the only kind the test hooks take: anything else gets 415 at once, and nothing waits.
    if (contender.idle) {
      const failure = await fetch(contender.idle, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }).then(
        (res) => (res.ok ? '' : `it answered ${res.status}`),
        (err: Error) => err.message,
      );
      if (failure) console.error(`after ${contender.label}: the service did not say it was idle (${failure})`);
    }
  }
} finally {
  await browser.close();
  server.close();
}
