/**
 * The local service's upload path and processing, on loopback. Prints figures; asserts nothing.
 *   - 1 GiB as one PUT, and as 16 chunks of 64 MiB with 4 in parallel, in MB/s, each as a ratio to two
 *     baselines measured in the same run: a plain node:http server that only pipes the body to a file, with
 *     the same 1 MiB write buffer as the service, and the same pipe computing the MD5 and fsyncing (the four
 *     parallel PUTs go to one such process, as they go to one service). The file is read once before, so both
 *     sides read it from a warm page cache; the samples run in rounds (BENCH_ROUNDS, 7), each round every sample
 *     once in an order of its own, and each starts with nothing of an earlier one still running: the disk's
 *     writeback done, the service's processing jobs finished. A ratio is the median of the rounds' own ratios.
 *   - Peak RSS growth of the service process during the 1 GiB PUT.
 *   - Time from the end of the upload to `ready` for 60 s of 1080p H.264/AAC (copy) and VP9 (encode).
 */
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rm, stat, open } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { testPattern } from '../test/helpers/media.js';
import { startService, waitForVideo, type RunningService } from '../test/helpers/service.js';
import { interleaved, median, table } from './stats.js';
import { MiB } from '../src/api/limits.js';

const TOTAL = 1024 * MiB;
const CHUNK = 64 * MiB;
const PARALLEL = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** `BENCH_PARTS=upload` leaves out the processing figures (two 60 s videos made and processed). */
const PROCESSING = process.env.BENCH_PARTS !== 'upload';
/** The service's write buffer for uploaded bodies (service/storage/files.ts); the baseline uses the same. */
const WRITE_BUFFER = MiB;
const DIR = join(tmpdir(), 'video-uploader-bench');
const run = promisify(execFile);

export async function bigFile(): Promise<string> {
  await mkdir(DIR, { recursive: true });
  const path = join(DIR, '1gib.bin');
  if ((await stat(path).catch(() => null))?.size === TOTAL) return path;
  const block = Buffer.alloc(CHUNK);
  for (let i = 0; i < CHUNK; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  const out = await open(path, 'w');
  for (let i = 0; i < TOTAL / CHUNK; i++) await out.write(block);
  await out.close();
  return path;
}

/** Streams [start, end) of the file as the body of a PUT. */
export function putRange(url: string, path: string, start: number, end: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { 'content-length': String(end - start), 'content-type': 'video/mp4' } },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(res.statusCode) : reject(new Error(`PUT ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(path, { start, end: end - 1, highWaterMark: MiB }), req).catch(reject);
  });
}

async function parallel<T>(items: T[], limit: number, each: (item: T) => Promise<unknown>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await each(item);
    }),
  );
}

export const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * The baselines: a node:http server in its own process, like the service, that pipes each body to a new file, as
 * the service (and any storage) does. Not the same few files again: the pages a truncation frees are reused hot,
 * and with them `perf` put the kernel's copy into the page cache at a sixth of its cost for new files on this VM
 * (then the service's libuv threads spent 1.5–3 s a GiB more than the baseline's, in the kernel). `md5` also
 * computes the body's MD5 on the way (what an ETag needs) and fsyncs the file before answering (what the service
 * does before a body counts), the least any S3-like storage does.
 */
const BASELINE = `
const WRITE_BUFFER = ${WRITE_BUFFER};
const { createServer } = require('node:http');
const { createHash } = require('node:crypto');
const { createWriteStream } = require('node:fs');
const { pipeline } = require('node:stream/promises');
const md5 = process.argv[2] === 'md5';
let n = 0;
const server = createServer((req, res) => {
  const out = createWriteStream(require('node:path').join(process.argv[1], 'body-' + n++), { highWaterMark: WRITE_BUFFER, flush: md5 });
  const hash = md5 && createHash('md5');
  if (hash) req.on('data', (chunk) => hash.update(chunk));
  pipeline(req, out).then(() => res.end(hash ? hash.digest('hex') : ''), () => res.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function baselineServer(mode: 'plain' | 'md5'): Promise<{ url: string; dir: string; stop: () => void }> {
  const dir = join(DIR, `baseline-${mode}`);
  await mkdir(dir, { recursive: true });
  const child = spawn(process.execPath, ['-e', BASELINE, dir, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/`, dir, stop: () => child.kill() };
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

async function chunkUrls(service: RunningService, token: string, count: number) {
  const { body: video } = await service.call('POST', '/videos', { token });
  const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
  const urls: string[] = [];
  for (let i = 1; i <= count; i++) {
    urls.push(
      (
        await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: session.key, chunkId: i },
        })
      ).body.url,
    );
  }
  return { id: video._id as string, key: session.key as string, urls };
}

export async function singleUrl(service: RunningService, token: string) {
  const { body: video } = await service.call('POST', '/videos', { token });
  const { body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
  return { id: video._id as string, url: body.url as string };
}

async function sixtySeconds(name: string, codecArgs: string[]): Promise<string> {
  const path = join(DIR, name);
  if (await stat(path).catch(() => null)) return path;
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    ...testPattern('1920x1080', 30, 'frequency=440:sample_rate=48000'),
    '-t',
    '60',
    ...codecArgs,
    `${path}.tmp${name.slice(name.lastIndexOf('.'))}`,
  ]);
  await run('mv', [`${path}.tmp${name.slice(name.lastIndexOf('.'))}`, path]);
  return path;
}

export async function main(): Promise<void> {
  const file = await bigFile();
  const chunks = Array.from({ length: TOTAL / CHUNK }, (_, i) => i);
  const plain = await baselineServer('plain');
  const md5 = await baselineServer('md5');
  const service = await startService();
  const token = await service.token('bench');
  const rows: string[][] = [];
  try {
    // The whole file into the page cache, and every server warmed, before any sample.
    for await (const _ of createReadStream(file, { highWaterMark: 16 * MiB }));
    for (const base of [plain, md5]) await putRange(base.url, file, 0, CHUNK);
    await putRange((await singleUrl(service, token)).url, file, 0, CHUNK);
    await putRange((await chunkUrls(service, token, 1)).urls[0]!, file, 0, CHUNK);
    await service.idle();

    const pid = service.process.pid!;
    const rssBefore = await rssKiB(pid);
    let rssPeak = rssBefore;
    // The plain pipe does not fsync: without `sync` its bytes would be written back during a later sample. The
    // file is read again, as the kernel may have dropped pages of it meanwhile (this machine's DAMON pages cold
    // memory out): every sample reads it from the page cache.
    // What a sample wrote is deleted after it, on every side, so that each finds the same room in memory and on disk.
    const sample = async (fn: () => Promise<unknown>, cleanup: () => Promise<unknown>) => {
      await run('sync');
      for await (const _ of createReadStream(file, { highWaterMark: 16 * MiB }));
      const ms = await timed(fn);
      await cleanup();
      return ms;
    };
    const emptied = (dir: string) => async () => {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
    };
    const toBaseline = (url: string) => (i: number) => putRange(url, file, i * CHUNK, (i + 1) * CHUNK);
    const baseline = ({ url, dir }: { url: string; dir: string }) => ({
      single: () => sample(() => putRange(url, file, 0, TOTAL), emptied(dir)),
      parallel: () => sample(() => parallel(chunks, PARALLEL, toBaseline(url)), emptied(dir)),
    });
    const sides = {
      plain: baseline(plain),
      md5: baseline(md5),
      service: {
        single: async () => {
          const single = await singleUrl(service, token);
          const sampler = setInterval(() => void rssKiB(pid).then((kib) => (rssPeak = Math.max(rssPeak, kib))), 20);
          return sample(
            () => putRange(single.url, file, 0, TOTAL),
            async () => {
              clearInterval(sampler);
              rssPeak = Math.max(rssPeak, await rssKiB(pid));
              // The uploaded gibberish is processed (and fails); that must not run into the next sample. The spec
              // has no call that deletes a video: its folder is removed here, the row left.
              await service.idle();
              await rm(join(service.data, 'videos', single.id), { recursive: true, force: true });
            },
          );
        },
        parallel: async () => {
          const multi = await chunkUrls(service, token, chunks.length);
          return sample(
            () => parallel(chunks, PARALLEL, (i) => putRange(multi.urls[i]!, file, i * CHUNK, (i + 1) * CHUNK)),
            // #7 deletes the session's chunks.
            () => service.call('POST', '/videos/multipart-upload/abort', { token, body: { key: multi.key } }),
          );
        },
      },
    };
    const names = (['plain', 'md5', 'service'] as const).flatMap((side) =>
      (['single', 'parallel'] as const).map((shape) => [side, shape] as const),
    );
    const results = await interleaved(
      ROUNDS,
      names.map(([side, shape]) => sides[side][shape]),
    );
    const times = (side: string, shape: string) => results[names.findIndex(([a, b]) => a === side && b === shape)]!;
    const figure = (xs: number[]) =>
      `${mbps(TOTAL, median(xs)).toFixed(0)} MB/s (${mbps(TOTAL, Math.max(...xs)).toFixed(0)}–${mbps(TOTAL, Math.min(...xs)).toFixed(0)})`;
    // A ratio is the median of the rounds' own ratios: drift between rounds falls on both sides of each.
    const ratio = (base: number[], ours: number[]) => {
      const each = ours.map((ms, i) => base[i]! / ms);
      return `${median(each).toFixed(2)} (${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)})`;
    };
    for (const [label, shape, target] of [
      ['1 GiB single PUT', 'single', '≥ 0.95 of pipe + MD5 + fsync'],
      [`1 GiB as 16 × 64 MiB, ${PARALLEL} parallel`, 'parallel', '≥ 0.80 of pipe + MD5 + fsync'],
    ] as const) {
      const [ours, pipe, hashed] = (['service', 'plain', 'md5'] as const).map((side) => times(side, shape));
      rows.push([
        label,
        figure(ours!),
        figure(pipe!),
        ratio(pipe!, ours!),
        figure(hashed!),
        ratio(hashed!, ours!),
        target,
      ]);
    }
    rows.push([
      'service RSS growth during the 1 GiB PUT',
      `${((rssPeak - rssBefore) / 1024).toFixed(1)} MB`,
      `(from ${(rssBefore / 1024).toFixed(0)} MB)`,
      '',
      '',
      '',
      '< 100 MB',
    ]);
    // The uploaded gibberish fails processing quickly; let it, so it does not overlap the timings below.
    await service.idle();

    for (const [label, name, args] of !PROCESSING
      ? []
      : ([
          [
            '60 s 1080p H.264/AAC (copy path)',
            'h264-1080p-60s.mp4',
            ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '60', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
          ],
          [
            '60 s 1080p VP9/Opus (encode path)',
            'vp9-1080p-60s.webm',
            ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '3M', '-c:a', 'libopus'],
          ],
        ] as const)) {
      const path = await sixtySeconds(name, [...args]);
      const { id, url } = await singleUrl(service, token);
      const size = (await stat(path)).size;
      await putRange(url, path, 0, size);
      const start = performance.now();
      const video = await waitForVideo(service, token, id, 600_000);
      rows.push([
        `upload end → ready, ${label}`,
        `${((performance.now() - start) / 1000).toFixed(2)} s`,
        video.status,
        '',
        '',
        '',
        label.includes('copy') ? '< 5 s' : '',
      ]);
    }
  } finally {
    plain.stop();
    md5.stop();
    await service.stop();
    for (const mode of ['plain', 'md5']) await rm(join(DIR, `baseline-${mode}`), { recursive: true, force: true });
    await rm(service.data, { recursive: true, force: true });
  }
  console.log(
    `\nService upload and processing (loopback, this machine; medians of ${ROUNDS} rounds, each in its own order; ranges in brackets, a ratio's the rounds' own)`,
  );
  console.log(
    table([['measure', 'service', 'plain pipe to file', 'ratio', 'pipe + MD5 + fsync', 'ratio', 'target'], ...rows]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
