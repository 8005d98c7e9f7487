import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DIR = join(tmpdir(), 'video-uploader-test-media');

/**
 * ffmpeg inputs every test and benchmark records from: a test pattern of `size` at `rate` frames a second, and,
 * with `tone` (a sine filter's options, `frequency=440:sample_rate=48000`), a sine tone as its audio.
 */
export const testPattern = (size: string, rate: number, tone?: string): string[] => [
  ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${rate}`],
  ...(tone ? ['-f', 'lavfi', '-i', `sine=${tone}`] : []),
];

/** H.264 (veryfast, 4:2:0) and AAC of the test pattern and tone, `seconds` long: what phones and editors write. */
const h264Aac = (size: string, rate: number, tone: string, seconds: number): string[] => [
  ...testPattern(size, rate, tone),
  ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
];

/** `h264Aac` at 720p30, its video held to `bitrate` (ffmpeg's `-b:v`) and its audio at 128k: a known size per second. */
const h264Aac720At = (seconds: number, bitrate: string): string[] => [
  ...h264Aac('1280x720', 30, 'frequency=440:sample_rate=48000', seconds),
  ...['-b:v', bitrate, '-maxrate', bitrate, '-bufsize', bitrate, '-b:a', '128k'],
];

/**
 * In a recipe, what follows is a second pass: a stream copy of the first's output. ffmpeg 5.1 writes a display
 * matrix (`rotate`) only when it copies.
 */
const THEN = '--then';

/**
 * Test media, made by ffmpeg at test time (a test pattern and a tone). Each recipe is made once per
 * machine into the temp folder and reused; the name says what it is.
 */
export const RECIPES = {
  'h264-aac-720p-10s.mp4': [
    ...testPattern('1280x720', 30, 'frequency=440:sample_rate=48000'),
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
    '-b:a',
    '128k',
  ],
  // 10 Mbit/s, so that 5 MB chunks make at least three of them.
  'h264-aac-720p-10s-12mb.mp4': h264Aac720At(10, '10M'),
  // At most 20 Mbit/s, which the pattern does not fill: about 21 MB, so that chunks shrinking over two
  // connections start above the size @uppy/aws-s3 cuts.
  'h264-aac-720p-12s-21mb.mp4': h264Aac720At(12, '20M'),
  'h264-aac-320p-4s.mp4': h264Aac('480x320', 25, 'frequency=330', 4),
  // A phone's 4K: what `max-upload-resolution` shrinks in the browser.
  'h264-aac-4k-4s.mp4': h264Aac('3840x2160', 30, 'frequency=420:sample_rate=48000', 4),
  // A phone held upright as phones store it: 1920×1080 on its side, with a display matrix that turns it 90°.
  'h264-aac-1080p-turned-3s.mp4': [
    ...h264Aac('1920x1080', 30, 'frequency=610:sample_rate=48000', 3),
    ...[THEN, '-metadata:s:v:0', 'rotate=90'],
  ],
  // A phone held upright: 720 wide, 1280 high.
  'h264-aac-portrait-3s.mp4': h264Aac('720x1280', 25, 'frequency=370', 3),
  'vp9-opus-4s.webm': [
    ...testPattern('640x360', 25, 'frequency=550:sample_rate=48000'),
    '-t',
    '4',
    '-c:v',
    'libvpx-vp9',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-b:v',
    '500k',
    '-c:a',
    'libopus',
  ],
  // What <video-trim-editor>'s component tests play: video every test engine decodes (WebKitGTK here has VP9 but no
  // H.264), 50 frames a second (a frame is 0.02 s: 3.5 s is a frame's time), a key frame each second.
  'vp9-50fps-12s.webm': [
    ...testPattern('320x180', 50),
    ...['-t', '12', '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '300k', '-g', '50'],
  ],
  'h264-aac-4s.mov': h264Aac('640x480', 25, 'frequency=660', 4),
  'hevc-aac-4s.mkv': [
    ...testPattern('960x540', 25, 'frequency=770'),
    '-t',
    '4',
    '-c:v',
    'libx265',
    '-preset',
    'ultrafast',
    '-x265-params',
    'log-level=error',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
  ],
  // A keyframe every 2 s exactly (60 frames, no scene cuts) and B-frames: trims that start on one and between them.
  'h264-aac-360p-10s-gop2.mp4': [
    ...h264Aac('640x360', 30, 'frequency=520:sample_rate=48000', 10),
    ...['-g', '60', '-keyint_min', '60', '-sc_threshold', '0'],
  ],
  'mpeg2-mp2-4s.ts': [
    ...testPattern('720x576', 25, 'frequency=880'),
    '-t',
    '4',
    '-c:v',
    'mpeg2video',
    '-b:v',
    '2M',
    '-c:a',
    'mp2',
  ],
  // Long enough that its encode (both rungs, from MPEG-2) is still running seconds after a worker took it: the scale
  // suite SIGKILLs the worker in the middle of it.
  'mpeg2-mp2-720p-20s.ts': [
    ...testPattern('1280x720', 25, 'frequency=990'),
    ...['-t', '20', '-c:v', 'mpeg2video', '-b:v', '4M', '-c:a', 'mp2'],
  ],
  'audio-only-4s.mp3': [
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=44100',
    '-t',
    '4',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '128k',
  ],
} satisfies Record<string, readonly string[]>;

export type MediaName = keyof typeof RECIPES;

/** The recipes being made in this process: a second ask waits for the first (they would share a temp name). */
const making = new Map<MediaName, Promise<string>>();

export function media(name: MediaName): Promise<string> {
  let made = making.get(name);
  if (!made) {
    made = make(name);
    making.set(name, made);
    made.catch(() => making.delete(name));
  }
  return made;
}

async function make(name: MediaName): Promise<string> {
  await mkdir(DIR, { recursive: true });
  const out = join(DIR, name);
  if (
    await stat(out).then(
      (s) => s.size > 0,
      () => false,
    )
  )
    return out;
  const temp = (pass: number) => `${out}.${process.pid}.tmp${pass}${name.slice(name.lastIndexOf('.'))}`;
  const recipe: readonly string[] = RECIPES[name];
  const then = recipe.indexOf(THEN);
  const ffmpeg = (args: readonly string[], to: string) =>
    run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, to]);
  if (then < 0) await ffmpeg(recipe, temp(1));
  else {
    await ffmpeg(recipe.slice(0, then), temp(0));
    await ffmpeg(['-i', temp(0), '-map', '0', '-c', 'copy', ...recipe.slice(then + 1)], temp(1));
    await rm(temp(0));
  }
  await run('mv', [temp(1), out]);
  return out;
}

/** Probed duration in seconds (ffprobe, the format's duration). */
export async function probeDuration(pathOrUrl: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    pathOrUrl,
  ]);
  return Number(stdout.trim());
}

export async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * What a player would stumble on in a file: decode timestamps that do not increase (where pieces of a cut
 * meet, say), and whatever ffmpeg's decoders report. Frames keep their own timestamps (no frame-rate
 * conversion), so a variable frame rate is not mistaken for a fault.
 */
export async function decodeProblems(pathOrUrl: string): Promise<string[]> {
  const problems: string[] = [];
  for (const stream of ['v:0', 'a:0']) {
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=dts_time', '-of', 'csv=p=0', pathOrUrl],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    const dts = stdout
      .split('\n')
      .map((l) => Number.parseFloat(l))
      .filter(Number.isFinite);
    for (let i = 1; i < dts.length; i++)
      if (!(dts[i]! > dts[i - 1]!)) problems.push(`${stream}: decode time ${dts[i]} after ${dts[i - 1]}`);
  }
  const { stderr } = await run(
    'ffmpeg',
    ['-v', 'error', '-i', pathOrUrl, '-fps_mode', 'passthrough', '-enc_time_base', '-1', '-f', 'null', '-'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  // A playlist on one host whose segments redirect to another (an S3 store's presigned links): ffmpeg's HLS reader
  // says it cannot keep its connection to the playlist's host for them, and opens one to the store; nothing is lost.
  const notices = /^\[\w+ @ \w+\] Cannot reuse HTTP connection for different host/;
  problems.push(...stderr.split('\n').filter((line) => line && !notices.test(line)));
  return problems;
}

/**
 * How like the first frame of `clip` each of `count` consecutive frames of `source` is, from the one shown at
 * `start` seconds on: SSIM (1 is the same picture), each frame decoded by ffmpeg. A cut that begins on the frame
 * at `start` scores highest at index 0.
 */
export async function firstFrameLikeness(
  clip: string,
  source: string,
  start: number,
  count: number,
): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), 'frames-'));
  try {
    await run('ffmpeg', ['-v', 'error', '-i', clip, '-frames:v', '1', '-y', join(dir, 'clip.png')]);
    await run('ffmpeg', [
      // A live playlist is read from its first segment (ffmpeg starts near the live edge otherwise).
      ...['-v', 'error', ...(/\.m3u8$/.test(source) ? ['-live_start_index', '0'] : []), '-ss', start.toFixed(6)],
      ...['-i', source, '-frames:v', String(count), '-fps_mode', 'passthrough'],
      ...['-y', join(dir, 'source%02d.png')],
    ]);
    const scores: number[] = [];
    for (let i = 1; i <= count; i++) {
      const { stderr } = await run('ffmpeg', [
        ...['-hide_banner', '-i', join(dir, 'clip.png'), '-i', join(dir, `source${String(i).padStart(2, '0')}.png`)],
        ...['-lavfi', 'ssim', '-f', 'null', '-'],
      ]);
      scores.push(Number(/All:([\d.]+)/.exec(stderr)?.[1] ?? 0));
    }
    return scores;
  } finally {
    if (process.env.KEEP_FRAMES) console.log('frames in', dir);
    else await rm(dir, { recursive: true, force: true });
  }
}
