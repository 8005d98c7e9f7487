import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { log } from '../log.js';

/** Codec ids of RTMP metadata: FLV's numbers, or enhanced RTMP's FourCC (as text or as a number). */
const H264 = new Set<number | string>([7, 'avc1', 0x61766331]);
const AAC = new Set<number | string>([10, 'mp4a', 0x6d703461]);

/** A browser plays H.264 + AAC as they are: such a stream is copied, anything else encoded. */
export const copyable = (video: number | string, audio: number | string): boolean =>
  (video !== 0 || audio !== 0) && (video === 0 || H264.has(video)) && (audio === 0 || AAC.has(audio));

export const SEGMENT_SECONDS = 2;
/** How often a recorder looks at the free space of its volume. */
const ROOM_EVERY_MS = 2_000;

/**
 * One publish of a live stream recorded to HLS by ffmpeg. The ingest feeds it the stream as FLV from
 * the publish's first byte (it subscribes the recorder to the broadcast before the publisher sends
 * anything); what arrives before ffmpeg runs is held here. When the publish ends, the end of its input
 * lets ffmpeg close the last segment and end the playlist. Below the data volume's reserve (`room`), it asks
 * for its publish to end (`onFull`), cleanly: what was recorded stays, and the disk keeps its reserve.
 */
export class Recorder {
  private held: Buffer[] | undefined = [];
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stderr = '';
  private watch: NodeJS.Timeout | undefined;

  constructor(
    private readonly label: string,
    private readonly room?: { reserveBytes: number; onFull: () => void },
  ) {}

  /** FLV bytes of the stream, in order. */
  write = (data: Buffer): void => {
    if (this.held) this.held.push(Buffer.from(data));
    else if (this.child?.stdin?.writable) this.child.stdin.write(data);
  };

  /**
   * Starts ffmpeg writing `dir/stream.m3u8` and its segments: streams copied, or encoded to H.264/AAC. Rejects
   * when the folder cannot be made or ffmpeg cannot be started.
   */
  async start(dir: string, copy: boolean): Promise<void> {
    await mkdir(dir, { recursive: true });
    const codecs = copy
      ? ['-c', 'copy']
      : [
          '-c:v',
          'libx264',
          '-preset',
          'veryfast',
          '-pix_fmt',
          'yuv420p',
          '-force_key_frames',
          `expr:gte(t,n_forced*${SEGMENT_SECONDS})`,
          '-c:a',
          'aac',
          '-b:a',
          '160k',
        ];
    const child = spawn(
      'ffmpeg',
      [
        '-hide_banner',
        '-v',
        'error',
        '-f',
        'flv',
        '-i',
        'pipe:0',
        '-map',
        '0:v?',
        '-map',
        '0:a?',
        ...codecs,
        '-f',
        'hls',
        '-hls_time',
        String(SEGMENT_SECONDS),
        '-hls_list_size',
        '0',
        '-hls_playlist_type',
        'event',
        '-hls_flags',
        'independent_segments',
        '-hls_segment_filename',
        join(dir, 'seg%05d.ts'),
        join(dir, 'stream.m3u8'),
      ],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    this.child = child;
    child.stdin.on('error', () => {}); // ffmpeg gone: its exit says why
    child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-2000)));
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        log.error(`recorder ${this.label}: ${err.message}`);
        resolve();
      });
      child.once('exit', (code) => {
        if (code !== 0) log.error(`recorder ${this.label} exited with ${code}: ${this.stderr.trim()}`);
        resolve();
      });
    });
    // An ffmpeg that cannot be started rejects here, so the publish is refused rather than recorded to nowhere.
    await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
    for (const data of this.held ?? []) child.stdin.write(data);
    this.held = undefined;
    const room = this.room;
    if (room)
      this.watch = setInterval(() => {
        void statfs(dir).then(
          (fs) => {
            if (fs.bavail * fs.bsize >= room.reserveBytes || !this.watch) return;
            clearInterval(this.watch);
            log.warn(`recorder ${this.label}: the storage is below its reserve (--min-free-mb); ending the publish.`);
            room.onFull();
          },
          () => {},
        );
      }, ROOM_EVERY_MS);
  }

  /** The publish is over: ffmpeg reads to the end of its input and finishes; killed if it takes over a minute. */
  async finish(): Promise<void> {
    clearInterval(this.watch);
    this.watch = undefined;
    this.held = undefined;
    this.child?.stdin?.end();
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 60_000);
    await this.exited;
    clearTimeout(timer);
  }
}
