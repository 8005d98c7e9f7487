import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConversionRequest, ExportEntry } from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import type { Db } from '../db.js';
import { newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import { partSeconds, partStarts, snapToPart } from '../live/playlist.js';
import { cutPart, type CutStrategy } from '../processing/cut.js';
import { spoken } from '../processing/ffmpeg.js';
import type { ProcessingLimits } from '../processing/pipeline.js';
import type { Files } from '../storage/files.js';
import type { Caller } from './accounts.js';
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
  strategy: CutStrategy;
  bounds: { conversions: ConversionLimits; processing: ProcessingLimits };
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
  private readonly strategy: CutStrategy;
  private readonly bounds: { conversions: ConversionLimits; processing: ProcessingLimits };

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
      strategy: this.strategy,
      bounds: this.bounds,
    } = options);
  }

  entries(recordingId: string): ExportEntry[] {
    const rows = this.db
      .prepare('SELECT * FROM exports WHERE recording_id = ? ORDER BY created_at, rowid')
      .all(recordingId) as ExportRow[];
    return rows.map((r) => this.entry(r));
  }

  private entry(row: ExportRow): ExportEntry {
    const entry: ExportEntry = {
      from: iso(row.from_at),
      duration: row.duration,
      bytes: row.bytes,
      status: row.status,
      download_url: null,
    };
    if (row.status !== 'PROCESSING') entry.video_id = row.video_id;
    if (row.status === 'EXPORTED') entry.download_url = this.videos.downloadUrl(this.videos.row(row.video_id)!);
    return entry;
  }

  /**
   * #10. Decision: `{from, duration}` converts that part; `{}` or no body converts the whole recording.
   * A part may be converted while the recording is still live (instant clipping, as Mux and Twitch offer) when it
   * lies inside what is already recorded and inside one publish; the whole recording waits until it is complete
   * (stopped for longer than the merge window), as the spec says: until then it can still grow.
   */
  async convert(caller: Caller, streamId: string, recordingId: string, body: ConversionRequest): Promise<ExportEntry> {
    const stream = this.streams.find(caller, streamId);
    const recording = this.recordings.find(stream, recordingId);
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
    const same = () =>
      this.db
        .prepare(
          `SELECT * FROM exports WHERE recording_id = ? AND from_at = ? AND duration = ?
           AND status IN ('PROCESSING', 'EXPORTED') ORDER BY created_at LIMIT 1`,
        )
        .get(recording.id, fromAt, seconds) as ExportRow | undefined;
    let made = same();
    if (!made) {
      await this.assertDiskRoom(recording, seconds);
      // From here to the new row nothing awaits: requests sent at once cannot all pass the caps, nor make a part twice.
      made = same();
    }
    if (made) {
      // Answered as any #10 answer: as it stands, without video_id (#9 lists it).
      const { video_id: _videoId, ...entry } = this.entry(made);
      return entry;
    }
    this.assertUnderCaps(caller, stream.id);
    this.usage.assertRoom(caller.organizationId, seconds / 60);
    const video = this.videos.create(caller, `${recording.id}-${Math.floor(offset)}s-${seconds}s.mp4`, stream.id);
    const id = newId();
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO exports (id, recording_id, live_stream_id, video_id, from_at, offset, duration, status, created_at, token_hash)
                  VALUES (?, ?, ?, ?, ?, ?, ?, 'PROCESSING', ?, ?)`,
        )
        .run(id, recording.id, stream.id, video._id, fromAt, offset, seconds, this.clock.now(), caller.tokenHash);
      this.jobs.enqueue(EXPORT_RECORDING, { exportId: id }, undefined, caller.organizationId);
    })();
    return this.entry(this.row(id)!);
  }

  /** 429 `limit_reached` past the conversions under way of the stream or of the caller's token. */
  private assertUnderCaps(caller: Caller, streamId: string): void {
    const underWay = (column: string, value: string) =>
      (
        this.db
          .prepare(`SELECT COUNT(*) AS n FROM exports WHERE ${column} = ? AND status = 'PROCESSING'`)
          .get(value) as { n: number }
      ).n;
    const { perStream, perToken } = this.bounds.conversions;
    const refuse = (what: string) =>
      new ServiceError('limit_reached', `${what}; ask again once one is done.`, undefined, {
        'retry-after': String(CONVERSION_RETRY_AFTER_SECONDS),
      });
    if (underWay('token_hash', caller.tokenHash) >= perToken)
      throw refuse(`This token has ${perToken} conversions under way, the most allowed (--max-conversions-per-token)`);
    if (underWay('live_stream_id', streamId) >= perStream)
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

  /** Of a complete recording, its MP4's; of one going on, its last few segments' (a few file calls, whatever its length). */
  private async bytesPerSecond(recording: RecordingRow): Promise<number> {
    if (recording.state === 'complete') return recording.duration ? recording.size! / recording.duration : 0;
    const dir = this.files.recordingDir(recording.id);
    const recent = (await this.recordings.parts(recording.id))
      .flatMap((p) => p.segments.map((s) => ({ ...s, path: join(dir, `part${p.seq}`, s.file) })))
      .slice(-10);
    const sizes = await Promise.all(recent.map(async (s) => (await stat(s.path).catch(() => ({ size: 0 }))).size));
    const seconds = recent.reduce((sum, s) => sum + s.duration, 0);
    return seconds > 0 ? sizes.reduce((a, b) => a + b, 0) / seconds : 0;
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

  private row(id: string): ExportRow | undefined {
    return this.db.prepare('SELECT * FROM exports WHERE id = ?').get(id) as ExportRow | undefined;
  }

  /**
   * The EXPORT_RECORDING job: cut the part into the new video's source, then the normal pipeline. The cut runs at a
   * low priority (processing/cut.ts) and within the time processing would have for the part; past it, ffmpeg is killed.
   */
  async run(exportId: string, stop: AbortSignal): Promise<void> {
    const row = this.row(exportId);
    if (!row || row.status !== 'PROCESSING' || this.videos.row(row.video_id)?.size != null) return;
    // #10 checked the room; should the disk have filled since, the accepted conversion waits as processing does.
    const recording = this.recordings.row(row.recording_id);
    if (recording) await waitForRoom(this.files, await this.bytesNeeded(recording, row.duration), this.clock);
    const source = this.files.source(row.video_id);
    const { baseSeconds, secondsPerMediaSecond } = this.bounds.processing;
    const allowed = baseSeconds + secondsPerMediaSecond * row.duration;
    const timeUp = AbortSignal.timeout(Math.ceil(allowed * 1000));
    const signal = AbortSignal.any([stop, timeUp]);
    let snapshot: string | undefined;
    try {
      await mkdir(join(source, '..'), { recursive: true });
      // A complete recording is cut from its MP4; one still going on from the playlist of the publish holding
      // the part, as it stands (Recordings.liveSource), re-encoded whole: both on the same timeline.
      const complete = this.recordings.row(row.recording_id)?.state === 'complete';
      const live = complete ? undefined : await this.recordings.liveSource(row.recording_id, row.from_at);
      if (!complete && !live) throw new Error('the recording has no media at from any more');
      snapshot = live?.playlist;
      await cutPart(
        live?.playlist ?? join(this.files.recordingDir(row.recording_id), 'recording.mp4'),
        live?.offset ?? row.offset,
        row.duration,
        `${source}.mp4`,
        live ? 'whole' : this.strategy,
        signal,
      );
      await rename(`${source}.mp4`, source);
    } catch (err) {
      if (stop.aborted) throw err;
      this.videos.markFailed(
        row.video_id,
        timeUp.aborted
          ? `Cutting took longer than the ${spoken(allowed)} allowed for ${spoken(row.duration)} of media (--processing-base-seconds + --processing-seconds-per-media-second × its length), so it was stopped.`
          : `The recording could not be cut: ${(err as Error).message}`,
      );
      await this.videoDone(row.video_id);
      return;
    } finally {
      if (snapshot) await rm(snapshot, { force: true });
    }
    // Never a throw between the cut and the queued processing: the entry would stay PROCESSING, holding its caps.
    this.videos.startProcessing(row.video_id, (await stat(source).catch(() => ({ size: 0 }))).size, null);
  }

  /** The pipeline finished a video; if it came from a conversion, that entry is EXPORTED (or FAILED). */
  async videoDone(videoId: string): Promise<void> {
    const video = this.videos.row(videoId);
    if (!video) return;
    if (video.status === 'ready') {
      const { size: bytes } = await stat(this.files.media(videoId, 'download.mp4')).catch(() => ({ size: 0 }));
      this.db
        .prepare(`UPDATE exports SET status = 'EXPORTED', bytes = ? WHERE video_id = ? AND status = 'PROCESSING'`)
        .run(bytes, videoId);
    } else if (video.status === 'failed') {
      this.db.prepare(`UPDATE exports SET status = 'FAILED' WHERE video_id = ? AND status = 'PROCESSING'`).run(videoId);
    }
  }

  /** Seconds of the organization's conversions under way, at the duration asked (hosting minutes, domain/usage.ts). */
  pendingSeconds(organizationId: string): number {
    // From the conversions under way (few: they are capped), not from every video of the organization; which of
    // their videos are the organization's is for Videos to say (each module reads its own tables only).
    const pending = this.db.prepare(`SELECT video_id, duration FROM exports WHERE status = 'PROCESSING'`).all() as {
      video_id: string;
      duration: number;
    }[];
    const mine = new Set(this.videos.ofOrganization(organizationId, [...new Set(pending.map((e) => e.video_id))]));
    return pending.reduce((sum, e) => sum + (mine.has(e.video_id) ? e.duration : 0), 0);
  }

  /** A recording is deleted (domain/recordings.ts, in its transaction): its conversions' entries go with it; the videos stay. */
  forgetRecording(recordingId: string): void {
    this.db.prepare('DELETE FROM exports WHERE recording_id = ?').run(recordingId);
  }

  /** A purge (domain/usage.ts): the entries of these videos. */
  purge(videoIds: string[]): void {
    for (const id of videoIds) this.db.prepare('DELETE FROM exports WHERE video_id = ?').run(id);
  }
}
