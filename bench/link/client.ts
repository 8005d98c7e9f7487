/**
 * bench/link.bench.ts's browser end, run inside the client's namespace: serves the built pages on that
 * namespace's 127.0.0.1, launches headless Chromium (its TCP sockets CUBIC, from the LD_PRELOAD in the
 * environment), and runs each contender in a fresh page of its own with the file picked from disk, as a user
 * picks it. Prints one JSON line per contender: {label, ms} or {label, error}.
 *
 *   client.ts CONFIG_JSON    see ClientConfig
 */
import { chromium } from 'playwright';
import { chromiumLaunchOptions } from '../../test/helpers/browser.js';
import { serveStatic } from '../../test/helpers/static.js';

export interface Contender {
  label: string;
  /** The built page (bench/page.html: the widget and raw uploads; bench/peers/page.html: the peers). */
  page: 'bench/page.html' | 'bench/peers/page.html';
  /** The page's function and its arguments: `bench(mode, api, token, chunkMiB, attributes)` or `peer(name, endpoint)`. */
  call: 'bench' | 'peer';
  args: unknown[];
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

const config = JSON.parse(process.argv[2]!) as ClientConfig;
const { url, server } = await serveStatic(config.dist, config.api);
const browser = await chromium.launch({ ...chromiumLaunchOptions(), headless: true });
try {
  for (const contender of config.contenders) {
    const page = await browser.newPage();
    try {
      await page.goto(url + contender.page);
      await page.waitForFunction(() => (window as any).benchReady === true, undefined, { timeout: 60_000 });
      await page.locator('#source').setInputFiles(config.file);
      let deadline: NodeJS.Timeout | undefined;
      const ms = await Promise.race([
        page.evaluate(([call, args]) => (window as any)[call](...args), [contender.call, contender.args] as const),
        new Promise<never>((_, reject) => {
          deadline = setTimeout(
            () => reject(new Error(`did not finish within ${config.deadlineSeconds} s`)),
            config.deadlineSeconds * 1000,
          );
        }),
      ]).finally(() => clearTimeout(deadline));
      console.log(JSON.stringify({ label: contender.label, ms }));
      if (process.env.BENCH_TIMELINE) console.error(await timeline(page));
    } catch (err) {
      console.log(JSON.stringify({ label: contender.label, error: (err as Error).message.split('\n')[0] }));
    } finally {
      await page.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
