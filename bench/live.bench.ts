/**
 * The live half of the local service, with real RTMP publishers (ffmpeg). Prints figures; asserts nothing.
 *   - Concurrent publishers (720p, 2 Mbit/s, H.264/AAC, recorded by copy; PUBLISHERS=1,4,… to choose):
 *     whether every recording is whole (no missing segment), and the service's CPU per stream per second
 *     of media, as a ratio to a plain ffmpeg that copies the same file to HLS (the least a recorder can
 *     cost) measured in the same run.
 *   - Time from a publisher's start to the recording's first listing in #9, as a ratio to the time the
 *     same publisher takes to be accepted by a bare node-media-server in this process.
 *   - Time from a conversion request (#10) to EXPORTED for parts of 5 s, 60 s and 10 min of an 11-minute recording, as a ratio to
 *     a plain ffmpeg re-encode of the same part with the same settings (cut.ts), interleaved; and the two
 *     cut strategies side by side, beside a plain `ffmpeg -ss … -t … -c copy` (fast, not accurate).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Context from 'node-media-server/src/core/context.js';
import logger from 'node-media-server/src/core/logger.js';
import NodeRtmpServer from 'node-media-server/src/server/rtmp_server.js';
import { AAC, cutPart, CUT_STRATEGIES, X264 } from '../service/processing/cut.js';
import { decodeProblems, probeDuration, testPattern } from '../test/helpers/media.js';
import { processTree, startWithToken, until, type RunningService } from '../test/helpers/service.js';
import { interleaved, median, table } from './stats.js';

const run = promisify(execFile);
const DIR = join(tmpdir(), 'video-uploader-bench');
const CLIP_SECONDS = 20;
const PUBLISH_SECONDS = 15;
const TICK = 100; // getconf CLK_TCK on Linux

/** 20 s of 720p30 H.264 (2 Mbit/s, keyframe every 2 s) + AAC as FLV, and the same looped to 11 minutes (a 10-minute part fits). */
async function sources(): Promise<{ clip: string; tenMinutes: string }> {
  await mkdir(DIR, { recursive: true });
  const clip = join(DIR, 'live-720p-2mbit.flv');
  const tenMinutes = join(DIR, 'live-720p-11min.flv');
  if (!(await stat(clip).catch(() => null))) {
    await run('ffmpeg', [
      '-v',
      'error',
      ...testPattern('1280x720', 30, 'frequency=440:sample_rate=48000'),
      '-t',
      String(CLIP_SECONDS),
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-b:v',
      '2M',
      '-maxrate',
      '2M',
      '-bufsize',
      '4M',
      '-g',
      '60',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '128k',
      '-y',
      clip,
    ]);
  }
  if (!(await stat(tenMinutes).catch(() => null))) {
    await run('ffmpeg', [
      '-v',
      'error',
      '-stream_loop',
      String(660 / CLIP_SECONDS - 1),
      '-i',
      clip,
      '-c',
      'copy',
      '-y',
      tenMinutes,
    ]);
  }
  return { clip, tenMinutes };
}

async function frameCount(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-count_packets',
    '-show_entries',
    'stream=nb_read_packets',
    '-of',
    'csv=p=0',
    file,
  ]);
  return Number(stdout.trim());
}

/** Pushes a file over RTMP with ffmpeg without re-encoding: for `seconds` in real time, looping; or all of it as fast as it goes. */
function publish(file: string, url: string, seconds?: number): Promise<number | null> {
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    ...(seconds ? ['-re', '-stream_loop', '-1'] : []),
    '-i',
    file,
  ];
  const child = spawn(
    'ffmpeg',
    [...args, ...(seconds ? ['-t', String(seconds)] : []), '-c', 'copy', '-f', 'flv', url],
    { stdio: 'ignore' },
  );
  return new Promise((resolve) => child.once('exit', resolve));
}

/**
 * CPU seconds of a process and every live descendant (the RTMP ingest's own process and its recorders), each
 * with its children that have ended (utime, stime, cutime, cstime).
 */
async function cpuSeconds(pid: number): Promise<number> {
  const tree = await processTree(pid);
  return tree.reduce((sum, p) => sum + [11, 12, 13, 14].reduce((s, i) => s + Number(p.stat[i]), 0), 0) / TICK;
}

/** The least a recorder can cost: ffmpeg copying the file to HLS in real time, with no RTMP and no service. */
async function baselineCpuPerStream(clip: string): Promise<number> {
  const out = join(DIR, 'baseline-hls');
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const { stdout } = await run('bash', [
    '-c',
    `ffmpeg -v error -re -stream_loop -1 -i "$1" -t ${PUBLISH_SECONDS} -c copy -f hls -hls_time 2 -hls_list_size 0 "$2/stream.m3u8" && cat /proc/$$/stat`,
    'baseline',
    clip,
    out,
  ]);
  const fields = stdout.replace(/^.*\) /, '').split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICK / PUBLISH_SECONDS;
}

async function streamsOf(service: RunningService, token: string, n: number) {
  return Promise.all(
    Array.from(
      { length: n },
      async (_, i) => (await service.call('POST', '/live_streams', { token, body: { name: `bench ${i}` } })).body,
    ),
  );
}

const recordingsOf = async (service: RunningService, token: string, streamId: string) =>
  (await service.call('GET', `/live_streams/${streamId}/temporary_recordings`, { token })).body as any[];

/** Whole: segment files numbered without a gap, and as many seconds as were published (±1 s). */
async function whole(service: RunningService, recordingId: string, seconds: number): Promise<boolean> {
  const dir = join(service.data, 'recordings', recordingId, 'part1');
  const playlist = await readFile(join(dir, 'stream.m3u8'), 'utf8');
  const names = playlist.split('\n').filter((l) => l.endsWith('.ts'));
  const total = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].reduce((s, m) => s + Number(m[1]), 0);
  const onDisk = (await readdir(dir)).filter((f) => f.endsWith('.ts')).length;
  return (
    names.every((n, i) => n === `seg${String(i).padStart(5, '0')}.ts`) &&
    onDisk === names.length &&
    Math.abs(total - seconds) <= 1
  );
}

async function concurrentPublishers(clip: string, baseline: number): Promise<string[][]> {
  const rows: string[][] = [];
  for (const n of (process.env.PUBLISHERS ?? '1,4,16,32,64').split(',').map(Number)) {
    const { service, token } = await startWithToken('bench');
    try {
      const streams = await streamsOf(service, token, n);
      const before = await cpuSeconds(service.process.pid!);
      const started = performance.now();
      await Promise.all(streams.map((s) => publish(clip, s.ingest.url, PUBLISH_SECONDS)));
      const done = await Promise.all(
        streams.map((s) =>
          until('stopped', async () => {
            const [r] = await recordingsOf(service, token, s._id);
            return r?.status === 'stopped' ? r : undefined;
          }),
        ),
      );
      const cpu = (await cpuSeconds(service.process.pid!)) - before;
      const wall = (performance.now() - started) / 1000;
      const intact = (await Promise.all(done.map((r) => whole(service, r._id, PUBLISH_SECONDS)))).filter(
        Boolean,
      ).length;
      // CPU seconds per second of media: stays right when an overloaded machine stretches the wall time.
      const perStream = cpu / (n * PUBLISH_SECONDS);
      rows.push([
        `${n} publisher${n > 1 ? 's' : ''}`,
        `${intact}/${n} whole`,
        `${wall.toFixed(1)} s`,
        `${(perStream * 100).toFixed(1)} % of a core per stream`,
        `${(baseline * 100).toFixed(1)} %`,
        `${(perStream / baseline).toFixed(2)}`,
      ]);
    } finally {
      await service.stop();
      await rm(service.data, { recursive: true, force: true });
    }
  }
  return rows;
}

/** ms from spawning a publisher to a bare node-media-server (in this process) accepting its publish. */
async function bareAcceptMs(clip: string): Promise<number[]> {
  logger.level = 'error';
  Context.config = { bind: '127.0.0.1' };
  const nms = new NodeRtmpServer();
  const server = createServer((socket) => nms.handleRequest(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `rtmp://127.0.0.1:${(server.address() as AddressInfo).port}/live/bench`;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const accepted = new Promise<number>((resolve) =>
      Context.eventEmitter.once('postPublish', () => resolve(performance.now() - start)),
    );
    const pushed = publish(clip, url, 3);
    times.push(await accepted);
    await pushed;
  }
  nms.stop();
  server.close();
  return times;
}

async function firstListing(clip: string): Promise<{ listed: number[]; playable: number[] }> {
  const { service, token } = await startWithToken('bench');
  const listed: number[] = [];
  const playable: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const [stream] = await streamsOf(service, token, 1);
      const start = performance.now();
      const pushed = publish(clip, stream.ingest.url, 5);
      const [recording] = await until(
        'listed',
        async () =>
          (await recordingsOf(service, token, stream._id)).length
            ? recordingsOf(service, token, stream._id)
            : undefined,
        20_000,
      );
      listed.push(performance.now() - start);
      await until(
        'a segment',
        async () =>
          (await (await fetch(recording.playback.temporary_playback)).text()).includes('.ts') ? true : undefined,
        20_000,
      );
      playable.push(performance.now() - start);
      await pushed;
    }
  } finally {
    await service.stop();
    await rm(service.data, { recursive: true, force: true });
  }
  return { listed, playable };
}

async function conversion(tenMinutes: string): Promise<string[][]> {
  const { service, token } = await startWithToken('bench');
  try {
    const [stream] = await streamsOf(service, token, 1);
    await publish(tenMinutes, stream.ingest.url);
    await until(
      'stopped',
      async () => ((await recordingsOf(service, token, stream._id))[0]?.status === 'stopped' ? true : undefined),
      60_000,
    );
    await service.advanceClock(61_000);
    const recording = await until(
      'complete',
      async () => {
        const [r] = await recordingsOf(service, token, stream._id);
        return r?.status === 'complete' ? r : undefined;
      },
      120_000,
    );
    const source = join(service.data, 'recordings', recording._id, 'recording.mp4');
    const offset = 300.5; // mid-GOP on purpose: a copy would start at the keyframe before it
    const rows: string[][] = [];

    const copyMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await run('ffmpeg', [
        '-v',
        'error',
        '-ss',
        String(offset),
        '-i',
        source,
        '-t',
        '60',
        '-c',
        'copy',
        '-y',
        join(DIR, 'copy.mp4'),
      ]);
      copyMs.push(performance.now() - start);
    }
    const copy = median(copyMs);
    // The source's own frames in the part (a file looped by copy has small timestamp gaps, so not exactly 30 × 60).
    const { stdout: pts } = await run(
      'ffprobe',
      [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-read_intervals',
        `${offset - 3}%${offset + 63}`,
        '-show_entries',
        'packet=pts_time',
        '-of',
        'csv=p=0',
        source,
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const sourceFrames = pts
      .split('\n')
      .map(Number)
      .filter((t) => t >= offset && t < offset + 60).length;
    const copyError = (await probeDuration(join(DIR, 'copy.mp4'))) - 60;

    for (const strategy of CUT_STRATEGIES) {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        await cutPart(source, offset, 60, join(DIR, `cut-${strategy}.mp4`), strategy);
        times.push(performance.now() - start);
      }
      const out = join(DIR, `cut-${strategy}.mp4`);
      const error = (await probeDuration(out)) - 60;
      const complaints = (await decodeProblems(out)).length;
      const frames = await frameCount(out);
      rows.push([
        `cut 60 s, ${strategy}`,
        `${(median(times) / 1000).toFixed(2)} s (duration ${error >= 0 ? '+' : ''}${error.toFixed(3)} s, ${frames}/${sourceFrames} frames, ${complaints} decode problems)`,
        `${(copy / 1000).toFixed(2)} s (${copyError >= 0 ? '+' : ''}${copyError.toFixed(3)} s)`,
        (median(times) / copy).toFixed(1),
      ]);
    }

    // #10 → EXPORTED against its baseline, interleaved: the same part, re-encoded by a plain ffmpeg with the
    // service's settings. #10 holds that encode plus the permanent video's pipeline (probe, HLS by copy,
    // MP4, poster, mediainfo) and the job queue's pick-up. Parts of 5 s, 60 s and 10 minutes, each mid-GOP.
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const spread = (xs: number[]) => `${s(Math.min(...xs))}–${s(Math.max(...xs))}`;
    let exports = 0;
    for (const [seconds, at, rounds] of [
      [5, offset, 3],
      [60, offset, 3],
      [600, 30.5, 2],
    ] as const) {
      const reencode = async () => {
        const start = performance.now();
        await run('ffmpeg', [
          ...['-v', 'error', '-ss', String(at), '-i', source, '-t', String(seconds), '-map', '0:v?', '-map', '0:a?'],
          ...[...X264, ...AAC, '-movflags', '+faststart', '-y', join(DIR, 'reencode.mp4')],
        ]);
        return performance.now() - start;
      };
      const convert = async () => {
        // A millisecond later each round: the same from and duration again would be the conversion already made.
        const from = new Date(Date.parse(recording.start_time) + at * 1000 + exports).toISOString();
        const start = performance.now();
        const r = await service.call('POST', `/live_streams/${stream._id}/temporary_recordings/${recording._id}`, {
          token,
          body: { from, duration: seconds },
        });
        if (r.status !== 200) throw new Error(JSON.stringify(r.body));
        exports++;
        await until(
          'EXPORTED',
          async () => {
            const [rec] = await recordingsOf(service, token, stream._id);
            return rec.export_data.filter((e: any) => e.status === 'EXPORTED').length === exports ? true : undefined;
          },
          1_800_000,
        );
        return performance.now() - start;
      };
      const [plain, exported] = (await interleaved(rounds, [reencode, convert])) as [number[], number[]];
      rows.push([
        `Convert → EXPORTED, ${seconds < 60 ? `${seconds} s` : `${seconds / 60} min`} of 11 min`,
        `${s(median(exported))} (${spread(exported)})`,
        `re-encode ${s(median(plain))} (${spread(plain)})`,
        (median(exported) / median(plain)).toFixed(2),
      ]);
    }
    return rows;
  } finally {
    await service.stop();
    await rm(service.data, { recursive: true, force: true });
  }
}

/** `node --import tsx bench/live.bench.ts [publishers|listing|conversion]` runs one part; no argument runs all. */
async function main(only = process.argv[2]) {
  const { clip, tenMinutes } = await sources();
  if (!only || only === 'publishers') {
    const baseline = await baselineCpuPerStream(clip);
    const publishers = await concurrentPublishers(clip, baseline);
    console.log(
      `\nConcurrent RTMP publishers, ${PUBLISH_SECONDS} s each of 720p30 at 2 Mbit/s, H.264/AAC recorded by copy (this 2-core machine)`,
    );
    console.log(
      table([
        [
          'publishers',
          'recordings',
          'until all stopped',
          'service CPU',
          'baseline (plain ffmpeg copy to HLS)',
          'ratio',
        ],
        ...publishers,
      ]),
    );
  }
  if (!only || only === 'listing') {
    const bare = await bareAcceptMs(clip);
    const { listed, playable } = await firstListing(clip);
    console.log("\nFrom a publisher's start (medians of 5)");
    console.log(
      table([
        ['measure', 'service', 'baseline (bare node-media-server accepts the publish)', 'ratio'],
        [
          'first listing in #9',
          `${median(listed).toFixed(0)} ms`,
          `${median(bare).toFixed(0)} ms`,
          (median(listed) / median(bare)).toFixed(2),
        ],
        [
          'first segment in temporary_playback',
          `${median(playable).toFixed(0)} ms`,
          `${median(bare).toFixed(0)} ms`,
          (median(playable) / median(bare)).toFixed(2),
        ],
      ]),
    );
  }
  if (!only || only === 'conversion') {
    console.log('\nConversion of parts of an 11-minute recording (medians of 3, of 2 for 10 min)');
    console.log(
      table([
        [
          'measure',
          'time',
          'baseline (cuts: ffmpeg -ss -t -c copy; #10: plain ffmpeg re-encode, same settings)',
          'ratio',
        ],
        ...(await conversion(tenMinutes)),
      ]),
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
