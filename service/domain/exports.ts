import { mkdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConversionRequest, ExportEntry } from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import { sql } from 'kysely';
import { engineOf, type Db, type Executor } from '../db/index.js';
import { newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import { retryOutage } from '../outages.js';
import { partSeconds, partStarts, snapToPart } from '../live/playlist.js';
import { cutPart, type CutStrategy } from '../processing/cut.js';
import { spoken } from '../processing/ffmpeg.js';
import type { ProcessingLimits } from '../processing/pipeline.js';
import type { Files } from '../storage/files.js';
import type { S3Media } from '../storage/s3-media.js';
import type { Accounts, Caller } from './accounts.js';
import { badField, ServiceError, show } from './errors.js';
import type { LiveStreams } from './live-streams.js';
import type { RecordingRow, Recordings } from './recordings.js';
import { waitForRoom } from './ready.js';
import type { Usage } from './usage.js';
import type { Videos } from './videos.js';
import { MiB } from '../../src/api/limits.js';

interface ExportRow {
  id: string;
  recording_id: string;
  live_stream_id: string;
  video_id: string;
  from_at: number;
  /** Seconds into the recording's media (its parts one after another). */
  offset: number;
  duration: number;
  status: ExportEntry['status'];
  bytes: number;
  created_at: number;
}

export const EXPORT_RECORDING = 'export-recording';
// What the job carries, checked where it is enqueued and where it runs (service/jobs.ts, JobPayloads).
declare module '../jobs.js' {
  interface JobPayloads {
    [EXPORT_RECORDING]: { exportId: string };
  }
}

/**
 * Decision (issue 28): conversions under way (PROCESSING) at once, of one live stream and asked by one token. Their jobs
 * run one per organization at a time anyway (app.ts), so a token with two under way loses nothing by waiting, and a
 * stream's clip tokens (a demo hands one to every visitor) cannot together keep more than four re-encodes in the queue.
 */
export interface ConversionLimits {
  perStream: number;
  perToken: number;
}
export const DEFAULT_CONVERSION_LIMITS: ConversionLimits = { perStream: 4, perToken: 2 };
/** What a refused conversion is told to wait: about the time a short part takes to cut and process. */
const CONVERSION_RETRY_AFTER_SECONDS = 30;
/** The disk a conversion takes, in lengths of its part: the cut, then the MP4 and the HLS processing makes of it. */
export const COPIES_OF_A_CUT = 3;
/** A cut stopped at the time processing would have for its part: the conversion's failure, in these words. */
class CutTooLong extends Error {}
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export interface ExportsOptions {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  files: Files;
  videos: Videos;
  streams: LiveStreams;
  recordings: Recordings;
  usage: Usage;
  /** The organization's lock, held while the conversion caps are counted (domain/accounts.ts). */
  accounts: Accounts;
  strategy: CutStrategy;
  bounds: { conversions: ConversionLimits; processing: ProcessingLimits };
  /** Media on an S3 store: the cut goes there as the new video's source, which processing reads (domain/ready.ts). */
  remote?: S3Media;
}

/** Conversions of temporary recordings into permanent videos (#10), and their entries in #9's export_data. */
export class Exports {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly files: Files;
  private readonly videos: Videos;
  private readonly streams: LiveStreams;
  private readonly recordings: Recordings;
  private readonly usage: Usage;
  private readonly accounts: Accounts;
  private readonly strategy: CutStrategy;
  private readonly bounds: { conversions: ConversionLimits; processing: ProcessingLimits };
  private readonly remote: S3Media | undefined;

  constructor(options: ExportsOptions) {
    ({
      db: this.db,
      clock: this.clock,
      jobs: this.jobs,
      files: this.files,
      videos: this.videos,
      streams: this.streams,
      recordings: this.recordings,
      usage: this.usage,
      accounts: this.accounts,
      strategy: this.strategy,
      bounds: this.bounds,
      remote: this.remote,
    } = options);
  }

  async entries(recordingId: string): Promise<ExportEntry[]> {
    // Ties of created_at (one clock tick) in the order they were made: their number (and, for rows made before
    // it was kept, SQLite's rowid).
    let query = this.db
      .selectFrom('exports')
      .selectAll()
      .where('recording_id', '=', recordingId)
      .orderBy('created_at')
      .orderBy('seq');
    if (engineOf(this.db) === 'sqlite') query = query.orderBy(sql`rowid`);
    const rows = (await query.execute()) as ExportRow[];
    return Promise.all(rows.map((r) => this.entry(r)));
  }

  private async entry(row: ExportRow): Promise<ExportEntry> {
    const entry: ExportEntry = {
      from: iso(row.from_at),
      duration: row.duration,
      bytes: row.bytes,
      status: row.status,
      download_url: null,
    };
    if (row.status !== 'PROCESSING') entry.video_id = row.video_id;
    if (row.status === 'EXPORTED') entry.download_url = this.videos.downloadUrl((await this.videos.row(row.video_id))!);
    return entry;
  }

  /**
   * #10. Decision: `{from, duration}` converts that part; `{}` or no body converts the whole recording.
   * A part may be converted while the recording is still live (instant clipping, as Mux and Twitch offer) when it
   * lies inside what is already recorded and inside one publish; the whole recording waits until it is complete
   * (stopped for longer than the merge window), as the spec says: until then it can still grow.
   */
  async convert(caller: Caller, streamId: string, recordingId: string, body: ConversionRequest): Promise<ExportEntry> {
    const stream = await this.streams.find(caller, streamId);
    const recording = await this.recordings.find(stream, recordingId);
    const complete = recording.state === 'complete';
    const { from, duration } = body;
    if (from === undefined && duration === undefined && !complete) {
      throw new ServiceError(
        'recording_not_complete',
        `Temporary recording ${recording.id} is not complete: the whole of it can be converted once the stream has stayed stopped for more than ${this.recordings.mergeWindowMs / 1000} s. A part of what is already recorded can be converted now, with from and duration.`,
      );
    }
    let fromAt = recording.start_at;
    let offset = 0;
    let seconds = complete ? Math.round(recording.duration!) : 0;
    if (from !== undefined || duration !== undefined) {
      if (from === undefined)
        throw badField(
          'from',
          'from is missing: a part needs both from (an ISO 8601 timestamp) and duration; send {} for the whole recording.',
        );
      if (duration === undefined)
        throw badField(
          'duration',
          'duration is missing: a part needs both from and duration (whole seconds); send {} for the whole recording.',
        );
      if (!ISO_8601.test(from) || !Number.isFinite(Date.parse(from))) {
        throw badField(
          'from',
          `from must be an ISO 8601 timestamp with a time zone, such as ${iso(recording.start_at)}; got ${show(from)}.`,
        );
      }
      fromAt = snapToPart(await this.recordings.parts(recording.id), Date.parse(from));
      const at = await this.placeOf(recording, fromAt);
      offset = at.offset;
      // A complete recording's MP4 may be a little longer than its segments say (rounding): half a second of grace.
      if (duration > at.left + (complete ? 0.5 : 0.001)) {
        throw badField(
          'duration',
          complete
            ? `duration ${duration} runs past the end of the recording: ${at.left.toFixed(1)} s are recorded after from.`
            : `duration ${duration} runs past what is recorded so far in this publish: ${at.left.toFixed(3)} s are recorded after from.`,
        );
      }
      seconds = duration;
    }
    const { maxDurationSeconds } = this.bounds.processing;
    if (seconds > maxDurationSeconds) {
      const message = `A conversion may be up to ${spoken(maxDurationSeconds)} long (--max-duration-seconds), the longest video the service takes; this one is ${spoken(seconds)}. Convert it in parts, with from and duration.`;
      throw from === undefined ? new ServiceError('invalid_field', message) : badField('duration', message);
    }
    // The same part asked again (a double click, a retry after a lost answer) is the conversion already made.
    const same = (db: Executor) =>
      db
        .selectFrom('exports')
        .selectAll()
        .where('recording_id', '=', recording.id)
        .where('from_at', '=', fromAt)
        .where('duration', '=', seconds)
        .where('status', 'in', ['PROCESSING', 'EXPORTED'])
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst() as Promise<ExportRow | undefined>;
    let made = await same(this.db);
    if (!made) {
      await this.assertDiskRoom(recording, seconds);
      made = await same(this.db);
    }
    if (!made) {
      // Said in this order (caps, then quota); the caps are counted again under the lock below, where it counts.
      try {
        await this.assertUnderCaps(this.db, caller, stream.id);
        await this.usage.assertRoom(caller.organizationId, seconds / 60);
      } catch (err) {
        // This very part, made meanwhile by the same ask sent to another process, is what the caps now count.
        made = await same(this.db);
        if (!made) throw err;
      }
    }
    const id = newId();
    // The same part, the caps, the new video and its conversion: one transaction holding the organization's lock,
    // so requests sent at once, to any process, cannot all pass the caps, nor make a part twice.
    made ??= await this.db.transaction().execute(async (trx) => {
      await this.accounts.lockOrganization(trx, caller.organizationId);
      const before = await same(trx);
      if (before) return before;
      await this.assertUnderCaps(trx, caller, stream.id);
      const video = await this.videos.create(
        caller,
        `${recording.id}-${Math.floor(offset)}s-${seconds}s.mp4`,
        stream.id,
        trx,
      );
      const { n } = await trx
        .selectFrom('exports')
        .select((eb) => eb.fn.max('seq').as('n'))
        .where('recording_id', '=', recording.id)
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('exports')
        .values({
          id,
          seq: Number(n ?? 0) + 1,
          recording_id: recording.id,
          live_stream_id: stream.id,
          video_id: video._id,
          from_at: fromAt,
          offset,
          duration: seconds,
          status: 'PROCESSING',
          created_at: this.clock.now(),
          token_hash: caller.tokenHash,
        })
        .execute();
      await this.jobs.enqueue(EXPORT_RECORDING, { exportId: id }, { group: caller.organizationId, db: trx });
      return undefined;
    });
    if (made) {
      // Answered as any #10 answer: as it stands, without video_id (#9 lists it).
      const { video_id: _videoId, ...entry } = await this.entry(made);
      return entry;
    }
    return this.entry((await this.row(id))!);
  }

  /** 429 `limit_reached` past the conversions under way of the stream or of the caller's token. */
  private async assertUnderCaps(trx: Executor, caller: Caller, streamId: string): Promise<void> {
    const underWay = async (column: 'token_hash' | 'live_stream_id', value: string) =>
      Number(
        (
          await trx
            .selectFrom('exports')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where(column, '=', value)
            .where('status', '=', 'PROCESSING')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const { perStream, perToken } = this.bounds.conversions;
    const refuse = (what: string) =>
      new ServiceError('limit_reached', `${what}; ask again once one is done.`, undefined, {
        'retry-after': String(CONVERSION_RETRY_AFTER_SECONDS),
      });
    if ((await underWay('token_hash', caller.tokenHash)) >= perToken)
      throw refuse(`This token has ${perToken} conversions under way, the most allowed (--max-conversions-per-token)`);
    if ((await underWay('live_stream_id', streamId)) >= perStream)
      throw refuse(
        `Live stream ${streamId} has ${perStream} conversions under way, the most allowed (--max-conversions-per-stream)`,
      );
  }

  /**
   * 507 `insufficient_storage` when the conversion would leave less than the reserve free: checked before cutting, on
   * an estimate (the recording's bytes per second × the part's length × COPIES_OF_A_CUT).
   */
  private async assertDiskRoom(recording: RecordingRow, seconds: number): Promise<void> {
    const needed = await this.bytesNeeded(recording, seconds);
    const { reserve } = this.files.disk;
    await this.files.disk.assertRoom(needed).catch((err: unknown) => {
      if (!(err instanceof ServiceError)) throw err;
      throw new ServiceError(
        'insufficient_storage',
        `The storage is too full for this conversion: it needs about ${Math.ceil(needed / MiB)} MiB, which would leave less than the ${Math.round(reserve / MiB)} MiB kept free (--min-free-mb). Convert a shorter part, or try again later.`,
      );
    });
  }

  /** The disk a conversion of `seconds` of the recording takes, estimated: COPIES_OF_A_CUT of its bytes. */
  private async bytesNeeded(recording: RecordingRow, seconds: number): Promise<number> {
    return Math.ceil(COPIES_OF_A_CUT * (await this.bytesPerSecond(recording)) * seconds);
  }

  /** Of a complete recording, its MP4's; of one going on, its segments' (Recordings.bytesPerSecond). */
  private async bytesPerSecond(recording: RecordingRow): Promise<number> {
    if (recording.state === 'complete') return recording.duration ? recording.size! / recording.duration : 0;
    return this.recordings.bytesPerSecond(recording.id);
  }

  /**
   * `from` on the recording's timeline: inside one of its parts (publishes), counted on the service clock. `left`
   * is what follows it: to the end of the recording once complete, to the end of its publish's finished segments
   * before (a part of a recording still going on is cut from that publish alone).
   */
  private async placeOf(recording: RecordingRow, at: number): Promise<{ offset: number; left: number }> {
    const parts = await this.recordings.parts(recording.id);
    const starts = partStarts(parts);
    const spans: string[] = [];
    for (const [i, part] of parts.entries()) {
      const seconds = partSeconds(part);
      const into = (at - part.startedAt) / 1000;
      if (into >= 0 && into < seconds) {
        const offset = starts[i]! + into + (await this.recordings.firstFrameAt(recording.id, part.seq));
        return { offset, left: recording.state === 'complete' ? recording.duration! - offset : seconds - into };
      }
      spans.push(`${iso(part.startedAt)} to ${iso(part.startedAt + seconds * 1000)}`);
    }
    throw badField(
      'from',
      `from ${iso(at)} is not inside the recording, which has media from ${spans.join(' and from ')}.`,
    );
  }

  private async row(id: string): Promise<ExportRow | undefined> {
    return (await this.db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst()) as
      ExportRow | undefined;
  }

  /**
   * The EXPORT_RECORDING job: cut the part into the new video's source, then the normal pipeline. A cut that fails
   * fails the conversion and its video; the database or the store away is tried again later (service/outages.ts).
   */
  async run(exportId: string, stop: AbortSignal, attempt: number): Promise<void> {
    let videoId: string | undefined;
    try {
      const row = await this.row(exportId);
      if (!row || row.status !== 'PROCESSING' || (await this.videos.row(row.video_id))?.size != null) return;
      videoId = row.video_id;
      const size = await this.cut(row, stop);
      await this.videos.startProcessing(row.video_id, size, null);
    } catch (err) {
      if (stop.aborted) throw err;
      const gaveUp = retryOutage(err, attempt, this.clock.now());
      if (videoId === undefined) throw err;
      const reason =
        err instanceof CutTooLong ? err.message : `The recording could not be cut: ${gaveUp ?? (err as Error).message}`;
      // The video's failure and its entry's, together (a video only fails once: Videos.markFailed).
      const failed = videoId;
      await this.db
        .transaction()
        .execute(async (trx) => {
          if (await this.videos.markFailed(failed, reason, trx)) await this.videoDone(failed, trx);
        })
        .catch((lost: unknown) => {
          retryOutage(lost, attempt, this.clock.now());
          throw lost;
        });
    }
  }

  /**
   * Cuts the conversion's part into its video's source (on a store, put there too); returns the source's size. The cut
   * runs at a low priority (processing/cut.ts) and within the time processing would have for the part; past it,
   * ffmpeg is killed (CutTooLong).
   */
  private async cut(row: ExportRow, stop: AbortSignal): Promise<number> {
    // #10 checked the room; should the disk have filled since, the accepted conversion waits as processing does.
    const recording = await this.recordings.row(row.recording_id);
    if (recording) await waitForRoom(this.files, await this.bytesNeeded(recording, row.duration), this.clock);
    const source = this.files.source(row.video_id);
    const { baseSeconds, secondsPerMediaSecond } = this.bounds.processing;
    const allowed = baseSeconds + secondsPerMediaSecond * row.duration;
    const timeUp = AbortSignal.timeout(Math.ceil(allowed * 1000));
    const signal = AbortSignal.any([stop, timeUp]);
    let release: (() => Promise<void>) | undefined;
    try {
      await mkdir(join(source, '..'), { recursive: true });
      // A complete recording is cut from its MP4; one still going on from the playlist of the publish holding
      // the part, as it stands (Recordings.liveSource), re-encoded whole: both on the same timeline. On a store,
      // either is fetched to this disk first when it is not here (a worker other than the ingest node).
      const complete = recording?.state === 'complete';
      const from = complete
        ? await this.recordings.mp4Source(row.recording_id)
        : await this.recordings.liveSource(row.recording_id, row.from_at);
      if (!from) throw new Error('the recording has no media at from any more');
      release = from.release;
      await cutPart(
        from.playlist,
        complete ? row.offset : from.offset,
        row.duration,
        `${source}.mp4`,
        complete ? this.strategy : 'whole',
        signal,
      );
      await rename(`${source}.mp4`, source);
      const video = await this.videos.row(row.video_id);
      if (this.remote && video) await this.remote.putSource(video.organization_id, row.video_id, source);
    } catch (err) {
      if (timeUp.aborted && !stop.aborted)
        throw new CutTooLong(
          `Cutting took longer than the ${spoken(allowed)} allowed for ${spoken(row.duration)} of media (--processing-base-seconds + --processing-seconds-per-media-second × its length), so it was stopped.`,
        );
      throw err;
    } finally {
      await release?.();
    }
    return (await stat(source).catch(() => ({ size: 0 }))).size;
  }

  /**
   * The pipeline finished a video; if it came from a conversion, that entry is EXPORTED (or FAILED). Inside the
   * transaction that recorded the video's end (`db`, domain/ready.ts), so that the two are never apart.
   */
  async videoDone(videoId: string, db: Executor = this.db): Promise<void> {
    const video = await this.videos.row(videoId, db);
    if (!video) return;
    const settle = (set: { status: string; bytes?: number }) =>
      db.updateTable('exports').set(set).where('video_id', '=', videoId).where('status', '=', 'PROCESSING').execute();
    if (video.status === 'ready') {
      const { size: bytes } = await stat(this.files.media(videoId, 'download.mp4')).catch(() => ({ size: 0 }));
      await settle({ status: 'EXPORTED', bytes });
    } else if (video.status === 'failed') {
      await settle({ status: 'FAILED' });
    }
  }

  /** Seconds of the organization's conversions under way, at the duration asked (hosting minutes, domain/usage.ts). */
  async pendingSeconds(organizationId: string): Promise<number> {
    // From the conversions under way (few: they are capped), not from every video of the organization; which of
    // their videos are the organization's is for Videos to say (each module reads its own tables only).
    const pending = await this.db
      .selectFrom('exports')
      .select(['video_id', 'duration'])
      .where('status', '=', 'PROCESSING')
      .execute();
    const mine = new Set(
      await this.videos.ofOrganization(organizationId, [...new Set(pending.map((e) => e.video_id))]),
    );
    return pending.reduce((sum, e) => sum + (mine.has(e.video_id) ? e.duration : 0), 0);
  }

  /** A recording is deleted (domain/recordings.ts, in its transaction): its conversions' entries go with it; the videos stay. */
  async forgetRecording(recordingId: string, db: Executor = this.db): Promise<void> {
    await db.deleteFrom('exports').where('recording_id', '=', recordingId).execute();
  }

  /** A purge (domain/usage.ts): the entries of these videos. */
  async purge(videoIds: string[]): Promise<void> {
    if (videoIds.length > 0) await this.db.deleteFrom('exports').where('video_id', 'in', videoIds).execute();
  }
}
