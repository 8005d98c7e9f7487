import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MediaInfo } from '../../src/api/types.js';
import {
  DEFAULT_PROBE_SECONDS,
  frameRate,
  MediaError,
  probe,
  run,
  scanVideo,
  spoken,
  UNTRUSTED_INPUT,
  type ProbeStream,
} from './ffmpeg.js';
import { readMediaInfo } from './mediainfo.js';

/**
 * Decisions (docs/service.md): what an upload may be, and how long processing may take. Past a limit, the video fails
 * with a reason a person understands. Configurable with the service's flags.
 */
export interface ProcessingLimits {
  /** Longest media accepted, in seconds. */
  maxDurationSeconds: number;
  /** Largest picture accepted: the longer and the shorter side. */
  maxLongSide: number;
  maxShortSide: number;
  /** Highest frame rate accepted. */
  maxFrameRate: number;
  /** Processing may take `baseSeconds` + `secondsPerMediaSecond` × the media's duration. */
  baseSeconds: number;
  secondsPerMediaSecond: number;
  /** How long ffprobe and MediaInfo may take to read a file's streams. */
  probeSeconds: number;
}

export const DEFAULT_LIMITS: ProcessingLimits = {
  maxDurationSeconds: 4 * 3600,
  // 4K DCI and UHD, either way up.
  maxLongSide: 4096,
  maxShortSide: 2304,
  maxFrameRate: 120,
  baseSeconds: 60,
  secondsPerMediaSecond: 10,
  probeSeconds: DEFAULT_PROBE_SECONDS,
};

/** Refuses media past the limits, naming the limit and the file's value. */
function assertWithin(
  info: Awaited<ReturnType<typeof probe>>,
  video: ProbeStream | undefined,
  limits: ProcessingLimits,
): void {
  const duration = Number(info.format.duration ?? 0);
  if (duration > limits.maxDurationSeconds) {
    throw new MediaError(
      `The video is ${spoken(duration)} long; videos up to ${spoken(limits.maxDurationSeconds)} are accepted.`,
    );
  }
  if (!video) return;
  assertPicture(video.width ?? 0, video.height ?? 0, limits);
  assertFrameRate(frameRate(video), limits);
}

const pictureLimit = (limits: ProcessingLimits) =>
  `pictures up to ${limits.maxLongSide}×${limits.maxShortSide} (either way up) are accepted`;

function assertPicture(w: number, h: number, limits: ProcessingLimits, where = ''): void {
  if (Math.max(w, h) > limits.maxLongSide || Math.min(w, h) > limits.maxShortSide)
    throw new MediaError(`The video is ${w}×${h}${where}; ${pictureLimit(limits)}.`);
}

function assertFrameRate(fps: number, limits: ProcessingLimits): void {
  if (fps > limits.maxFrameRate + 0.01) {
    throw new MediaError(
      `The video has ${Math.round(fps * 100) / 100} frames per second; up to ${limits.maxFrameRate} are accepted.`,
    );
  }
}

/**
 * The limits again, over the whole stream: its header gives only the first parameters, and a stranger's file
 * may start small and change its picture size at any keyframe, or crowd its frames after the first seconds.
 * Every keyframe is decoded under the decoder's own pixel limit, and the frame rate is the stream's packets
 * over its duration. Returns whether the picture size ever changes (then it is encoded, never copied).
 */
async function assertWholeStream(
  source: string,
  video: ProbeStream,
  duration: number,
  limits: ProcessingLimits,
  signal: AbortSignal,
): Promise<{ sizeChanges: boolean }> {
  const scan = await scanVideo(
    source,
    video.index,
    limits.maxLongSide * limits.maxShortSide,
    `A picture in the video is larger than the first; ${pictureLimit(limits)}.`,
    signal,
  );
  for (const { width, height } of scan.sizes) assertPicture(width, height, limits, ' at a later keyframe');
  if (duration > 0) assertFrameRate(scan.packets / duration, limits);
  return {
    sizeChanges: scan.sizes.some((s) => s.width !== (video.width ?? 0) || s.height !== (video.height ?? 0)),
  };
}

export interface Processed {
  duration: number;
  hasVideo: boolean;
  mediainfo: MediaInfo;
}

/** The top of the ladder: nothing is delivered larger than 1080p (1920×1080, or 1080×1920 upright). */
const MAX_LONG = 1920;
const MAX_SHORT = 1080;
/** A second, small rung for slow networks, for encoded sources above 480p; the copy path stays one rung, and fast. */
const LOW_RUNG_HEIGHT = 360;
const SEGMENT_SECONDS = 4;

/**
 * Turns an uploaded source into what the service delivers, in `outDir`:
 *   download.mp4      H.264 + AAC (streams copied when a browser plays them as they are, encoded otherwise),
 *   index.m3u8        HLS master; one rendition per folder (the MP4's streams copied; 360p added when encoding),
 *   poster.jpg        a frame from the first seconds (not for audio-only files).
 * Audio-only sources are accepted: AAC audio in HLS and in download.mp4, no poster.
 * Idempotent: everything is written to a fresh `outDir.tmp` and moved into place at the end.
 */
export async function processMedia(
  source: string,
  outDir: string,
  stop: AbortSignal,
  limits: ProcessingLimits = DEFAULT_LIMITS,
): Promise<Processed> {
  // The upload is a stranger's bytes: opened only as a media container (ffmpeg.ts, UNTRUSTED_INPUT).
  const info = await probe(source, stop, { untrusted: true, timeoutMs: limits.probeSeconds * 1000 });
  const video = info.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const audio = info.streams.find((s) => s.codec_type === 'audio');
  if (!video && !audio)
    throw new MediaError(`The file has no video or audio stream (it was read as ${info.format.format_name}).`);
  assertWithin(info, video, limits);
  // A time limit scaled to the media: a file that takes far longer than its length (a hostile one, say) stops.
  const allowed = limits.baseSeconds + limits.secondsPerMediaSecond * Number(info.format.duration ?? 0);
  const timeUp = AbortSignal.timeout(Math.ceil(allowed * 1000));
  const signal = AbortSignal.any([stop, timeUp]);
  try {
    const { sizeChanges } = video
      ? await assertWholeStream(source, video, Number(info.format.duration ?? 0), limits, signal)
      : { sizeChanges: false };
    return await transcode(source, outDir, info, video, audio, signal, { limits, sizeChanges });
  } catch (err) {
    if (timeUp.aborted && !stop.aborted) {
      throw new MediaError(
        `Processing took longer than the ${spoken(allowed)} allowed for ${spoken(Number(info.format.duration ?? 0))} of media, so it was stopped.`,
      );
    }
    throw err;
  }
}

async function transcode(
  source: string,
  outDir: string,
  info: Awaited<ReturnType<typeof probe>>,
  video: ProbeStream | undefined,
  audio: ProbeStream | undefined,
  signal: AbortSignal,
  { limits, sizeChanges }: { limits: ProcessingLimits; sizeChanges: boolean },
): Promise<Processed> {
  const work = `${outDir}.tmp`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const mp4 = join(work, 'download.mp4');
  const copyVideo = video !== undefined && !sizeChanges && browserPlaysAsIs(video);
  const encodeVideo = video !== undefined && !copyVideo;
  // Encodes are the long jobs: they run in the background, so copies (short) keep their speed beside them.
  await run(
    'ffmpeg',
    [
      ...['-v', 'error', ...UNTRUSTED_INPUT, '-max_pixels', String(limits.maxLongSide * limits.maxShortSide)],
      ...['-i', source, ...mp4Args(video, audio, copyVideo), '-movflags', '+faststart', '-y', mp4],
    ],
    signal,
    {
      background: encodeVideo,
      failOn: {
        pattern: /exceeds specified max pixel count/,
        message: `A picture in the video is too large; ${pictureLimit(limits)}.`,
      },
    },
  );
  await run('ffmpeg', ['-v', 'error', '-i', mp4, ...hlsArgs(video, audio, encodeVideo, work)], signal, {
    background: encodeVideo,
  });
  if (video) {
    const duration = Number(info.format.duration ?? 0);
    await run(
      'ffmpeg',
      [
        '-v',
        'error',
        '-ss',
        String(Math.min(1, duration / 3)),
        '-i',
        mp4,
        '-frames:v',
        '1',
        '-q:v',
        '3',
        '-y',
        join(work, 'poster.jpg'),
      ],
      signal,
    );
  }
  const mediainfo = await readMediaInfo(mp4, { timeoutMs: limits.probeSeconds * 1000 });
  await rm(outDir, { recursive: true, force: true });
  await rename(work, outDir);
  return { duration: Number(mediainfo.duration), hasVideo: video !== undefined, mediainfo };
}

/**
 * H.264 8-bit 4:2:0 progressive within 1080p, shown as it is stored, plays everywhere as it is. A stream stored on
 * its side with a display matrix (a phone held upright) is encoded, which turns its pixels: the HLS copy's MPEG-TS
 * segments have nowhere to keep the matrix, and a player would show it on its side.
 */
function browserPlaysAsIs(v: ProbeStream): boolean {
  const long = Math.max(v.width ?? 0, v.height ?? 0);
  const short = Math.min(v.width ?? 0, v.height ?? 0);
  return (
    v.codec_name === 'h264' &&
    ['yuv420p', 'yuvj420p'].includes(v.pix_fmt ?? '') &&
    !['tt', 'bb', 'tb', 'bt'].includes(v.field_order ?? '') &&
    long <= MAX_LONG &&
    short <= MAX_SHORT &&
    !v.side_data_list?.some((d) => (d.rotation ?? 0) % 360 !== 0)
  );
}

function mp4Args(video: ProbeStream | undefined, audio: ProbeStream | undefined, copyVideo: boolean): string[] {
  const args: string[] = [];
  if (video) {
    args.push('-map', `0:${video.index}`);
    if (copyVideo) args.push('-c:v', 'copy');
    else {
      const fit =
        `scale=w='if(gt(iw,ih),min(iw,${MAX_LONG}),min(iw,${MAX_SHORT}))':h='if(gt(iw,ih),min(ih,${MAX_SHORT}),min(ih,${MAX_LONG}))'` +
        ':force_original_aspect_ratio=decrease:force_divisible_by=2';
      args.push('-vf', `${video.field_order && video.field_order !== 'progressive' ? 'yadif,' : ''}${fit}`);
      args.push('-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', '-pix_fmt', 'yuv420p', '-profile:v', 'high');
      // Keyframes every 2 s so both rungs cut their segments at the same instants.
      args.push('-force_key_frames', 'expr:gte(t,n_forced*2)');
    }
  }
  if (audio) {
    args.push('-map', `0:${audio.index}`);
    if (audio.codec_name === 'aac') args.push('-c:a', 'copy');
    else args.push('-c:a', 'aac', '-b:a', '160k', ...((audio.channels ?? 2) > 2 ? ['-ac', '2'] : []));
  }
  return args;
}

function hlsArgs(
  video: ProbeStream | undefined,
  audio: ProbeStream | undefined,
  encoded: boolean,
  work: string,
): string[] {
  const low =
    video !== undefined && encoded && Math.min(video.width ?? 0, video.height ?? 0) > LOW_RUNG_HEIGHT * (4 / 3);
  const maps: string[] = [];
  const variants: string[] = [];
  const rungs = low ? 2 : 1;
  for (let i = 0; i < rungs; i++) {
    const parts: string[] = [];
    if (video) {
      maps.push('-map', '0:v:0');
      parts.push(`v:${i}`);
    }
    if (audio) {
      maps.push('-map', '0:a:0');
      parts.push(`a:${i}`);
    }
    variants.push([...parts, `name:${i === 0 ? 'main' : `${LOW_RUNG_HEIGHT}p`}`].join(','));
  }
  const codecs = ['-c', 'copy'];
  if (low) {
    codecs.push(
      '-filter:v:1',
      `scale=-2:${LOW_RUNG_HEIGHT}`,
      '-c:v:1',
      'libx264',
      '-preset',
      'veryfast',
      '-b:v:1',
      '800k',
    );
    codecs.push('-maxrate:v:1', '900k', '-bufsize:v:1', '1600k', '-force_key_frames:v:1', 'expr:gte(t,n_forced*2)');
  }
  return [
    ...maps,
    ...codecs,
    '-f',
    'hls',
    '-hls_time',
    String(SEGMENT_SECONDS),
    '-hls_playlist_type',
    'vod',
    '-hls_segment_filename',
    join(work, '%v', 'seg%04d.ts'),
    '-master_pl_name',
    'index.m3u8',
    '-var_stream_map',
    variants.join(' '),
    join(work, '%v', 'stream.m3u8'),
  ];
}
