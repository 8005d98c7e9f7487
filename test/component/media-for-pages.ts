import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Middleware } from 'koa';
import { decodeProblems, firstFrameLikeness, media, probeDuration, RECIPES, type MediaName } from '../helpers/media.js';

const run = promisify(execFile);

/** What ffmpeg sees in a video a page made: as it is, and after the service's copy to MP4 and then to HLS. */
export interface ProbeReport {
  /** The video's sample entry: avc1 (parameter sets in the track header) or avc3 (in the samples). */
  tag: string;
  copies: Record<'as-is' | 'hls', { duration: number; frames: number; likeness: number[]; problems: string[] }>;
}

/**
 * ffmpeg's view of what a page made from test media (the browser cannot run ffmpeg):
 * `POST /__media/probe?source=<recipe>&start=<seconds>` with an MP4 as the body answers, for the MP4 and for what the
 * service's processing makes of it by copying (`-c copy` to MP4 with faststart, then `-c copy -f hls`, as
 * service/processing/pipeline.ts does for H.264/AAC it plays as is), its duration, frame count, decode problems and
 * how like its first frame the source's frames before, at and after `start` are. (GET /__media/<recipe> serves the
 * media itself: web-test-runner.config.ts.)
 */
export const probeForPages: Middleware = async (ctx, next) => {
  if (ctx.path !== '/__media/probe' || ctx.method !== 'POST') return next();
  const name = String(ctx.query.source);
  if (!(name in RECIPES)) {
    ctx.status = 404;
    return;
  }
  const source = await media(name as MediaName);
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const dir = await mkdtemp(join(tmpdir(), 'page-output-'));
  try {
    const output = join(dir, 'output.mp4');
    await writeFile(output, Buffer.concat(chunks));
    const copied = join(dir, 'download.mp4');
    await run('ffmpeg', ['-v', 'error', '-i', output, '-map', '0', '-c', 'copy', '-movflags', '+faststart', copied]);
    await mkdir(join(dir, 'hls'));
    const playlist = join(dir, 'hls', 'stream.m3u8');
    await run('ffmpeg', [
      ...['-v', 'error', '-i', copied, '-map', '0', '-c', 'copy', '-f', 'hls', '-hls_time', '4'],
      ...['-hls_playlist_type', 'vod', '-hls_segment_filename', join(dir, 'hls', 'seg%04d.ts'), playlist],
    ]);
    // One frame either side of the start: the clip's first frame is most like the middle one when the cut is exact.
    const start = Number(ctx.query.start);
    const frame = 1 / Number(ctx.query.rate ?? 30);
    const report: ProbeReport = { tag: await videoTag(output), copies: {} as ProbeReport['copies'] };
    for (const [copy, file] of [
      ['as-is', output],
      ['hls', playlist],
    ] as const) {
      report.copies[copy] = {
        duration: await probeDuration(file),
        frames: await frameCount(file),
        likeness: await firstFrameLikeness(file, source, start - frame, 3),
        problems: await decodeProblems(file),
      };
    }
    ctx.type = 'json';
    ctx.body = JSON.stringify(report);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

async function frameCount(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-count_frames'],
    ...['-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file],
  ]);
  // A playlist lists its stream twice (in its program and on its own).
  return Number(stdout.trim().split('\n')[0]);
}

async function videoTag(file: string): Promise<string> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_tag_string', '-of', 'csv=p=0', file],
  ]);
  return stdout.trim();
}
