import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { playlistSegments } from '../live/playlist.js';
import { RecordingMedia } from '../processing/recording-media.js';
import { ServiceError } from '../domain/errors.js';
import type { S3Store } from './s3.js';
import { log } from '../log.js';

/** How often a part's folder is looked at for segments its recorder closed (a segment is 2 s: live/recorder.ts). */
const EVERY_MS = 1_000;

/** One publish's segments on their way to the store; `finish` ships what the recorder's end closed, then stops. */
export interface Shipping {
  finish(): Promise<void>;
}

/**
 * A live recording's segments on an S3 store (issue 30, item 3): the ingest node's recorder writes HLS under --data as
 * today, and each segment goes to the store as soon as its recorder's playlist lists it (ffmpeg lists a segment once
 * it is closed), then the part's playlist as it stands, so the store's playlist never names a segment the store
 * lacks. Keys: `orgs/<organization>/recordings/<recording>/part<seq>/seg00000.ts`, `…/stream.m3u8` (s3.ts, Keys).
 */
export class S3Recordings {
  constructor(private readonly s3: S3Store) {}

  follow(recordingId: string, organizationId: string, seq: number, dir: string): Shipping {
    const prefix = `${this.s3.keys.recording(organizationId, recordingId)}part${seq}/`;
    const shipped = new Set<string>();
    let playlistSent = '';
    let pass: Promise<void> = Promise.resolve();
    const ship = async () => {
      const text = await readFile(join(dir, 'stream.m3u8'), 'utf8').catch(() => '');
      if (text === playlistSent) return;
      for (const { file } of playlistSegments(text)) {
        if (shipped.has(file)) continue;
        await this.s3.putFile(join(dir, file), prefix + file);
        shipped.add(file);
      }
      await this.s3.putFile(join(dir, 'stream.m3u8'), `${prefix}stream.m3u8`, text);
      playlistSent = text;
    };
    // One pass at a time; a pass the store refused is tried again at the next tick.
    const next = () =>
      (pass = pass
        .then(ship)
        .catch((err: unknown) => log.error({ err }, `recording ${recordingId}: a segment was not shipped`)));
    const timer = setInterval(next, EVERY_MS);
    return {
      async finish() {
        clearInterval(timer);
        await next();
      },
    };
  }
}

/**
 * A recording's files as a process that is not its ingest node reads them: a part's playlist from the store
 * when --data has no such file (what the ingest shipped: S3Recordings), and a segment's presigned link. On the ingest
 * node itself (and with every role in one process) the local files are read as on disk. A worker that finishes or
 * cuts a recording fetches what ffmpeg reads into the recording's folder under its own --data, and removes it after.
 * The recording's MP4 lives in the store (`…/recording.mp4`): put there once made, its download a presigned link.
 */
export class S3RecordingMedia extends RecordingMedia {
  constructor(
    private readonly s3: S3Store,
    /** `<data>/recordings`: a local path below it names `<recording id>/part<N>/<file>`. */
    private readonly recordingsRoot: string,
    private readonly organizationOf: (recordingId: string) => Promise<string | undefined>,
  ) {
    super();
  }

  /** The store's key of a recording's local file, or undefined for a path that is not one. */
  private async keyOf(file: string): Promise<string | undefined> {
    const [id, ...rest] = relative(this.recordingsRoot, file).split(sep);
    const org = id && rest.length > 0 ? await this.organizationOf(id) : undefined;
    return org && `${this.s3.keys.recording(org, id!)}${rest.join('/')}`;
  }

  override async partPlaylist(file: string, unless: number | undefined) {
    if (existsSync(file)) return super.partPlaylist(file, unless);
    const key = await this.keyOf(file);
    const text = key
      ? await this.s3.readText(key, '').catch((err: unknown) => {
          if (err instanceof ServiceError && err.code === 'not_found') return '';
          throw err;
        })
      : '';
    const size = Buffer.byteLength(text);
    if (unless === size) return { size };
    return { size, read: { segments: playlistSegments(text), ended: /#EXT-X-ENDLIST/.test(text) } };
  }

  override async fetch(files: string[]) {
    const fetched: string[] = [];
    // A recording's folder this process did not have (a worker, not the ingest node) is scratch: all of it goes
    // after (what ffmpeg wrote beside the fetched files too); in one it had, only what was fetched.
    const scratch = new Set<string>();
    const release = async () => {
      await Promise.all(fetched.map((file) => rm(file, { force: true })));
      await Promise.all([...scratch].map((dir) => rm(dir, { recursive: true, force: true })));
    };
    try {
      for (const file of files) {
        if (existsSync(file)) continue;
        const key = await this.keyOf(file);
        if (!key) continue;
        const folder = join(this.recordingsRoot, relative(this.recordingsRoot, file).split(sep)[0]!);
        if (!existsSync(folder)) scratch.add(folder);
        await mkdir(dirname(file), { recursive: true });
        await this.s3.download(key, file);
        fetched.push(file);
        this.work.fileCalls++;
      }
    } catch (err) {
      await release();
      throw err;
    }
    return { release };
  }

  /** The MP4 to the store, and off this disk: every API process redirects its download there (`elsewhere`). */
  override async keep(mp4: string): Promise<void> {
    const key = await this.keyOf(mp4);
    if (!key) return;
    await this.s3.putFile(mp4, key);
    await rm(mp4, { force: true });
  }

  /** A segment this process does not hold: its presigned link in the store; undefined for one it holds. */
  async elsewhere(file: string): Promise<string | undefined> {
    if (existsSync(file)) return undefined;
    const key = await this.keyOf(file);
    return key && this.s3.getUrl(key);
  }
}
