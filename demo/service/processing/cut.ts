import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { probe, run } from './ffmpeg.js';

/**
 * How a part of a recording is cut, frame-accurately either way:
 *   whole  re-encodes the part (H.264 + AAC). The service's default.
 *   edges  re-encodes only from `from` to the first keyframe and from the last keyframe to the end,
 *          copies the keyframe-aligned middle, and re-encodes the audio (cheap) for a sample-exact cut.
 *          About six times faster for 60 s, but where the copied middle meets the re-encoded head its
 *          B-frame delay makes decode timestamps step back a frame, and players may stutter there.
 * bench/live.bench.ts measures both on the same part (time, duration, decode errors); the README has the figures.
 */
export type CutStrategy = 'edges' | 'whole';
export const CUT_STRATEGIES: readonly CutStrategy[] = ['edges', 'whole'];

const X264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p'];
const AAC = ['-c:a', 'aac', '-b:a', '160k'];
const at = (seconds: number) => seconds.toFixed(6);

/** Writes seconds [offset, offset + duration) of `source` (an H.264/AAC MP4) to `out` as MP4. */
export async function cutPart(source: string, offset: number, duration: number, out: string, strategy: CutStrategy, signal?: AbortSignal): Promise<void> {
  const work = `${out}.cut`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  try {
    const info = await probe(source, signal);
    const hasVideo = info.streams.some((s) => s.codec_type === 'video');
    const hasAudio = info.streams.some((s) => s.codec_type === 'audio');
    const keys = strategy === 'edges' && hasVideo ? await keyframes(source, offset, offset + duration, signal) : [];
    const end = offset + duration;
    // An edge shorter than this is not worth an encode: the cut moves to the keyframe, within a frame or so.
    const EDGE = 0.05;
    const k1 = keys.find((k) => k >= offset - EDGE);
    const k2 = keys.findLast((k) => k <= end);
    if (k1 === undefined || k2 === undefined || k2 - k1 < 0.5) {
      await run('ffmpeg', ['-v', 'error', '-ss', at(offset), '-i', source, '-t', at(duration), '-map', '0:v?', '-map', '0:a?', ...X264, ...AAC, '-movflags', '+faststart', '-y', out], signal);
      return;
    }
    const middleEnd = end - k2 < EDGE ? end : k2;
    // The concat list states each piece's length, so the pieces follow each other exactly whatever
    // timestamps each one starts from.
    const pieces: string[] = [];
    const piece = async (from: number, to: number, name: string, codec: string[]) => {
      // A millisecond short, so the keyframe that starts the next piece is not in this one too.
      await run('ffmpeg', ['-v', 'error', '-ss', at(from), '-i', source, '-t', at(to - from - 0.001), '-map', '0:v:0', ...codec, '-f', 'mpegts', '-y', join(work, name)], signal);
      pieces.push(`file '${join(work, name)}'\nduration ${at(to - from)}`);
    };
    if (k1 - offset >= EDGE) await piece(offset, k1, 'head.ts', X264);
    await piece(k1, middleEnd, 'middle.ts', ['-c', 'copy']);
    if (middleEnd < end) await piece(k2, end, 'tail.ts', X264);
    const list = join(work, 'video.txt');
    await writeFile(list, pieces.join('\n'));
    const audio = hasAudio ? ['-ss', at(offset), '-t', at(duration), '-i', source] : [];
    await run('ffmpeg', [
      '-v', 'error', '-f', 'concat', '-safe', '0', '-i', list, ...audio,
      '-map', '0:v:0', ...(hasAudio ? ['-map', '1:a:0', ...AAC] : []), '-c:v', 'copy', '-movflags', '+faststart', '-y', out,
    ], signal);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Keyframe times (seconds) of the first video stream around [from, to]: packets only, nothing decoded. */
async function keyframes(source: string, from: number, to: number, signal?: AbortSignal): Promise<number[]> {
  const csv = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-read_intervals', `${at(Math.max(0, from - 1))}%${at(to + 1)}`,
    '-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', source], signal);
  return csv
    .split('\n')
    .map((line) => line.split(','))
    .filter(([, flags]) => flags?.startsWith('K'))
    .map(([t]) => Number(t))
    .sort((a, b) => a - b);
}
