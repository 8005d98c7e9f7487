import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ExportEntry, TemporaryRecording } from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import type { Db, Executor } from '../db/index.js';
import { isId, newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import { retryOutage } from '../outages.js';
import { CACHED_RECORDINGS, Storyboards } from '../live/storyboard.js';
import { composePlaylist, partSeconds, partStarts, type Part, type Segment } from '../live/playlist.js';
import { Recent } from '../live/recent.js';
import type { RecordingMedia } from '../processing/recording-media.js';
import type { Files } from '../storage/files.js';
import type { Caller } from './accounts.js';
import { notFound } from './errors.js';
import { shownKey, type StreamRow } from './live-streams.js';
import { waitForRoom } from './ready.js';

/** What a cut reads (a file ffmpeg opens), where in it `from` is, and what removes what was made or fetched for it. */
export interface CutSource {
  playlist: string;
  offset: number;
  release(): Promise<void>;
}

export interface RecordingRow {
  id: string;
  live_stream_id: string;
  organization_id: string;
  /** live → stopped (inside the merge window) → finishing (making the MP4) → complete. */
  state: 'live' | 'stopped' | 'finishing' | 'complete';
  start_at: number;
  stopped_at: number | null;
  end_at: number | null;
  duration: number | null;
  size: number | null;
}

/** A segment of a part the ingest node put in the store: its place in the part, file name, seconds and bytes. */
export interface StoredSegment {
  seq: number;
  file: string;
  duration: number;
  bytes: number;
}

/** A part's segments as its recorder's playlist last listed them, that playlist's size then, and whether it had its end. */
interface KnownPart {
  segments: Segment[];
  size: number;
  ended: boolean;
}

export const FINISH_RECORDING = 'finish-recording';
// What the job carries, checked where it is enqueued and where it runs (service/jobs.ts, JobPayloads).
declare module '../jobs.js' {
  interface JobPayloads {
    [FINISH_RECORDING]: { recordingId: string };
  }
}
/** A recording's part folder and segment file names. */
const RECORDING_PART = /^part\d{1,6}$/;
const RECORDING_SEGMENT = /^seg\d{5,9}\.ts$/;
/** Spec, Limits: a temporary recording is deleted 3 days after it ends. */
export const RECORDING_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
/** Spec, timed rule 3: a stream that resumes within 1 minute continues its recording. */
export const DEFAULT_MERGE_WINDOW_MS = 60_000;
/**
 * How long an ingest node's heartbeat says it is alive (wall-clock: the service clock a test moves says nothing of
 * a process); it renews every third of it (live/ingest.ts). A node silent for longer is dead: its live parts end.
 */
export const INGEST_NODE_LEASE_MS = 20_000;
/** Where an ingest node keeps its id, in its data directory (nodeId). */
const NODE_ID_FILE = 'ingest-node';

export interface RecordingsOptions {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  files: Files;
  /** ffprobe and ffmpeg on the recording's files (processing/recording-media.ts). */
  media: RecordingMedia;
  /** A publisher back within this many ms continues its recording (spec, timed rule 3). */
  mergeWindowMs: number;
  apiOrigin: () => string;
  /**
   * A recording's conversions (domain/exports.ts, which owns them): for #9's export_data, and forgotten (inside
   * the transaction that deletes the recording) when it goes. Called only once both modules exist (app.ts).
   */
  conversions: {
    entries(recordingId: string): Promise<ExportEntry[]>;
    forget(recordingId: string, db: Executor): Promise<void>;
  };
}

/** Temporary recordings (#9): one per broadcast, publishes within the merge window joined as parts. */
export class Recordings {
  private readonly removing = new Set<string>();
  /** By `recording/part`: firstFrameAt. */
  private readonly firstFrames = new Map<string, number>();
  /** Thumbnails of each recording's segments, in sprite sheets, and their WebVTT (live/storyboard.ts). */
  readonly storyboards: Storyboards;
  /**
   * What is known of the recordings asked for last (item 7 of issue 28): each part's segments as its playlist
   * last listed them (with that playlist's size, and whether it has its end, after which it never changes), and
   * temporary_playback as last composed. A request reads a part's playlist again only when it has grown.
   */
  private readonly known = new Recent<{
    parts: Map<number, KnownPart>;
    playlist?: { segments: number; complete: boolean; text: string };
  }>(CACHED_RECORDINGS, () => ({ parts: new Map() }));

  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly files: Files;
  private readonly media: RecordingMedia;
  readonly mergeWindowMs: number;
  private readonly apiOrigin: () => string;
  private readonly conversions: RecordingsOptions['conversions'];

  constructor(options: RecordingsOptions) {
    ({
      db: this.db,
      clock: this.clock,
      jobs: this.jobs,
      files: this.files,
      media: this.media,
      mergeWindowMs: this.mergeWindowMs,
      apiOrigin: this.apiOrigin,
      conversions: this.conversions,
    } = options);
    this.storyboards = new Storyboards(
      (id) => this.files.recordingDir(id),
      (id) => this.parts(id),
      this.media.work,
    );
  }

  /** Whether a publish of the stream is on now (a recording of it is live). */
  async isLive(streamId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('recordings')
      .select('id')
      .where('live_stream_id', '=', streamId)
      .where('state', '=', 'live')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * A publish began: it continues the stream's last recording when that one stopped no more than the
   * merge window ago, and starts a new recording otherwise. Returns where the part is recorded.
   */
  async beginPart(
    stream: StreamRow,
    at: number,
    node: string,
  ): Promise<{ recordingId: string; seq: number; dir: string }> {
    return this.db.transaction().execute(async (trx) => {
      const last = (await trx
        .selectFrom('recordings')
        .selectAll()
        .where('live_stream_id', '=', stream.id)
        .orderBy('start_at', 'desc')
        .limit(1)
        .executeTakeFirst()) as RecordingRow | undefined;
      let recordingId: string;
      let seq = 1;
      if (last && last.state === 'stopped' && at - last.stopped_at! <= this.mergeWindowMs) {
        recordingId = last.id;
        const { n } = await trx
          .selectFrom('recording_parts')
          .select((eb) => eb.fn.max('seq').as('n'))
          .where('recording_id', '=', last.id)
          .executeTakeFirstOrThrow();
        seq = Number(n) + 1;
        await trx
          .updateTable('recordings')
          .set({ state: 'live', stopped_at: null })
          .where('id', '=', last.id)
          .execute();
      } else {
        recordingId = newId();
        await trx
          .insertInto('recordings')
          .values({
            id: recordingId,
            live_stream_id: stream.id,
            organization_id: stream.organization_id,
            state: 'live',
            start_at: at,
          })
          .execute();
      }
      // (recording_id, seq) is the key: two publishes of one stream beginning at once never share a part.
      await trx
        .insertInto('recording_parts')
        .values({ recording_id: recordingId, seq, started_at: at, ingest_node: node })
        .execute();
      return { recordingId, seq, dir: join(this.files.recordingDir(recordingId), `part${seq}`) };
    });
  }

  /** A publish ended (its recorder has stopped): the merge window starts now. */
  async endPart(recordingId: string, seq: number, at: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('recording_parts')
        .set({ stopped_at: at })
        .where('recording_id', '=', recordingId)
        .where('seq', '=', seq)
        .execute();
      await trx
        .updateTable('recordings')
        .set({ state: 'stopped', stopped_at: at })
        .where('id', '=', recordingId)
        .where('state', '=', 'live')
        .execute();
    });
  }

  /**
   * This process's id as an ingest node, kept in its data directory (where it records): a node started again on
   * its data directory is the same node, and each data directory is a node of its own. Decision (docs/scale.md, Roles).
   */
  async nodeId(): Promise<string> {
    const file = join(this.files.root, NODE_ID_FILE);
    const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (kept) return kept;
    const id = `${hostname()}:${newId()}`;
    // Two processes starting on one data directory at once agree on the one written first.
    await writeFile(file, id, { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    return (await readFile(file, 'utf8')).trim();
  }

  /** An ingest node says it is alive, for INGEST_NODE_LEASE_MS more. */
  async heartbeat(node: string): Promise<void> {
    const until = Date.now() + INGEST_NODE_LEASE_MS;
    await this.db
      .insertInto('ingest_nodes')
      .values({ id: node, alive_until: until })
      .onConflict((c) => c.column('id').doUpdateSet({ alive_until: until }))
      .execute();
  }

  /** An ingest node stops cleanly (its parts have ended): its heartbeat goes. */
  async leave(node: string): Promise<void> {
    await this.db.deleteFrom('ingest_nodes').where('id', '=', node).execute();
  }

  /**
   * An ingest node starts, before it takes a publish: the publishes it had before it went down have ended (their
   * publishers are gone), and so have those of nodes that are dead. Another node's live recordings go on.
   */
  async interrupted(node: string): Promise<void> {
    await this.heartbeat(node);
    await this.endOrphans(node);
  }

  /**
   * Ends the live parts no running ingest node records: those of `restarted` (this node, before its restart), of
   * nodes whose heartbeat ran out, and of parts recorded before nodes were named. Run at an ingest node's start and
   * by the sweeper, which ends a dead node's recordings whether or not it comes back.
   */
  private async endOrphans(restarted?: string): Promise<void> {
    const alive = this.db.selectFrom('ingest_nodes').select('id').where('alive_until', '>=', Date.now());
    const orphans = await this.db
      .selectFrom('recording_parts')
      .select(['recording_id', 'seq'])
      .where('stopped_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('ingest_node', 'is', null),
          eb('ingest_node', 'not in', alive),
          ...(restarted ? [eb('ingest_node', '=', restarted)] : []),
        ]),
      )
      .execute();
    const now = this.clock.now();
    for (const { recording_id, seq } of orphans) {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('recording_parts')
          .set({ stopped_at: now })
          .where('recording_id', '=', recording_id)
          .where('seq', '=', seq)
          .where('stopped_at', 'is', null)
          .execute();
        await trx
          .updateTable('recordings')
          .set({ state: 'stopped', stopped_at: now })
          .where('id', '=', recording_id)
          .where('state', '=', 'live')
          .execute();
      });
    }
  }

  async list(stream: StreamRow): Promise<RecordingRow[]> {
    return (await this.db
      .selectFrom('recordings')
      .selectAll()
      .where('live_stream_id', '=', stream.id)
      .orderBy('start_at')
      .execute()) as RecordingRow[];
  }

  /** A recording of this stream; a deleted one (retention) is a 404. */
  async find(stream: StreamRow, id: string): Promise<RecordingRow> {
    const row = isId(id) ? await this.row(id) : undefined;
    if (!row || row.live_stream_id !== stream.id)
      throw notFound(`Temporary recording ${JSON.stringify(id)} of live stream ${stream.id}`);
    return row;
  }

  /** A recording by id alone, for its playback addresses (no token: the ids are unguessable). */
  private async public(id: string): Promise<RecordingRow> {
    const row = isId(id) ? await this.row(id) : undefined;
    if (!row) throw notFound(`Temporary recording ${JSON.stringify(id)}`);
    return row;
  }

  /** download_url: the MP4 of a complete recording. */
  async download(id: string): Promise<string> {
    const row = await this.public(id);
    if (row.state !== 'complete') throw notFound(`The download of recording ${row.id} (it is not complete yet)`);
    return join(this.files.recordingDir(row.id), 'recording.mp4');
  }

  /** The storyboard's WebVTT (live/storyboard.ts). */
  async storyboard(id: string): Promise<string> {
    return this.storyboards.vtt((await this.public(id)).id);
  }

  /** A sheet of the storyboard, `N.jpg`. */
  async storyboardSheet(id: string, name: string): Promise<string> {
    const row = await this.public(id);
    const index = /^(\d{1,6})\.jpg$/.exec(name)?.[1];
    const file = index === undefined ? undefined : await this.storyboards.sheet(row.id, Number(index));
    if (!file) throw notFound(`The storyboard sheet ${JSON.stringify(name)} of recording ${row.id}`);
    return file;
  }

  /** A segment named by temporary_playback: `part<N>/seg<N>.ts`, and nothing else. */
  async segment(id: string, part: string, segment: string): Promise<string> {
    await this.public(id);
    if (!RECORDING_PART.test(part) || !RECORDING_SEGMENT.test(segment))
      throw notFound(`The file ${JSON.stringify(segment)}`);
    return join(this.files.recordingDir(id), part, segment);
  }

  async ids(organizationId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('recordings')
      .select('id')
      .where('organization_id', '=', organizationId)
      .execute();
    return rows.map((r) => r.id);
  }

  async row(id: string): Promise<RecordingRow | undefined> {
    return (await this.db.selectFrom('recordings').selectAll().where('id', '=', id).executeTakeFirst()) as
      RecordingRow | undefined;
  }

  /** The parts with the segments their recorders have finished so far. */
  async parts(id: string): Promise<Part[]> {
    const rows = await this.db
      .selectFrom('recording_parts')
      .select(['seq', 'started_at'])
      .where('recording_id', '=', id)
      .orderBy('seq')
      .execute();
    const known = this.known.get(id).parts;
    return Promise.all(
      rows.map(async (r) => ({ seq: r.seq, startedAt: r.started_at, segments: await this.segments(id, r.seq, known) })),
    );
  }

  /**
   * A part's finished segments. Its recorder's playlist (EVENT) only grows, and never changes once it has its end:
   * while it is the same size, the segments are those last read; once it has its end, it is not even looked at.
   */
  private async segments(id: string, seq: number, known: Map<number, KnownPart>): Promise<Segment[]> {
    const last = known.get(seq);
    if (last?.ended) return last.segments;
    const file = join(this.files.recordingDir(id), `part${seq}`, 'stream.m3u8');
    const { size, read } = await this.media.partPlaylist(file, last?.size);
    if (!read) return last!.segments;
    known.set(seq, { ...read, size });
    return read.segments;
  }

  /**
   * For a part of a recording that is not complete yet (#10 while live): the publish holding the time `at`
   * (service-clock ms), a snapshot of its playlist as it stands (its finished segments, then an end, so ffmpeg
   * reads it as a file), and the seconds from that publish's start to `at`. ffmpeg seeks in the playlist by
   * its segments' lengths, so nothing is copied first, whatever the length of the recording.
   */
  async liveSource(id: string, at: number): Promise<CutSource | undefined> {
    for (const part of await this.parts(id)) {
      if (at < part.startedAt || at >= part.startedAt + partSeconds(part) * 1000) continue;
      const folder = `part${part.seq}`;
      // On a store, a process other than the ingest node fetches the part first (its playlist, then its segments).
      const local = await this.media.local(id, this.files.recordingDir(id), [
        `${folder}/stream.m3u8`,
        ...part.segments.map((s) => `${folder}/${s.file}`),
      ]);
      try {
        const playlist = await this.media.snapshot(join(local.dir, folder));
        const release = async () => (await rm(playlist, { force: true }), await local.release());
        return { playlist, offset: (at - part.startedAt) / 1000 + (await this.firstFrameAt(id, part.seq)), release };
      } catch (err) {
        await local.release();
        throw err;
      }
    }
    return undefined;
  }

  /** For a part of a complete recording (#10): its MP4, fetched to this disk when the store holds it. */
  async mp4Source(id: string): Promise<CutSource> {
    const local = await this.media.local(id, this.files.recordingDir(id), ['recording.mp4']);
    return { playlist: join(local.dir, 'recording.mp4'), offset: 0, release: local.release };
  }

  /**
   * Seconds from the start of a publish's media, as ffmpeg counts it (its earliest sample, audio or video), to its
   * first frame. Decision (docs/service.md): a program date time is the date of its segment's first frame, so a `from` is
   * turned into a place in the media by this much more.
   */
  async firstFrameAt(id: string, seq: number): Promise<number> {
    const key = `${id}/${seq}`;
    const known = this.firstFrames.get(key);
    if (known !== undefined) return known;
    // Kept with the part, so every process cuts on the same timeline, the files on its disk or not.
    const part = this.db.selectFrom('recording_parts').where('recording_id', '=', id).where('seq', '=', seq);
    const kept = (await part.select('first_frame_at').executeTakeFirst())?.first_frame_at;
    if (kept != null) {
      this.firstFrames.set(key, kept);
      return kept;
    }
    const shift = await this.media.firstFrameOffset(join(this.files.recordingDir(id), `part${seq}`, 'seg00000.ts'));
    if (shift === undefined) return 0;
    this.firstFrames.set(key, shift);
    await this.db
      .updateTable('recording_parts')
      .set({ first_frame_at: shift })
      .where('recording_id', '=', id)
      .where('seq', '=', seq)
      .execute();
    return shift;
  }

  /** The ingest node, as a publish goes on: where its first frame is, once its first segment is finished. */
  async noteFirstFrame(id: string, seq: number): Promise<void> {
    const key = `${id}/${seq}`;
    if (this.firstFrames.has(key)) return;
    const part = (await this.parts(id)).find((p) => p.seq === seq);
    if (part && part.segments.length > 0) await this.firstFrameAt(id, seq);
  }

  /**
   * The ingest node put a segment of the part in the store: its row, and its bytes counted with the part. A segment
   * shipped again (a pass the store refused halfway, tried again) is the row it was, counted once.
   */
  async addSegment(id: string, partSeq: number, segment: StoredSegment): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const added = await trx
        .insertInto('recording_segments')
        .values({ recording_id: id, part_seq: partSeq, ...segment })
        .onConflict((c) => c.columns(['recording_id', 'part_seq', 'seq']).doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return;
      await trx
        .updateTable('recording_parts')
        .set((eb) => ({ stored_bytes: eb('stored_bytes', '+', segment.bytes) }))
        .where('recording_id', '=', id)
        .where('seq', '=', partSeq)
        .execute();
    });
  }

  /**
   * A part's segments as the ingest node put them in the store, and whether it has ended: what a process without
   * the part's files serves (storage/s3-recordings.ts). The node ships a part's last segments before it ends the
   * part (live/ingest.ts), so an ended part has every segment it will ever have.
   */
  async storedPart(id: string, partSeq: number): Promise<{ segments: Segment[]; ended: boolean }> {
    const rows = await this.db
      .selectFrom('recording_segments')
      .select(['file', 'duration'])
      .where('recording_id', '=', id)
      .where('part_seq', '=', partSeq)
      .orderBy('seq')
      .execute();
    const part = await this.db
      .selectFrom('recording_parts')
      .select('stopped_at')
      .where('recording_id', '=', id)
      .where('seq', '=', partSeq)
      .executeTakeFirst();
    return { segments: rows, ended: part?.stopped_at != null };
  }

  /**
   * The bytes of the recording's finished segments: those on this disk, or, where the store holds them and this
   * process does not (a worker, an API process), what the ingest node recorded in the database as it put them there.
   */
  private async segmentBytes(id: string, files: string[]): Promise<number> {
    const { stored } = await this.db
      .selectFrom('recording_parts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('stored_bytes'), eb.lit(0)).as('stored'))
      .where('recording_id', '=', id)
      .executeTakeFirstOrThrow();
    return Math.max(await this.media.bytes(files), Number(stored));
  }

  /**
   * Bytes a second of a recording going on (a conversion's room check, domain/exports.ts): its last few segments'
   * on this disk (a few file calls, whatever its length); where this process holds none of them, the whole
   * recording's, from the bytes the ingest node put in the store.
   */
  async bytesPerSecond(id: string): Promise<number> {
    const dir = this.files.recordingDir(id);
    const segments = (await this.parts(id)).flatMap((p) =>
      p.segments.map((s) => ({ ...s, path: join(dir, `part${p.seq}`, s.file) })),
    );
    const recent = segments.slice(-10);
    const seconds = (some: typeof segments) => some.reduce((sum, s) => sum + s.duration, 0);
    const here = await this.media.bytes(recent.map((s) => s.path));
    if (here > 0) return seconds(recent) > 0 ? here / seconds(recent) : 0;
    const all = seconds(segments);
    return all > 0 ? (await this.segmentBytes(id, [])) / all : 0;
  }

  /** temporary_playback: composed again only when a segment was added or the recording became complete. */
  async playlist(id: string): Promise<string> {
    const complete = (await this.public(id)).state === 'complete';
    const known = this.known.get(id);
    const parts = await this.parts(id);
    const segments = parts.reduce((n, p) => n + p.segments.length, 0);
    const last = known.playlist;
    if (last?.segments === segments && last.complete === complete) return last.text;
    known.playlist = { segments, complete, text: composePlaylist(parts, complete) };
    return known.playlist.text;
  }

  async wire(row: RecordingRow, stream: StreamRow, caller: Caller): Promise<TemporaryRecording> {
    const complete = row.state === 'complete';
    const seconds = complete ? row.duration! : (await this.parts(row.id)).reduce((sum, p) => sum + partSeconds(p), 0);
    const base = `${this.apiOrigin()}/recordings/${row.id}`;
    return {
      _id: row.id,
      stream_key: shownKey(caller, stream.stream_key),
      start_time: iso(row.start_at),
      end_time: complete ? iso(row.end_at!) : null,
      export_data: await this.conversions.entries(row.id),
      duration: complete ? Math.round(seconds) : Math.floor(seconds),
      playback: { temporary_playback: `${base}/index.m3u8`, storyboard: `${base}/storyboard.vtt` },
      download_url: complete ? `${base}/download.mp4` : null,
      status: row.state === 'live' ? 'live' : complete ? 'complete' : 'stopped',
    };
  }

  /**
   * Run by the sweeper: left live by a dead ingest node → stopped; stopped for longer than the merge window → finish
   * it (make its MP4; the longest stopped first); 3 days after its end → delete it, its MP4 made or not.
   */
  async sweep(): Promise<void> {
    // A dead ingest node's publishes have ended, whether or not it comes back (its heartbeat ran out).
    await this.endOrphans();
    const now = this.clock.now();
    const due = await this.db
      .selectFrom('recordings')
      .select(['id', 'organization_id'])
      .where('state', '=', 'stopped')
      .where('stopped_at', '<', now - this.mergeWindowMs)
      .orderBy('stopped_at')
      .orderBy('id')
      .execute();
    for (const { id, organization_id } of due) {
      await this.db.transaction().execute(async (trx) => {
        // Guarded on its state: of the sweepers of several processes, one finishes it (and a publish back
        // meanwhile keeps it live).
        const r = await trx
          .updateTable('recordings')
          .set({ state: 'finishing' })
          .where('id', '=', id)
          .where('state', '=', 'stopped')
          .executeTakeFirst();
        // Grouped by organization: one organization's long recordings never hold every other's (app.ts).
        if (r.numUpdatedRows > 0n)
          await this.jobs.enqueue(FINISH_RECORDING, { recordingId: id }, { group: organization_id, db: trx });
      });
    }
    const expired = await this.db
      .selectFrom('recordings')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'complete'), eb('end_at', '<=', now - RECORDING_RETENTION_MS)]),
          // One whose MP4 could not be made (its finish failed for good) stays finishing: it goes all the same.
          eb.and([eb('state', '=', 'finishing'), eb('stopped_at', '<=', now - RECORDING_RETENTION_MS)]),
        ]),
      )
      .execute();
    await Promise.all(expired.map(({ id }) => this.remove(id)));
  }

  /**
   * The FINISH_RECORDING job: the whole recording as one MP4 (streams copied); then it is complete. Each
   * part is read through its own playlist (one continuous timeline) and the parts are joined at their
   * playlist lengths, laid out by partStarts (a short gap between them); joining the segment files themselves would let
   * every segment's estimated length stretch the timeline (measured: about 15 s over 10 minutes of 2 s segments).
   * The store or the database away: it runs again after the outage waits (outages.ts), and stays `finishing` meanwhile.
   */
  async finish(id: string, signal: AbortSignal, attempt: number): Promise<void> {
    try {
      await this.joinParts(id, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const gaveUp = retryOutage(err, attempt, this.clock.now());
      throw gaveUp === undefined ? err : new Error(gaveUp);
    }
  }

  private async joinParts(id: string, signal: AbortSignal): Promise<void> {
    const row = await this.row(id);
    if (!row || row.state !== 'finishing') return;
    const dir = this.files.recordingDir(id);
    const parts = (await this.parts(id)).filter((p) => p.segments.length > 0);
    const segmentNames = parts.flatMap((p) => p.segments.map((segment) => `part${p.seq}/${segment.file}`));
    // The MP4 is its segments copied: below the disk's reserve the recording waits to complete (domain/ready.ts).
    const bytes = await this.segmentBytes(
      id,
      segmentNames.map((name) => join(dir, name)),
    );
    await waitForRoom(this.files, bytes, this.clock);
    let made = { duration: 0, size: 0 };
    if (parts.length > 0) {
      const starts = partStarts(parts);
      const length = (p: Part, i: number) => (starts[i + 1] ?? starts[i]! + partSeconds(p)) - starts[i]!;
      // On a store, a worker other than the ingest node reads the parts from there (storage/s3-recordings.ts).
      const local = await this.media.local(id, dir, [...parts.map((p) => `part${p.seq}/stream.m3u8`), ...segmentNames]);
      const inputs: { playlist: string; seconds: number }[] = [];
      try {
        // Each part's playlist with its end: a publish whose ingest node died has none in the store (its recorder's
        // end never shipped), and ffmpeg would read a playlist without one as live, from near its end, for ever.
        for (const [i, p] of parts.entries())
          inputs.push({ playlist: await this.media.snapshot(join(local.dir, `part${p.seq}`)), seconds: length(p, i) });
        const mp4 = join(local.dir, 'recording.mp4');
        made = await this.media.joinPlaylists(local.dir, inputs, mp4, signal);
        await this.media.keep(id, mp4);
      } finally {
        await Promise.all(inputs.map((input) => rm(input.playlist, { force: true })));
        await local.release();
      }
    }
    await this.db
      .updateTable('recordings')
      .set((eb) => ({ state: 'complete', end_at: eb.ref('stopped_at'), duration: made.duration, size: made.size }))
      .where('id', '=', id)
      .where('state', '=', 'finishing')
      .execute();
  }

  /**
   * Deletes a recording's files, then its rows (a crash in between leaves rows the next sweep deletes,
   * never files nobody lists); the permanent videos converted from it stay.
   */
  async remove(id: string): Promise<void> {
    if (this.removing.has(id)) return;
    this.removing.add(id);
    try {
      await this.storyboards.close(id);
      await this.media.remove(id, this.files.recordingDir(id));
      await this.db.transaction().execute(async (trx) => {
        await this.conversions.forget(id, trx);
        await trx.deleteFrom('recording_segments').where('recording_id', '=', id).execute();
        await trx.deleteFrom('recording_parts').where('recording_id', '=', id).execute();
        await trx.deleteFrom('recordings').where('id', '=', id).execute();
      });
      this.known.delete(id);
    } finally {
      this.storyboards.forget(id);
      this.removing.delete(id);
    }
  }
}
