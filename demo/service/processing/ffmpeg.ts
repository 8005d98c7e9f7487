import { spawn } from 'node:child_process';

/** A failure that becomes the video's `failure_reason`: a sentence for a person, not a stack. */
export class MediaError extends Error {}

/** Runs ffmpeg or ffprobe; resolves with stdout, rejects with the tail of stderr. Killed on abort. */
export function run(command: 'ffmpeg' | 'ffprobe', args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, ['-hide_banner', ...(command === 'ffmpeg' ? ['-nostdin'] : []), ...args], { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new Error(`${command} is not installed (Debian package: ffmpeg). Run "npm start" or "apt-get install ffmpeg".`)
          : e,
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new MediaError(lastLine(err) || `${command} exited with code ${code}`));
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

export interface Probe {
  format: { format_name: string; duration?: string };
  streams: ProbeStream[];
}

export async function probe(file: string, signal?: AbortSignal): Promise<Probe> {
  try {
    return JSON.parse(await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], signal)) as Probe;
  } catch (err) {
    if (err instanceof MediaError) {
      throw new MediaError(`The file could not be read as video or audio (ffprobe: ${err.message.replace(/^.*?: /, '')}).`);
    }
    throw err;
  }
}
