import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { partPlaylist, playlistSegments, type Segment } from '../live/playlist.js';
import { RecordingMedia } from '../processing/recording-media.js';
import { notFound } from '../domain/errors.js';
import type { S3Store } from './s3.js';
import type { StoredSegment } from '../domain/recordings.js';
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
 * it is closed), then its row to the database. The rows are the part's playlist for every process without its files;
 * the store holds segments only. Keys: `orgs/<organization>/recordings/<recording>/part<seq>/seg00000.ts` (s3.ts, Keys).
 */
export class S3Recordings {
  constructor(private readonly s3: S3Store) {}

  /**
   * `stored` is told each segment once the store has it (the database keeps it: Recordings.addSegment), so a row never
   * names a segment the store lacks.
   */
  follow(
    recordingId: string,
    organizationId: string,
    seq: number,
    dir: string,
    stored: (segment: StoredSegment) => Promise<void>,
  ): Shipping {
    const prefix = `${this.s3.keys.recording(organizationId, recordingId)}part${seq}/`;
    const shipped = new Set<string>();
    /** The recorder's playlist as the last pass read it: unchanged, there is nothing new to ship. */
    let lastRead = '';
    let pass: Promise<void> = Promise.resolve();
    const ship = async () => {
      const text = await readFile(join(dir, 'stream.m3u8'), 'utf8').catch(() => '');
      if (text === lastRead) return;
      for (const [index, { file, duration }] of playlistSegments(text).entries()) {
        if (shipped.has(file)) continue;
        const bytes = await this.s3.putFile(join(dir, file), prefix + file);
        // Its place in the recorder's EVENT playlist, which only grows: the same for the segment in every pass.
        await stored({ seq: index, file, duration, bytes });
        shipped.add(file);
      }
      lastRead = text;
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
 * A recording's files as a process that is not its ingest node reads them: a part's segments from the database when
 * --data has no playlist of it (the rows the ingest node wrote as it shipped each segment: S3Recordings), and a
 * segment's presigned link. On the ingest
 * node itself (and with every role in one process) the local files are read as on disk. A worker that finishes or
 * cuts a recording fetches what ffmpeg reads into a scratch folder of that job's own under its --data, and removes
 * it after. The recording's MP4 lives in the store (`…/recording.mp4`): put there once made, its download a presigned
 * link. A recording deleted goes from the store too.
 */
export class S3RecordingMedia extends RecordingMedia {
  constructor(
    private readonly s3: S3Store,
    /** `<data>/recordings`: a local path below it names `<recording id>/part<N>/<file>`. */
    private readonly recordingsRoot: string,
    private readonly organizationOf: (recordingId: string) => Promise<string | undefined>,
    /** A part's segments in the store and whether it has ended, from the database (Recordings.storedPart). */
    private readonly storedPart: (recordingId: string, seq: number) => Promise<{ segments: Segment[]; ended: boolean }>,
  ) {
    super();
  }

  /** The jobs' scratch folders (local), beside the recordings' own: `<data>/recording-jobs/<recording id>-XXXXXX`. */
  private get scratchRoot(): string {
    return join(dirname(this.recordingsRoot), 'recording-jobs');
  }

  /** The store's folder of a recording (`…/recordings/<id>/`), or undefined when it has no organization (gone). */
  private async prefixOf(recordingId: string): Promise<string | undefined> {
    const org = await this.organizationOf(recordingId);
    return org && this.s3.keys.recording(org, recordingId);
  }

  /** The store's key of a recording's local file, or undefined for a path that is not one. */
  private async keyOf(file: string): Promise<string | undefined> {
    const [id, ...rest] = relative(this.recordingsRoot, file).split(sep);
    const prefix = id && rest.length > 0 ? await this.prefixOf(id) : undefined;
    return prefix && `${prefix}${rest.join('/')}`;
  }

  /**
   * Where this process does not hold the part's playlist, the part as the database has it. Its `size` is a count
   * that grows with it (each segment, then its end), as a playlist's size does: a request that finds it the same
   * reuses the segments it read last (Recordings.segments).
   */
  override async partPlaylist(file: string, unless: number | undefined) {
    if (existsSync(file)) return super.partPlaylist(file, unless);
    const [id, part] = relative(this.recordingsRoot, file).split(sep);
    const seq = Number(/^part(\d+)$/.exec(part ?? '')?.[1]);
    const read = id && Number.isInteger(seq) ? await this.storedPart(id, seq) : { segments: [], ended: false };
    const size = read.segments.length * 2 + (read.ended ? 1 : 0);
    return unless === size ? { size } : { size, read };
  }

  /**
   * Where this process holds every file (the ingest node, or every role in one process) they are read where they
   * are. Otherwise the job fetches them from the store into a new folder of its own, never shared: a finish and a
   * cut of one recording at once on one worker each read and remove their own copies. A part's playlist is written
   * from its rows (the segments the store holds: Recordings.storedPart), never fetched: the store has none (its
   * ingest node puts segments only), and the rows are what every process reads a part by. The folder goes with
   * `release`, or at once when a fetch fails.
   */
  override async local(recordingId: string, dir: string, paths: string[]) {
    if (paths.every((path) => existsSync(join(dir, path)))) return super.local(recordingId, dir, paths);
    const prefix = await this.prefixOf(recordingId);
    if (!prefix) throw notFound(`Recording ${recordingId}`);
    await mkdir(this.scratchRoot, { recursive: true });
    const scratch = await mkdtemp(join(this.scratchRoot, `${recordingId}-`));
    const release = () => rm(scratch, { recursive: true, force: true });
    try {
      for (const path of paths) {
        const file = join(scratch, path);
        await mkdir(dirname(file), { recursive: true });
        const part = /^part(\d+)\/stream\.m3u8$/.exec(path);
        if (part) {
          const { segments, ended } = await this.storedPart(recordingId, Number(part[1]));
          await writeFile(file, partPlaylist(segments, ended));
          continue;
        }
        await this.s3.download(prefix + path, file);
        this.work.fileCalls++;
      }
    } catch (err) {
      await release();
      throw err;
    }
    return { dir: scratch, release };
  }

  /** The MP4 to the store, and off this disk: every API process redirects its download there (`elsewhere`). */
  override async keep(recordingId: string, mp4: string): Promise<void> {
    const prefix = await this.prefixOf(recordingId);
    if (!prefix) return;
    await this.s3.putFile(mp4, `${prefix}recording.mp4`);
    await rm(mp4, { force: true });
  }

  /** Its folder on this disk, then everything of it in the store: segments, playlists, its MP4. */
  override async remove(recordingId: string, dir: string): Promise<void> {
    await super.remove(recordingId, dir);
    const prefix = await this.prefixOf(recordingId);
    if (prefix) await this.s3.deletePrefix(prefix);
  }

  /**
   * Where a publish's first frame is, from its first segment: on this disk, or, where this process does not hold it,
   * read by ffprobe from the store by its presigned link.
   */
  override async firstFrameOffset(segmentFile: string): Promise<number | undefined> {
    return super.firstFrameOffset((await this.elsewhere(segmentFile)) ?? segmentFile);
  }

  /** A segment this process does not hold: its presigned link in the store; undefined for one it holds. */
  async elsewhere(file: string): Promise<string | undefined> {
    if (existsSync(file)) return undefined;
    const key = await this.keyOf(file);
    return key && this.s3.getUrl(key);
  }
}
