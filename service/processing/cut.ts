import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { frameRate, probe, run } from './ffmpeg.js';

/**
 * How a part of a recording is cut, frame-accurately either way:
 *   whole  re-encodes the part (H.264 + AAC). The service's default.
 *   edges  re-encodes only from `from` to the first keyframe and from the last keyframe to the end,
 *          copies the keyframe-aligned middle, and re-encodes the audio (cheap) for a sample-exact cut.
 *          About six times faster for 60 s and the file has exactly the source's frames (ffmpeg decodes
 *          them all), but the parameter sets change at each seam (x264's edges, the encoder's middle,
 *          carried in band), and Chromium's decoder drops the frames it holds for reordering there:
 *          146 of 150 frames played in the end-to-end test, against 150 for `whole`.
 * bench/live.bench.ts measures both on the same part (time, duration, frames, decode problems); docs/benchmarks.md
 * has the figures.
 */
export type CutStrategy = 'edges' | 'whole';
export const CUT_STRATEGIES: readonly CutStrategy[] = ['edges', 'whole'];

/** The encoder settings of every cut (exported so the benchmark's baseline uses the very same). */
export const X264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p'];
export const AAC = ['-c:a', 'aac', '-b:a', '160k'];
const at = (seconds: number) => seconds.toFixed(6);
/**
 * Every encode of a cut runs niced (processing/ffmpeg.ts, `background`): a conversion a clip token asks for yields the
 * cores to the recorders of live streams and to short jobs.
 */
const LOW_PRIORITY = { background: true };

/** Writes seconds [offset, offset + duration) of `source` (an H.264/AAC MP4) to `out` as MP4. */
export async function cutPart(
  source: string,
  offset: number,
  duration: number,
  out: string,
  strategy: CutStrategy,
  signal?: AbortSignal,
): Promise<void> {
  const work = `${out}.cut`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  try {
    const info = await probe(source, signal);
    const video = info.streams.find((s) => s.codec_type === 'video');
    const hasAudio = info.streams.some((s) => s.codec_type === 'audio');
    const end = offset + duration;
    const { keys, delay } =
      strategy === 'edges' && video ? await keyframes(source, offset, end, signal) : { keys: [], delay: 0 };
    const frame = 1 / frameRate(video, 30);
    // An edge shorter than this is not worth an encode: the cut moves to the keyframe, within a frame or so.
    const EDGE = 0.05;
    const k1 = keys.find((k) => k >= offset - EDGE);
    const k2 = keys.findLast((k) => k <= end);
    // The copied middle keeps the source's decode delay (its B-frames); the head, encoded by x264 with
    // B-frames, has two frames of it. A source that delays more would make decode timestamps step back
    // where head and middle meet, so it is encoded whole, as is a part with no keyframe-aligned middle.
    if (k1 === undefined || k2 === undefined || k2 - k1 < 0.5 || delay > 2 * frame + 0.001) {
      await run(
        'ffmpeg',
        [
          '-v',
          'error',
          '-ss',
          at(offset),
          '-i',
          source,
          '-t',
          at(duration),
          '-map',
          '0:v?',
          '-map',
          '0:a?',
          ...X264,
          ...AAC,
          '-movflags',
          '+faststart',
          '-y',
          out,
        ],
        signal,
        LOW_PRIORITY,
      );
      return;
    }
    const middleEnd = end - k2 < EDGE ? end : k2;
    // The concat list states each piece's length, so the pieces follow each other exactly whatever
    // timestamps each one starts from.
    const pieces: string[] = [];
    const piece = async (from: number, to: number, name: string, codec: string[], stop = to - from - 0.001) => {
      await run(
        'ffmpeg',
        [
          '-v',
          'error',
          '-ss',
          at(from),
          '-i',
          source,
          '-t',
          at(stop),
          '-map',
          '0:v:0',
          ...codec,
          '-f',
          'mpegts',
          '-y',
          join(work, name),
        ],
        signal,
        LOW_PRIORITY,
      );
      pieces.push(`file '${join(work, name)}'\nduration ${at(to - from)}`);
    };
    if (k1 - offset >= EDGE) await piece(offset, k1, 'head.ts', X264);
    // Copied packets stop by decode timestamp: half a frame before the keyframe that starts the tail decodes.
    await piece(k1, middleEnd, 'middle.ts', ['-c', 'copy'], middleEnd - k1 - delay - frame / 2);
    // No B-frames in the tail: its first decode timestamp then comes after the middle's last.
    if (middleEnd < end) await piece(k2, end, 'tail.ts', [...X264, '-bf', '0']);
    const list = join(work, 'video.txt');
    await writeFile(list, pieces.join('\n'));
    const audio = hasAudio ? ['-ss', at(offset), '-t', at(duration), '-i', source] : [];
    await run(
      'ffmpeg',
      [
        '-v',
        'error',
        '-f',
        'concat',
        '-safe',
        '0',
        '-i',
        list,
        ...audio,
        '-map',
        '0:v:0',
        ...(hasAudio ? ['-map', '1:a:0', ...AAC] : []),
        '-c:v',
        'copy',
        '-movflags',
        '+faststart',
        '-y',
        out,
      ],
      signal,
      LOW_PRIORITY,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Keyframe times (seconds) of the first video stream around [from, to], and its decode delay (how far a
 * keyframe's decode timestamp runs ahead of its presentation, from B-frames): packets only, nothing decoded.
 */
async function keyframes(
  source: string,
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<{ keys: number[]; delay: number }> {
  const csv = await run(
    'ffprobe',
    [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-read_intervals',
      `${at(Math.max(0, from - 1))}%${at(to + 1)}`,
      '-show_entries',
      'packet=pts_time,dts_time,flags',
      '-of',
      'csv=p=0',
      source,
    ],
    signal,
  );
  const packets = csv
    .split('\n')
    .map((line) => line.split(','))
    .filter(([, , flags]) => flags?.startsWith('K'))
    .map(([pts, dts]) => ({ pts: Number(pts), dts: Number(dts) }));
  return {
    keys: packets.map((p) => p.pts).sort((a, b) => a - b),
    delay: Math.max(0, ...packets.map((p) => (Number.isFinite(p.dts) ? p.pts - p.dts : 0))),
  };
}
