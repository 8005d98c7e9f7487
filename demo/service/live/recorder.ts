import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Codec ids of RTMP metadata: FLV's numbers, or enhanced RTMP's FourCC (as text or as a number). */
const H264 = new Set<number | string>([7, 'avc1', 0x61766331]);
const AAC = new Set<number | string>([10, 'mp4a', 0x6d703461]);

/** A browser plays H.264 + AAC as they are: such a stream is copied, anything else encoded. */
export const copyable = (video: number | string, audio: number | string): boolean =>
  (video !== 0 || audio !== 0) && (video === 0 || H264.has(video)) && (audio === 0 || AAC.has(audio));

export const SEGMENT_SECONDS = 2;

/**
 * One publish of a live stream recorded to HLS by ffmpeg, reading the stream back from the RTMP server
 * as a player. Reading RTMP gives no end of file when the publisher leaves (the server keeps players
 * waiting for the next publisher), so when the publish is done the ingest closes the recorder's
 * connection: ffmpeg reads what is left, then the end, closes the last segment and ends the playlist.
 * `stop` is for a recorder that does not finish by itself.
 */
export class Recorder {
  private stderr = '';
  private readonly exited: Promise<number | null>;
  private stopping = false;

  private constructor(
    private readonly child: ReturnType<typeof spawn>,
    label: string,
  ) {
    child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-2000)));
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        console.error(`recorder ${label}: ${err.message}`);
        resolve(null);
      });
      child.once('exit', (code) => {
        if (!this.stopping && code !== 0) console.error(`recorder ${label} stopped by itself (${code}): ${this.stderr.trim()}`);
        resolve(code);
      });
    });
  }

  static async start(source: string, dir: string, copy: boolean, label: string): Promise<Recorder> {
    await mkdir(dir, { recursive: true });
    const codecs = copy
      ? ['-c', 'copy']
      : ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-force_key_frames', `expr:gte(t,n_forced*${SEGMENT_SECONDS})`, '-c:a', 'aac', '-b:a', '160k'];
    const args = [
      '-hide_banner', '-nostdin', '-v', 'error',
      // One second of probing: a publish shorter than the default five would otherwise leave nothing.
      '-analyzeduration', '1000000', '-rtmp_live', 'live', '-i', source,
      '-map', '0:v?', '-map', '0:a?', ...codecs,
      '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_list_size', '0', '-hls_playlist_type', 'event',
      '-hls_flags', 'independent_segments', '-hls_segment_filename', join(dir, 'seg%05d.ts'), join(dir, 'stream.m3u8'),
    ];
    return new Recorder(spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] }), label);
  }

  /**
   * Waits up to `graceMs` for ffmpeg to finish by itself, then interrupts it: ffmpeg needs a second
   * SIGINT to break a blocking read, and still writes the end of the playlist; SIGKILL after 5 s more.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopping = true;
    const timers = [
      setTimeout(() => this.child.kill('SIGINT'), graceMs),
      setTimeout(() => this.child.kill('SIGINT'), graceMs + 300),
      setTimeout(() => this.child.kill('SIGKILL'), graceMs + 5_000),
    ];
    await this.exited;
    for (const t of timers) clearTimeout(t);
  }
}
