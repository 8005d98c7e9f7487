/**
 * What goes in (issue 12), in headless Chromium and against the local service. Prints figures; asserts nothing.
 *   - The time to read a video's length and frame size before it is added, from a 4 GiB MP4 (a detached <video>)
 *     and from a 4 GiB MPEG-TS (MediaInfo in WebAssembly), beside ffprobe on the same file in the same run.
 *   - The time to make a card's frame, beside ffmpeg taking the same frame.
 *   - Import throughput (POST /videos/{id}/import) from a local HTTP server, as a ratio to curl fetching the same file.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright';
import { createServer as createVite } from 'vite';
import { chromiumLaunchOptions } from '../test/helpers/browser.js';
import { media, testPattern } from '../test/helpers/media.js';
import { startService } from '../test/helpers/service.js';
import { interleaved, median, table } from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const GiB = 1024 ** 3;
const DIR = join(tmpdir(), 'video-uploader-bench');
const ROUNDS = 5;

/**
 * A 4 GiB video of `container`, made once and kept: a 10 s piece of lossless 1080p H.264 with noise (so it stays
 * big), copied end to end until past 4 GiB, in MP4 with its index first (as editors write for the web), and the
 * same stream copied into MPEG-TS.
 */
async function bigVideo(container: 'mp4' | 'ts'): Promise<string> {
  await mkdir(DIR, { recursive: true });
  const mp4 = join(DIR, 'big-4gib.mp4');
  const path = container === 'mp4' ? mp4 : join(DIR, 'big-4gib.ts');
  const big = async (p: string) => ((await stat(p).catch(() => null))?.size ?? 0) >= 4 * GiB;
  if (await big(path)) return path;
  if (!(await big(mp4))) {
    const piece = join(DIR, 'piece-1080p.mp4');
    const encode = [...testPattern('1920x1080', 25), '-vf', 'noise=alls=40:allf=t', '-t', '10', '-an'];
    await run('ffmpeg', ['-y', '-v', 'error', ...encode, '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', piece]);
    const copies = Math.ceil((4.02 * GiB) / (await stat(piece)).size);
    const list = join(DIR, 'pieces.txt');
    await writeFile(list, `file '${piece}'\n`.repeat(copies));
    const concat = [
      ...'-y -v error -f concat -safe 0 -i'.split(' '),
      list,
      ...'-c copy -movflags +faststart'.split(' '),
    ];
    await run('ffmpeg', [...concat, mp4]);
  }
  if (container === 'ts') await run('ffmpeg', ['-y', '-v', 'error', '-i', mp4, '-c', 'copy', '-f', 'mpegts', path]);
  return path;
}

const ms = async (fn: () => Promise<unknown>) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

async function inBrowser(): Promise<string[][]> {
  const vite = await createVite({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, hmr: false },
  });
  await vite.listen();
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), headless: true });
  const rows: string[][] = [];
  try {
    const page = await browser.newPage();
    await page.goto(`${vite.resolvedUrls!.local[0]}bench/media-page.html`);
    await page.waitForFunction(() => (window as any).benchReady === true, undefined, { timeout: 60_000 });
    const measure = async (file: string, what: 'read' | 'frame') => {
      await page.locator('#file').setInputFiles(file);
      return ((await page.evaluate((w) => (window as any).measure(w), what)) as { ms: number }).ms;
    };
    const ffprobe = (file: string) =>
      ms(() =>
        run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=width,height', '-of', 'json', file]),
      );
    const ffmpegFrame = (file: string) =>
      ms(() =>
        run('ffmpeg', [
          '-y',
          '-v',
          'error',
          '-ss',
          '1',
          '-i',
          file,
          '-frames:v',
          '1',
          '-vf',
          'scale=240:-2',
          join(DIR, 'frame.jpg'),
        ]),
      );
    const small = await media('h264-aac-720p-10s.mp4');
    const [mp4, ts] = [await bigVideo('mp4'), await bigVideo('ts')];
    // First use loads MediaInfo's WebAssembly (a lazy chunk) and warms the caches: not counted.
    await measure(ts, 'read');
    await measure(mp4, 'read');
    const cases: [label: string, run: () => Promise<number>, target: string, baseline?: number][] = [
      ['read length and frame size, 4 GiB MP4 (detached <video>)', () => measure(mp4, 'read'), '< 300 ms'],
      ['  ffprobe on the same file (baseline)', () => ffprobe(mp4), ''],
      ['read length and frame size, 4 GiB MPEG-TS (mediainfo.js)', () => measure(ts, 'read'), '< 1 s'],
      ['  ffprobe on the same file (baseline)', () => ffprobe(ts), ''],
      ["card's frame, 10 s 720p MP4", () => measure(small, 'frame'), ''],
      ['  ffmpeg taking the same frame (baseline)', () => ffmpegFrame(small), ''],
      ["card's frame, 4 GiB 1080p MP4", () => measure(mp4, 'frame'), ''],
      ['  ffmpeg taking the same frame (baseline)', () => ffmpegFrame(mp4), ''],
    ];
    const times = await interleaved(
      ROUNDS,
      cases.map(([, fn]) => fn),
    );
    cases.forEach(([label, , target], i) => {
      const own = median(times[i]!);
      const isBaseline = label.startsWith('  ');
      const baseline = isBaseline ? undefined : median(times[i + 1]!);
      rows.push([
        label,
        `${own.toFixed(0)} ms`,
        baseline ? `${(own / baseline).toFixed(2)} × ffprobe/ffmpeg` : '',
        target,
      ]);
    });
  } finally {
    await browser.close();
    await vite.close();
  }
  return rows;
}

/** A 1 GiB file served by a plain Node HTTP server (its own process), imported by the service, and fetched by curl to the same disk. */
async function importThroughput(): Promise<string[][]> {
  await mkdir(DIR, { recursive: true });
  const file = join(DIR, 'import-1gib.bin');
  if (((await stat(file).catch(() => null))?.size ?? 0) !== GiB)
    await run('bash', ['-c', `head -c ${GiB} /dev/urandom > "${file}"`]);
  // The file server is a process of its own, so that this one (which polls #8) takes no time from it.
  const server = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs');
       const s = require('node:http').createServer((q, r) => {
         r.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': ${GiB} });
         fs.createReadStream(process.argv[1]).pipe(r);
       }).listen(0, '127.0.0.1', () => console.log(s.address().port));`,
      file,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    server.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  const url = `http://127.0.0.1:${port}/video.bin`;
  const service = await startService({ args: ['--allow-private-network'] });
  const token = await service.token('bench');
  const out = join(service.data, 'curl.bin');
  try {
    const viaService = async () => {
      const { body: video } = await service.call('POST', '/videos', { token });
      const start = performance.now();
      await service.call('POST', `/videos/${video._id}/import`, { token, body: { url } });
      // The download is done when #8 no longer shows it (processing then starts, and fails: random bytes).
      for (;;) {
        const { body } = await service.call('GET', `/videos/${video._id}`, { token });
        if (!body.import) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      return performance.now() - start;
    };
    const curl = () => ms(() => run('curl', ['-s', '-o', out, url]));
    const [times, curls] = await interleaved(ROUNDS, [viaService, curl]);
    const rate = (t: number) => `${(GiB / 1e6 / (median([t]) / 1000)).toFixed(0)} MB/s`;
    const [own, base] = [median(times!), median(curls!)];
    return [
      ['import of 1 GiB from a local HTTP server (service, to its data disk)', rate(own), (base / own).toFixed(2), ''],
      ['  curl fetching the same file to the same disk (baseline)', rate(base), '1.00', ''],
    ];
  } finally {
    server.kill();
    await service.stop();
    await rm(service.data, { recursive: true, force: true });
  }
}

/** `node --import tsx bench/media.bench.ts [read|import]` runs one part; no argument runs both. */
export async function main(only = process.argv[2]): Promise<void> {
  if (!only || only === 'read') {
    console.log(
      '\nReading media before upload, and the card frame (headless Chromium; medians of 5 interleaved rounds)',
    );
    console.log(table([['measure', 'median', 'ratio', 'target'], ...(await inBrowser())]));
  }
  if (!only || only === 'import') {
    console.log('\nUpload from a URL: import throughput (medians of 5 interleaved rounds, loopback)');
    console.log(table([['measure', 'throughput', 'ratio to curl', 'target'], ...(await importThroughput())]));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
