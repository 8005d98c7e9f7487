/**
 * Shrink before sending (issue 31) over an emulated link (bench/link/emulator.ts) of 20 Mbit/s and 40 ms: a phone's
 * 4K video sent as it is against the same video re-encoded to 1080p in the browser (`max-upload-resolution`),
 * each picked in `<video-uploader auto-proceed>` in headless Chromium and timed by the element's events until
 * `video-ready`, in the same run. Prints figures; asserts nothing.
 *
 * The source: 60 s (10 s with BENCH_QUICK=1) of 3840×2160 at 30 fps, H.264 at 40 Mbit/s with a key frame every
 * second and AAC, as phones write; made by ffmpeg once and kept in the benchmarks' temporary folder.
 *
 * Per choice: the pick to `shrink-start` (the probe), the upload (from its start to `upload-success`) beside the time
 * the card predicted for it, the pick to `video-ready`, the encode speed, the output's SSIM against ffmpeg's 1080p
 * scale of the source, and the growth of the browser's resident set (bench/memory.ts) over the page idle.
 *
 *   BENCH_QUICK=1              a 10 s source instead of 60 s
 *   BENCH_CHOICES=original     only these rows (original, 1080p), comma-separated
 */
import { execFile } from 'node:child_process';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testPattern } from '../test/helpers/media.js';
import { startService } from '../test/helpers/service.js';
import { tempDir } from '../test/helpers/temp.js';
import type { ClientConfig, Contender } from './link/client.js';
import { cannotEmulate, checkLink, describeLink, openLink, raceInBrowser, type LinkSpec } from './link/emulator.js';
import type { BrowserRss } from './memory.js';
import type { ShrinkRun } from './shrink-page.js';
import { table } from './stats.js';
import { buildPages } from './widget.bench.js';

const run = promisify(execFile);
const SECONDS = process.env.BENCH_QUICK === '1' ? 10 : 60;
const CHOICES = process.env.BENCH_CHOICES?.split(',');
const LINK: LinkSpec = { mbit: 20, rttMs: 40, lossPct: 0 };
/** The choice measured against the original, as the integrator's attribute names it. */
const RESOLUTION = '1080p';
/** A row still running after this long is stopped and reported: the original's upload alone takes about 2.2 min. */
const DEADLINE_SECONDS = 30 * 60;
const MB = 1e6;
/** The row of the shrinking worker run alone, nothing uploaded (bench/shrink-page.ts, `shrinkAlone`). */
const ALONE = 'worker alone';

/** The source, made once into the benchmarks' temporary folder; its name says what it is. */
async function sourceVideo(): Promise<string> {
  const dir = join(tmpdir(), 'video-uploader-bench');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `shrink-4k30-h264-40mbit-aac-${SECONDS}s.mp4`);
  if (await stat(path).catch(() => null)) return path;
  console.log(`making the ${SECONDS} s 4K source with ffmpeg (once)…`);
  // Written under another name first: a run stopped while ffmpeg writes leaves nothing a later run would take.
  const part = `${path}.${process.pid}.part.mp4`;
  await run('ffmpeg', [
    ...['-y', '-v', 'error', ...testPattern('3840x2160', 30, 'frequency=440:sample_rate=48000')],
    ...['-t', String(SECONDS), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'],
    ...['-b:v', '40M', '-maxrate', '40M', '-bufsize', '40M', '-g', '30', '-c:a', 'aac', '-b:a', '128k', part],
  ]);
  await rename(part, path);
  return path;
}

/** One stream's fields, by ffprobe. */
async function videoStream(path: string): Promise<Record<string, string>> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-of', 'json'],
    ...['-show_entries', 'stream=width,height,nb_frames,pix_fmt,color_range', path],
  ]);
  return (JSON.parse(stdout) as { streams: Record<string, string>[] }).streams[0]!;
}

/**
 * SSIM of a delivered video against ffmpeg's 1920×1080 scale of the source, every frame. Chromium's H.264 encoder
 * writes full range (`yuvj420p`, `color_range=pc`): compared as it is, its chroma alone would cost about 0.05, so a
 * full-range output is brought to the source's limited range first, as a player shows it.
 */
async function ssim(output: string, source: string): Promise<{ y: number; all: number } | string> {
  const out = await videoStream(output);
  if (`${out.width}x${out.height}` !== '1920x1080') return `the output is ${out.width}×${out.height}`;
  const range = out.color_range === 'pc' || out.pix_fmt === 'yuvj420p' ? 'pc' : 'tv';
  const { stderr } = await run(
    'ffmpeg',
    [
      ...['-nostats', '-i', output, '-i', source, '-lavfi'],
      `[0:v]scale=in_range=${range}:out_range=tv,format=yuv420p[out];[1:v]scale=1920:1080,format=yuv420p[ref];[out][ref]ssim`,
      ...['-f', 'null', '-'],
    ],
    { maxBuffer: 64 * MB },
  );
  const found = /SSIM Y:([\d.]+).* All:([\d.]+)/.exec(stderr);
  if (!found) throw new Error(`ffmpeg printed no SSIM:\n${stderr.slice(-2000)}`);
  return { y: Number(found[1]), all: Number(found[2]) };
}

/** What `shrinkAlone` measured: the conversion's milliseconds and the output's bytes. */
interface Alone {
  ms: number;
  size: number;
}

interface Row {
  label: string;
  run?: ShrinkRun;
  alone?: Alone;
  error?: string;
  memory?: { idle: BrowserRss; peak: BrowserRss };
  ssim?: { y: number; all: number } | string;
}

/** The original and the shrunk upload over the link, one after another, each in a fresh page. */
async function race(pages: string, source: string): Promise<{ rows: Row[]; note: string }> {
  const link = await openLink(LINK);
  const dir = await tempDir('shrink-bench-');
  try {
    const check = await checkLink(link);
    const note = `link check: TCP ${check.mbit!.toFixed(1)} Mbit/s, round trip ${check.rttMs.toFixed(1)} ms, ${check.congestion}`;
    if (check.problems.length) throw new Error(`the link is not what it should be: ${check.problems.join('; ')}`);
    const service = await startService({
      data: join(dir, 'service'),
      netns: link.namespaces.server,
      host: link.serverAddress,
    });
    try {
      const token = await service.token('bench');
      const contender = (label: string, attributes: Record<string, string>): Contender => ({
        label,
        page: 'bench/shrink-page.html',
        call: 'shrink',
        args: [service.api, token, attributes],
      });
      const config: ClientConfig = {
        dist: pages,
        api: service.api,
        file: source,
        // The original first: it is the baseline every ratio is to.
        contenders: [
          contender('original', {}),
          contender(RESOLUTION, { 'max-upload-resolution': RESOLUTION }),
          // Last: the worker alone, its output dropped, for the memory its codecs take without the page's or upload's.
          { label: ALONE, page: 'bench/shrink-page.html' as const, call: 'shrinkAlone' as const, args: [8 * 2 ** 20] },
        ].filter((c) => !CHOICES || CHOICES.includes(c.label)),
        deadlineSeconds: DEADLINE_SECONDS,
        memory: true,
      };
      const rows: Row[] = [];
      type Line = Row & { result?: ShrinkRun & Alone };
      for await (const { label, result, error, memory } of raceInBrowser<Line>(link, config)) {
        if (label === ALONE) {
          rows.push({ label, alone: result, error, memory });
          console.log(`  ${label}: ${result ? `${(result.ms / 1000).toFixed(1)} s, nothing uploaded` : error}`);
          continue;
        }
        rows.push({ label, run: result, error, memory });
        console.log(
          `  ${label}: ${result ? `video-ready ${(result.readyMs / 1000).toFixed(1)} s after the pick` : error}`,
        );
      }
      // After both uploads, so that ffmpeg does not share the two cores with them.
      for (const row of rows) {
        if (!row.run) continue;
        const delivered = join(service.data, 'videos', row.run.video._id, 'media', 'download.mp4');
        row.ssim = await ssim(delivered, source);
      }
      return { rows, note };
    } finally {
      await service.stop();
    }
  } finally {
    await link.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number | undefined) => (ms === undefined ? '' : `${(ms / 1000).toFixed(1)} s`);

/**
 * The pick to the service's `ready_time` (the same machine's clock): `video-ready` comes with the element's next
 * poll of #8 after it, which backs off to 10 s apart during a long processing.
 */
const serviceReady = (r: ShrinkRun) => (r.video.ready_time ? Date.parse(r.video.ready_time) - r.pickedAt : undefined);

/** Where the upload starts: at `shrink-start` once the element decided (after its probe), else at the pick. */
const uploadStart = (r: ShrinkRun) => r.shrinkStart?.ms ?? 0;

/**
 * When the encode ended: a shrunk upload's `bytesTotal` is a prediction until the output is written, and the last
 * change of it is the encode's end; without one, the upload's end bounds it.
 */
const encodeEnd = (r: ShrinkRun) => (r.totals.length > 1 ? r.totals.at(-1)![0] : r.successMs);

export async function main(): Promise<void> {
  const skip = cannotEmulate();
  if (skip) {
    console.log(`\nShrink before sending: skipped (${skip}).`);
    return;
  }
  const [pages, source] = await Promise.all([buildPages(['bench/shrink-page.html']), sourceVideo()]);
  const sourceStream = await videoStream(source);
  const frames = Number(sourceStream.nb_frames);
  const sourceMB = (await stat(source)).size / MB;
  console.log(
    `\nShrink before sending: ${SECONDS} s of 3840×2160 at 30 fps, H.264 40 Mbit/s + AAC (${sourceMB.toFixed(0)} MB), ` +
      `from headless Chromium over ${describeLink(LINK)} loss (CUBIC sender)`,
  );
  const { rows, note } = await race(pages, source);
  console.log(`  (${note})`);

  const original = rows.find((r) => r.label === 'original');
  const shrunk = rows.find((r) => r.label === RESOLUTION);
  // The card predicts every choice it offers, and only the shrunk row's card offers any (the original row has no
  // `max-upload-resolution`): both rows' predictions are from it.
  const predicted = shrunk?.run?.shrinkStart?.predicted;
  const upload = (r: ShrinkRun) => r.successMs - uploadStart(r);
  const growth = (r: Row, of: keyof BrowserRss) => r.memory && r.memory.peak[of] - r.memory.idle[of];
  const megabytes = (bytes: number | undefined) => (bytes === undefined ? '' : `${(bytes / MB).toFixed(0)} MB`);
  /** Each measure: its label, its value for a row, the ms an original / shrunk ratio is made of, its target. */
  const measures: [string, (r: Row, run: ShrinkRun) => string, ((run: ShrinkRun) => number)?, string?][] = [
    [
      'shrink-start: the choice; could the browser encode',
      (_, run) =>
        run.shrinkStart
          ? `${run.shrinkStart.choice}; ${run.shrinkStart.canEncode ? 'yes' : `no (${run.shrinkStart.reason ?? ''})`}`
          : 'not fired',
    ],
    ['pick → shrink-start (the probe)', (_, run) => seconds(run.shrinkStart?.ms)],
    ['pick → first byte sent', (_, run) => seconds(run.firstByteMs)],
    ['upload: its start → upload-success', (_, run) => seconds(upload(run))],
    ['  the card predicted', (r) => (predicted?.[r.label] === undefined ? '' : seconds(predicted[r.label]! * 1000))],
    [
      '  measured against predicted',
      (r, run) => {
        const p = predicted?.[r.label];
        return p === undefined ? '' : `${((100 * upload(run)) / (p * 1000) - 100).toFixed(0)} %`;
      },
      undefined,
      'within ±25 %',
    ],
    ['bytes sent', (_, run) => `${(run.bytesSent / MB).toFixed(1)} MB`],
    ['pick → upload-success', (_, run) => seconds(run.successMs), (run) => run.successMs],
    ['pick → video-ready (the element)', (_, run) => seconds(run.readyMs), (run) => run.readyMs, '≥ 2.5 × faster'],
    [
      "pick → ready (the service's ready_time)",
      (_, run) => seconds(serviceReady(run)),
      (run) => serviceReady(run) ?? NaN,
    ],
    [
      'encode: frames of source a second, pick to the end of the encode',
      (r, run) => (run.shrinkStart?.choice === r.label ? `${((frames * 1000) / encodeEnd(run)).toFixed(1)} fps` : ''),
    ],
    [
      "SSIM against ffmpeg's 1080p scale of the source: All (Y)",
      (r) => (typeof r.ssim === 'string' ? r.ssim : r.ssim ? `${r.ssim.all.toFixed(3)} (${r.ssim.y.toFixed(3)})` : ''),
      undefined,
      `≥ 0.95 (${RESOLUTION})`,
    ],
    ['memory: renderer RSS growth over the idle page', (r) => megabytes(growth(r, 'renderer')), undefined, '< 200 MB'],
    [
      "  the renderer's peak over the original's",
      (r) =>
        r === original || !r.memory || !original?.memory
          ? ''
          : megabytes(r.memory.peak.renderer - original.memory.peak.renderer),
    ],
    [
      '  the whole browser: growth (idle → peak)',
      (r) =>
        r.memory
          ? `${megabytes(growth(r, 'browser'))} (${megabytes(r.memory.idle.browser)} → ${megabytes(r.memory.peak.browser)})`
          : '',
    ],
  ];
  const cell = (r: Row | undefined, value: (r: Row, run: ShrinkRun) => string) =>
    !r ? '' : r.run ? value(r, r.run) : (r.error ?? '');
  const out = measures.map(([label, value, ms, target = '']) => {
    const ratio = ms && original?.run && shrunk?.run ? ms(original.run) / ms(shrunk.run) : NaN;
    return [label, cell(original, value), cell(shrunk, value), ratio > 0 ? `${ratio.toFixed(2)} ×` : '', target];
  });
  console.log(table([['measure', 'original', RESOLUTION, `original / ${RESOLUTION}`, 'target'], ...out]));
  if (shrunk?.run && !shrunk.run.shrinkStart)
    console.log(
      `  (the ${RESOLUTION} row fired no shrink-start: this build of the element does not know max-upload-resolution, so it sent the original)`,
    );
  for (const r of [original, shrunk])
    if (r?.run && r.run.totals.length > 1)
      console.log(
        `  (${r.label}: upload-progress's bytesTotal took ${r.run.totals.length} values, ` +
          [r.run.totals[0]!, r.run.totals.at(-1)!]
            .map(([ms, bytes]) => `${(bytes / MB).toFixed(1)} MB at ${seconds(ms)}`)
            .join(' first, ') +
          ' last)',
      );
  console.log(`  (the source: ${frames} frames, ${sourceStream.width}×${sourceStream.height})`);
  const alone = rows.find((r) => r.label === ALONE);
  if (alone)
    console.log(
      alone.alone
        ? `  the shrinking worker alone, nothing uploaded (its chunks dropped as they come): ${((frames * 1000) / alone.alone.ms).toFixed(1)} fps, ` +
            `the renderer's RSS growth over the idle page ${megabytes(growth(alone, 'renderer'))}: the browser's 4K decoder and its encoder, and the worker's buffers`
        : `  the shrinking worker alone: ${alone.error ?? 'no result'}`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
