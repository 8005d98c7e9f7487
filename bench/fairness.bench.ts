/**
 * Fairness of processing (the hardening issue). Prints figures; asserts nothing.
 *   Time for organization B's 10 s upload (1080p H.264/AAC) to become ready while organization A has two
 *   10-minute 4K uploads processing, as a ratio to B's time on an idle service, measured in the same run.
 *   Target ≤ 2. A's files are 10 s of 4K looped by copy to 10 minutes, so they are made in seconds; their
 *   processing (an encode down to 1080p) takes far longer than the measurement, which ends with B.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testPattern } from '../test/helpers/media.js';
import { startService, upload, until, waitForVideo } from '../test/helpers/service.js';
import { median, table } from './stats.js';

const run = promisify(execFile);
const DIR = join(tmpdir(), 'video-uploader-bench');
const ROUNDS = 3;

async function made(name: string, args: string[]): Promise<string> {
  await mkdir(DIR, { recursive: true });
  const path = join(DIR, name);
  if (await stat(path).catch(() => null)) return path;
  await run('ffmpeg', ['-v', 'error', ...args, '-y', `${path}.tmp.mp4`]);
  await run('mv', [`${path}.tmp.mp4`, path]);
  return path;
}

async function sources() {
  const small = await made('fair-b-1080p-10s.mp4', [
    ...testPattern('1920x1080', 30, 'frequency=440'),
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
  ]);
  const clip = await made('fair-a-4k-4mbit-10s.mp4', [
    ...testPattern('3840x2160', 30, 'frequency=220'),
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-b:v',
    '4M',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
  ]);
  const big = await made('fair-a-4k-4mbit-10min.mp4', ['-stream_loop', '59', '-i', clip, '-c', 'copy']);
  return { small, big };
}

/** Seconds from the end of B's upload to its `ready`. */
async function readyAfter(
  service: Awaited<ReturnType<typeof startService>>,
  token: string,
  file: string,
): Promise<number> {
  const id = await upload(service, token, file);
  const start = performance.now();
  const video = await waitForVideo(service, token, id, 600_000);
  if (video.status !== 'ready') throw new Error(`B's video ${video.status}: ${video.failure_reason}`);
  return (performance.now() - start) / 1000;
}

export async function main(): Promise<void> {
  const { small, big } = await sources();
  const idle: number[] = [];
  const busy: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Idle: B alone.
    {
      const service = await startService();
      try {
        idle.push(await readyAfter(service, await service.token('b'), small));
      } finally {
        await service.stop();
        await rm(service.data, { recursive: true, force: true });
      }
    }
    // Busy: A's two 4K uploads processing first.
    {
      const service = await startService();
      try {
        const a = await service.token('a');
        const heavy = [await upload(service, a, big), await upload(service, a, big)];
        await until('A processing', async () =>
          (await service.call('GET', `/videos/${heavy[0]}`, { token: a })).body.status === 'processing'
            ? true
            : undefined,
        );
        busy.push(await readyAfter(service, await service.token('b'), small));
      } finally {
        // SIGTERM: the running encodes are aborted with their ffmpeg, so the next round starts quiet.
        await service.stop();
        await rm(service.data, { recursive: true, force: true });
      }
    }
  }
  const s = (xs: number[]) =>
    `${median(xs).toFixed(2)} s (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  console.log(`\nFairness: organization B's 10 s 1080p upload, upload end → ready (medians of ${ROUNDS}, interleaved)`);
  console.log(
    table([
      ['case', 'time', 'ratio', 'target'],
      ['idle service (baseline)', s(idle), '1.00', ''],
      [
        "while organization A's two 10-minute 4K uploads process",
        s(busy),
        (median(busy) / median(idle)).toFixed(2),
        '≤ 2',
      ],
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
