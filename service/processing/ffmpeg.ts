import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/** A failure that becomes the video's `failure_reason`: a sentence for a person, not a stack. */
export class MediaError extends Error {
  constructor(
    message: string,
    /** The tail of the tool's stderr, for the reason to be found in; never shown. */
    readonly stderr = '',
  ) {
    super(message);
  }
}

/**
 * Demuxers an uploaded file may be opened with: media containers that read the file and nothing else.
 * Refused by leaving out: playlists (hls, dash), concat, image sequences (image2), tee, subtitle formats
 * and every other demuxer that opens further files or URLs named inside the upload, which would let a text
 * file turn a file of the server into a "video". Raw elementary streams (h264, hevc, m4v) are in: they open nothing.
 */
const UPLOAD_DEMUXERS = [
  'mov',
  'matroska',
  'avi',
  'mpegts',
  'mpeg',
  'flv',
  'asf',
  'mxf',
  'ogg',
  'wav',
  'mp3',
  'aac',
  'flac',
  'dv',
  'h264',
  'hevc',
  'm4v',
  'mpegvideo',
  'ivf',
  'nut',
  'gxf',
  'w64',
  'amr',
  'ac3',
  'eac3',
  'caf',
  'aiff',
];

/** Input options before `-i` of an uploaded file: only those demuxers, and no protocol but the file itself. */
export const UNTRUSTED_INPUT = ['-protocol_whitelist', 'file', '-format_whitelist', UPLOAD_DEMUXERS.join(',')];

/** A tool stopped because the file broke a limit (its time, a decoder's picture size): its message is the reason. */
export class LimitError extends MediaError {}

/**
 * How long ffprobe may take to read a file's streams (default; `--probe-timeout-seconds`). A stranger's file can
 * be built to make the prober work for ever; reading metadata never needs more than seconds.
 */
export const DEFAULT_PROBE_SECONDS = 30;

export interface RunOptions {
  /** Lower CPU priority (nice 10): a long encode then yields the cores to short jobs. */
  background?: boolean;
  /** Killed after this long, with a LimitError that says so; ffprobe: DEFAULT_PROBE_SECONDS unless given, null: none. */
  timeoutMs?: number | null;
  /** A line of stderr that means the file broke a limit: the tool is killed and `message` is the failure. */
  failOn?: { pattern: RegExp; message: string };
}

/**
 * Runs ffmpeg or ffprobe; resolves with stdout, rejects with the tail of stderr. Killed on abort, past its time
 * limit, or at the first stderr line that `failOn` matches (ffmpeg logs a decoder's refusal and carries on).
 * `background` runs it at a lower CPU priority (nice 10): a long encode then yields the cores to short jobs, such
 * as another organization's upload that only needs its streams copied.
 */
export function run(
  command: 'ffmpeg' | 'ffprobe',
  args: string[],
  signal?: AbortSignal,
  {
    background = false,
    timeoutMs = command === 'ffprobe' ? DEFAULT_PROBE_SECONDS * 1000 : null,
    failOn,
  }: RunOptions = {},
): Promise<string> {
  const timeUp = timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs);
  const broke = new AbortController();
  const stop = AbortSignal.any([signal, timeUp, broke.signal].filter((s): s is AbortSignal => s !== undefined));
  return new Promise((resolve, reject) => {
    const child = spawn(command, ['-hide_banner', ...(command === 'ffmpeg' ? ['-nostdin'] : []), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: stop,
    });
    if (background && child.pid) {
      try {
        setPriority(child.pid, 10);
      } catch {
        /* not allowed here: it runs at the normal priority */
      }
    }
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
      if (failOn?.pattern.test(err)) broke.abort();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (broke.signal.aborted) reject(new LimitError(failOn!.message, err));
      else if (timeUp?.aborted && !signal?.aborted)
        reject(
          new LimitError(
            `${command} took longer than ${spoken(timeoutMs! / 1000)} to read the file, so it was stopped.`,
            err,
          ),
        );
      else
        reject(
          e.code === 'ENOENT'
            ? new Error(
                `${command} is not installed (Debian package: ffmpeg). Run "npm start" or "apt-get install ffmpeg".`,
              )
            : e,
        );
    });
    child.on('close', (code) => {
      if (stop.aborted) return; // 'error' has answered
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new MediaError(lastLine(err) || `${command} exited with code ${code}`, err));
    });
  });
}

/** `1h 2m 3s`, `4 s`: a length a person reads. */
export function spoken(seconds: number): string {
  // Tenths of a second; a limit set shorter than that (a test's) keeps its one significant digit.
  if (seconds < 60) return `${Math.round(seconds * 10) / 10 || Number(seconds.toPrecision(1))} s`;
  const s = Math.round(seconds);
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return [h && `${h} h`, m && `${m} min`, r && `${r} s`].filter(Boolean).join(' ');
}

const lastLine = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? '';

export interface ProbeStream {
  index: number;
  codec_type: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment';
  codec_name?: string;
  profile?: string;
  pix_fmt?: string;
  width?: number;
  height?: number;
  channels?: number;
  field_order?: string;
  /** Average frame rate, e.g. "30/1" (r_frame_rate can be far higher for a live stream's jittery timestamps). */
  avg_frame_rate?: string;
  disposition?: { attached_pic?: number };
  /** A phone's upright video is stored on its side with a display matrix: `rotation` is its turn in degrees. */
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

/** Frames per second of a stream (its average, `"30000/1001"` → 29.97); `fallback` when ffprobe gives none. */
export function frameRate(stream: ProbeStream | undefined, fallback = 0): number {
  const [num, den] = (stream?.avg_frame_rate ?? '').split('/').map(Number);
  return num && den ? num / den : fallback;
}

export interface Probe {
  format: { format_name: string; duration?: string };
  streams: ProbeStream[];
}

/** Probes a file; `untrusted` (an upload) opens it only as a media container (UNTRUSTED_INPUT). */
export async function probe(
  file: string,
  signal?: AbortSignal,
  { untrusted = false, timeoutMs }: { untrusted?: boolean; timeoutMs?: number | null } = {},
): Promise<Probe> {
  try {
    return JSON.parse(
      await run(
        'ffprobe',
        [
          '-v',
          'error',
          ...(untrusted ? UNTRUSTED_INPUT : []),
          '-print_format',
          'json',
          '-show_format',
          '-show_streams',
          file,
        ],
        signal,
        { timeoutMs },
      ),
    ) as Probe;
  } catch (err) {
    if (!(err instanceof MediaError) || err instanceof LimitError) throw err;
    const refused = /\[(\w+) @ [^\]]+\] Format not on whitelist/.exec(err.stderr)?.[1];
    if (refused) {
      throw new MediaError(
        `The file is not a video container: it was read as "${refused}" (a playlist or a list of other files), which uploads may not be.`,
      );
    }
    throw new MediaError(
      `The file could not be read as video or audio (ffprobe: ${err.message.replace(/^.*?: /, '')}).`,
    );
  }
}

/** What a video stream really holds, read to its end: ffprobe's stream header gives only its first parameters. */
export interface StreamScan {
  /** The picture size of every keyframe, in order (a stream may change size at any keyframe). */
  sizes: { width: number; height: number }[];
  /** Packets of the stream, all of them: with the file's duration, its real average frame rate. */
  packets: number;
}

/**
 * Reads a video stream to its end, decoding its keyframes only (a stream's picture size can change only at
 * one), with the decoder's own picture-size limit: a frame of more than `maxPixels` is refused by the decoder
 * before it is allocated, and the scan fails with `tooLarge`.
 */
export async function scanVideo(
  file: string,
  streamIndex: number,
  maxPixels: number,
  tooLarge: string,
  signal: AbortSignal,
): Promise<StreamScan> {
  const out = await run(
    'ffprobe',
    [
      ...['-v', 'error', ...UNTRUSTED_INPUT, '-max_pixels', String(maxPixels), '-skip_frame', 'nokey'],
      ...['-select_streams', String(streamIndex), '-count_packets'],
      ...['-show_entries', 'frame=width,height:stream=nb_read_packets', '-print_format', 'json', file],
    ],
    signal,
    // The scan decodes the whole file's keyframes: its time limit is the caller's (processing's own).
    { timeoutMs: null, failOn: { pattern: /exceeds specified max pixel count/, message: tooLarge } },
  );
  const json = JSON.parse(out) as {
    frames?: { width?: number; height?: number }[];
    streams?: { nb_read_packets?: string }[];
  };
  return {
    sizes: (json.frames ?? []).map((f) => ({ width: f.width ?? 0, height: f.height ?? 0 })),
    packets: Number(json.streams?.[0]?.nb_read_packets ?? 0),
  };
}
