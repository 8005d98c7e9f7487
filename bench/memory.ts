/**
 * The browser's memory during a run: the resident set (VmRSS) of Chromium's processes under this one, from /proc,
 * by role (bench/cpu.ts). A page's JavaScript heap does not show what its codecs hold (a 4K decode and encode in
 * WebCodecs lives in the renderer's own buffers), so the process is what is measured.
 */
import { readFile } from 'node:fs/promises';
import { processTree } from '../test/helpers/service.js';
import { role } from './cpu.js';

export interface BrowserRss {
  /** Bytes of every renderer process (the page's, its workers' and any spare one). */
  renderer: number;
  /** Bytes of every process of the browser, renderers included. */
  browser: number;
}

const SAMPLE_MS = 250;

export async function browserRss(): Promise<BrowserRss> {
  const rss: BrowserRss = { renderer: 0, browser: 0 };
  for (const p of await processTree(process.pid)) {
    const kind = role(p.cmdline);
    if (!kind || kind === 'service') continue;
    const status = await readFile(`/proc/${p.pid}/status`, 'utf8').catch(() => '');
    const bytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    rss.browser += bytes;
    if (kind === 'renderer') rss.renderer += bytes;
  }
  return rss;
}

/** Samples `browserRss` every 250 ms until `stop()`, which resolves with the highest of each. */
export function peakRss(): { stop(): Promise<BrowserRss> } {
  const peak: BrowserRss = { renderer: 0, browser: 0 };
  let running = true;
  const loop = (async () => {
    for (let next = performance.now(); running;) {
      const now = await browserRss();
      peak.renderer = Math.max(peak.renderer, now.renderer);
      peak.browser = Math.max(peak.browser, now.browser);
      // Every 250 ms from the first sample, however long a sample took (60–100 ms on this loaded machine).
      next = Math.max(next + SAMPLE_MS, performance.now());
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
