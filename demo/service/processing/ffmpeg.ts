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

/**
 * Runs ffmpeg or ffprobe; resolves with stdout, rejects with the tail of stderr. Killed on abort. `background`
 * runs it at a lower CPU priority (nice 10): a long encode then yields the cores to short jobs, such as
 * another organization's upload that only needs its streams copied.
 */
export function run(
  command: 'ffmpeg' | 'ffprobe',
  args: string[],
  signal?: AbortSignal,
  { background = false } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, ['-hide_banner', ...(command === 'ffmpeg' ? ['-nostdin'] : []), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
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
    });
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new Error(
              `${command} is not installed (Debian package: ffmpeg). Run "npm start" or "apt-get install ffmpeg".`,
            )
          : e,
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new MediaError(lastLine(err) || `${command} exited with code ${code}`, err));
    });
  });
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
export async function probe(file: string, signal?: AbortSignal, { untrusted = false } = {}): Promise<Probe> {
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
      ),
    ) as Probe;
  } catch (err) {
    if (!(err instanceof MediaError)) throw err;
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
