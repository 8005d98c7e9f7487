import type {
  Environment,
  ImportProgress,
  MediaInfo,
  VideoDetails,
  VideoObject,
  VideoStatus,
} from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import type { Db } from '../db.js';
import { isId, newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import type { Files } from '../storage/files.js';
import { owned, type Caller } from './accounts.js';
import { notFound, ServiceError } from './errors.js';
import { assertUnderCaps, capReached, type OpenUploadCaps } from './open-uploads.js';

export interface VideoRow {
  id: string;
  organization_id: string;
  user_id: string;
  end_user: string | null;
  environment: Environment;
  status: VideoStatus;
  failure_reason: string | null;
  file_name: string | null;
  upload_method: UploadMethod | null;
  size: number | null;
  duration: number | null;
  has_video: number | null;
  mediainfo: string | null;
  created_at: number;
  updated_at: number;
  ready_at: number | null;
  live_stream_id: string | null;
  /** The token that made it (domain/accounts.ts, Caller.tokenHash). */
  token_hash: string | null;
}

export const PROCESS_VIDEO = 'process-video';
// What the job carries, checked where it is enqueued and where it runs (service/jobs.ts, JobPayloads).
declare module '../jobs.js' {
  interface JobPayloads {
    [PROCESS_VIDEO]: { videoId: string };
  }
}

/**
 * Decisions (docs/security.md): how many videos may be processing (their file accepted and queued or being
 * processed, or an import under way; conversions have caps of their own) per organization and per end user of
 * an upload token. Past a cap, new uploads and imports wait (429 `queue_full`, Retry-After); what was accepted
 * is never refused. 20 is more than a person sends at once; 500 is hours of work of one organization's turns.
 */
export interface QueueCaps {
  perOrganization: number;
  perUser: number;
}
export const DEFAULT_QUEUE_CAPS: QueueCaps = { perOrganization: 500, perUser: 20 };
/** About the time a short video takes to process: when to try again after `queue_full`. */
export const QUEUE_RETRY_AFTER_SECONDS = 30;
type UploadMethod = 'single' | 'multipart' | 'import';
/** What playback serves of a ready video: the master playlist, the MP4, the poster, and each rendition's files. */
const FILE = /^(index\.m3u8|download\.mp4|poster\.jpg)$/;
const RENDITION = /^(main|\d{3,4}p)$/;
const RENDITION_FILE = /^(stream\.m3u8|seg\d{4,6}\.ts)$/;
/** A video waiting for its file counts against the caps for a day after it was made (domain/open-uploads.ts). */
const WAITING_COUNTS_FOR_MS = 24 * 60 * 60 * 1000;

export interface VideosOptions {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  apiOrigin: () => string;
  files: Files;
  /** An import's progress (domain/imports.ts), for #8. */
  importOf: (id: string) => ImportProgress | null;
  caps: OpenUploadCaps;
  queueCaps?: QueueCaps;
}

/** Video objects (#1, #8) and their life: waiting → processing → ready | failed. */
export class Videos {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly apiOrigin: () => string;
  private readonly files: Files;
  private readonly importOf: (id: string) => ImportProgress | null;
  private readonly caps: OpenUploadCaps;
  private readonly queueCaps: QueueCaps;

  constructor(options: VideosOptions) {
    ({
      db: this.db,
      clock: this.clock,
      jobs: this.jobs,
      apiOrigin: this.apiOrigin,
      files: this.files,
      importOf: this.importOf,
      caps: this.caps,
      queueCaps: this.queueCaps = DEFAULT_QUEUE_CAPS,
    } = options);
  }

  /**
   * The path of a playback file (no token: the ids are unguessable). 404 until the video is ready, and for
   * any name playback does not serve. `rendition` undefined: a file of the video itself.
   */
  mediaFile(id: string, rendition: string | undefined, name: string): string {
    const row = isId(id) ? this.row(id) : undefined;
    if (!row) throw notFound(`Video ${JSON.stringify(id)}`);
    if (row.status !== 'ready')
      throw new ServiceError('not_ready', `Video ${id} is not ready yet (status ${row.status}).`);
    const ok = rendition === undefined ? FILE.test(name) : RENDITION.test(rendition) && RENDITION_FILE.test(name);
    if (!ok) throw notFound(`The file ${JSON.stringify(name)}`);
    return this.files.media(id, rendition === undefined ? name : `${rendition}/${name}`);
  }

  /** The embed page's video: its HLS address and status (any status: the page says what it waits for). */
  embed(id: string): { hlsUrl: string; status: VideoStatus } {
    const row = isId(id) ? this.row(id) : undefined;
    if (!row) throw notFound(`Video ${JSON.stringify(id)}`);
    return { hlsUrl: this.object(row).playback.hls_url, status: row.status };
  }

  /** #1, or a conversion (#10), which names its live stream and is processing from the start. */
  create(caller: Caller, fileName: string | null, liveStreamId: string | null = null): VideoObject {
    const id = newId();
    const now = this.clock.now();
    if (!liveStreamId) this.assertUnderWaitingCaps(caller, now);
    this.db
      .prepare(
        `INSERT INTO videos (id, organization_id, user_id, end_user, environment, status, file_name, live_stream_id, token_hash, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        caller.organizationId,
        caller.userId,
        caller.endUser,
        caller.environment,
        liveStreamId ? 'processing' : 'waiting',
        fileName,
        liveStreamId,
        caller.tokenHash,
        now,
        now,
      );
    return this.object(this.row(id)!);
  }

  private assertUnderWaitingCaps(caller: Caller, now: number): void {
    const since = now - WAITING_COUNTS_FOR_MS;
    assertUnderCaps(
      this.caps,
      caller,
      now,
      'videos waiting for their file',
      'upload a file to one of them first, or wait until the oldest, a day old, stops counting.',
      (user) => {
        const row = this.db
          .prepare(
            `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM videos WHERE organization_id = ?
             ${user === undefined ? '' : 'AND end_user IS ?'} AND status = 'waiting' AND created_at > ?`,
          )
          .get(caller.organizationId, ...(user === undefined ? [] : [user]), since) as { n: number; oldest: number };
        return { n: row.n, freesAt: row.oldest === null ? null : row.oldest + WAITING_COUNTS_FOR_MS };
      },
    );
  }

  /** #8. */
  get(caller: Caller, id: string): VideoDetails {
    return this.details(this.find(caller, id));
  }

  /** #11. Decision: the permanent videos converted from the stream, as #8 shows them, oldest first. */
  convertedFrom(streamId: string): VideoDetails[] {
    const rows = this.db
      .prepare('SELECT * FROM videos WHERE live_stream_id = ? ORDER BY created_at, id')
      .all(streamId) as VideoRow[];
    return rows.map((r) => this.details(r));
  }

  /** Seconds of the organization's ready videos (hosting minutes, domain/usage.ts). */
  readySeconds(organizationId: string): number {
    return (
      this.db
        .prepare(`SELECT COALESCE(SUM(duration), 0) AS s FROM videos WHERE organization_id = ? AND status = 'ready'`)
        .get(organizationId) as { s: number }
    ).s;
  }

  /** Bytes of the organization's sources (uploads, imports, conversions), for its storage quota (domain/usage.ts). */
  storedBytes(organizationId: string): number {
    return (
      this.db
        .prepare('SELECT COALESCE(SUM(size), 0) AS b FROM videos WHERE organization_id = ?')
        .get(organizationId) as { b: number }
    ).b;
  }

  ids(organizationId: string): string[] {
    return (
      this.db.prepare('SELECT id FROM videos WHERE organization_id = ?').all(organizationId) as { id: string }[]
    ).map((r) => r.id);
  }

  /** Deletes the organization's video rows (their files and uploads are gone first: domain/usage.ts). */
  deleteAll(organizationId: string): void {
    this.db.prepare('DELETE FROM videos WHERE organization_id = ?').run(organizationId);
  }

  row(id: string): VideoRow | undefined {
    return this.db.prepare('SELECT * FROM videos WHERE id = ?').get(id) as VideoRow | undefined;
  }

  /**
   * A video the caller may see. Another organization's (or environment's) video is a 404, never a 403; so is,
   * for an upload token, another end user's video, and for a clip token, a video not converted from its stream.
   * Decision: an upload token minted without `user` sees only the videos it made itself (not its key's, nor
   * another such token's), so a token refreshed without a user cannot continue the last one's upload: name a
   * `user` when minting for that.
   */
  find(caller: Caller, id: string): VideoRow {
    const row = isId(id) ? this.row(id) : undefined;
    const visible =
      caller.scope === 'key' ||
      (caller.scope === 'upload' &&
        row?.end_user === caller.endUser &&
        (caller.endUser !== null || row.token_hash === caller.tokenHash)) ||
      (caller.scope === 'clip' && row?.live_stream_id !== null && row?.live_stream_id === caller.liveStreamId);
    return owned(caller, visible ? row : undefined, `Video ${JSON.stringify(id)}`);
  }

  object(row: VideoRow): VideoObject {
    const media = `${this.apiOrigin()}/media/${row.id}`;
    const ready = row.status === 'ready';
    return {
      _id: row.id,
      playback: {
        embed_url: `${this.apiOrigin()}/embed/${row.id}`,
        hls_url: `${media}/index.m3u8`,
        poster_url: ready && row.has_video ? `${media}/poster.jpg` : null,
      },
      // The integrator's end user, when an upload token named one; else the organization's user.
      user: row.end_user ?? row.user_id,
      environment: row.environment,
      organization: row.organization_id,
      creation_time: iso(row.created_at),
    };
  }

  details(row: VideoRow): VideoDetails {
    return {
      ...this.object(row),
      status: row.status,
      failure_reason: row.failure_reason,
      download_url: this.downloadUrl(row),
      duration: row.duration,
      size: row.size,
      file_name: row.file_name,
      upload_method: row.upload_method,
      import: this.importOf(row.id),
      live_stream_id: row.live_stream_id,
      mediainfo: row.mediainfo ? (JSON.parse(row.mediainfo) as MediaInfo) : null,
      update_time: iso(row.updated_at),
      ready_time: row.ready_at === null ? null : iso(row.ready_at),
    };
  }

  /** The processed MP4; null until the video is ready. */
  downloadUrl(row: VideoRow): string | null {
    return row.status === 'ready' ? `${this.apiOrigin()}/media/${row.id}/download.mp4` : null;
  }

  /** Which of these videos are the organization's (a few at a time: conversions under way, domain/exports.ts). */
  ofOrganization(organizationId: string, ids: string[]): string[] {
    if (ids.length === 0) return [];
    return (
      this.db
        .prepare(`SELECT id FROM videos WHERE organization_id = ? AND id IN (${ids.map(() => '?').join(', ')})`)
        .all(organizationId, ...ids) as { id: string }[]
    ).map((r) => r.id);
  }

  /** The source is complete on disk: queue its processing. Call inside the transaction that accepts the upload. */
  startProcessing(id: string, size: number, method: UploadMethod | null): void {
    this.db
      .prepare(`UPDATE videos SET status = 'processing', size = ?, upload_method = ?, updated_at = ? WHERE id = ?`)
      .run(size, method, this.clock.now(), id);
    // Grouped by organization: the job runner takes turns between organizations (app.ts).
    const { organization_id } = this.row(id)!;
    this.jobs.enqueue(PROCESS_VIDEO, { videoId: id }, undefined, organization_id);
  }

  /** An import begins (domain/imports.ts): the video is processing from now, its file on the way. */
  startImport(video: VideoRow): void {
    this.assertWaiting(video);
    this.db
      .prepare(`UPDATE videos SET status = 'processing', upload_method = 'import', updated_at = ? WHERE id = ?`)
      .run(this.clock.now(), video.id);
  }

  /**
   * Refuses (429 `queue_full`) a new upload (#2, #3) or import while the organization, or the upload token's end
   * user, has as many videos processing as its cap. Checked when the work is asked for, never when bytes arrive.
   */
  assertQueueRoom(caller: Caller): void {
    const processing = `SELECT COUNT(*) AS n FROM videos WHERE organization_id = ? AND status = 'processing'
      AND live_stream_id IS NULL`;
    const full = (n: number, cap: number, who: string, flag: string) => {
      if (n >= cap)
        throw capReached(
          'queue_full',
          who,
          n,
          'videos processing',
          flag,
          'try again when some are ready.',
          QUEUE_RETRY_AFTER_SECONDS,
        );
    };
    const org = this.db.prepare(processing).get(caller.organizationId) as { n: number };
    full(org.n, this.queueCaps.perOrganization, 'This organization', '--max-queued-per-organization');
    if (caller.scope !== 'upload' || caller.endUser === null) return;
    const user = this.db.prepare(`${processing} AND end_user = ?`).get(caller.organizationId, caller.endUser) as {
      n: number;
    };
    full(user.n, this.queueCaps.perUser, 'This end user', '--max-queued-per-user');
  }

  /** A video takes its file once, by whichever way (#2, #3–#6, an import): after that, 409 `already_uploaded`. */
  assertWaiting(video: VideoRow): void {
    if (video.status !== 'waiting')
      throw new ServiceError('already_uploaded', `Video ${video.id} already has its file (status ${video.status}).`);
  }

  markReady(id: string, result: { duration: number; hasVideo: boolean; mediainfo: MediaInfo }): void {
    const now = this.clock.now();
    this.db
      .prepare(
        `UPDATE videos SET status = 'ready', failure_reason = NULL, duration = ?, has_video = ?, mediainfo = ?,
         updated_at = ?, ready_at = ? WHERE id = ?`,
      )
      .run(result.duration, result.hasVideo ? 1 : 0, JSON.stringify(result.mediainfo), now, now, id);
  }

  /** Every failure_reason passes here: a server path in it becomes its last part (a client never sees where files live). */
  markFailed(id: string, reason: string): void {
    this.db
      .prepare(`UPDATE videos SET status = 'failed', failure_reason = ?, updated_at = ? WHERE id = ?`)
      .run(withoutPaths(reason), this.clock.now(), id);
  }
}

const withoutPaths = (text: string) => text.replace(/(?:\/[^\s/'"():,]+)+\/([^\s/'"():,]+)/g, '$1');
