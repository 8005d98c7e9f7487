import type {
  Environment,
  ImportProgress,
  MediaInfo,
  VideoDetails,
  VideoObject,
  VideoStatus,
} from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import { engineOf, type Db, type Executor } from '../db/index.js';
import { isId, newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import type { Files } from '../storage/files.js';
import { owned, type Accounts, type Caller } from './accounts.js';
import { notFound, ServiceError } from './errors.js';
import { assertUnderCaps, capReached, type OpenUploadCaps } from './open-uploads.js';

/** How long a claim on a video's completion holds unrenewed (Videos.claimCompleting). */
const CLAIM_HOLDS_MS = 30_000;

/** A video's completion, claimed (Videos.claimCompleting): renewed until released. */
export interface CompletingClaim {
  release(): Promise<void>;
}

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
  /** While #6 completes its multipart upload: until when (claimCompleting). */
  completing_until: number | null;
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
  importOf: (id: string) => Promise<ImportProgress | null>;
  /** The organization's lock, held while its caps are counted (domain/accounts.ts). */
  accounts: Accounts;
  caps: OpenUploadCaps;
  queueCaps?: QueueCaps;
  /**
   * Where a video's media folder is served from when not by this API: a store's `--media-base-url` (a CDN or a public
   * bucket), so that a player never passes through the API (storage/s3-media.ts). Unset: `/media/<id>/` here.
   */
  publicMedia?: (row: VideoRow) => string;
}

/** Video objects (#1, #8) and their life: waiting → processing → ready | failed. */
export class Videos {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly apiOrigin: () => string;
  private readonly files: Files;
  private readonly importOf: (id: string) => Promise<ImportProgress | null>;
  private readonly accounts: Accounts;
  private readonly caps: OpenUploadCaps;
  private readonly queueCaps: QueueCaps;
  private readonly publicMedia: (row: VideoRow) => string;

  constructor(options: VideosOptions) {
    ({
      db: this.db,
      clock: this.clock,
      jobs: this.jobs,
      apiOrigin: this.apiOrigin,
      files: this.files,
      importOf: this.importOf,
      accounts: this.accounts,
      caps: this.caps,
      queueCaps: this.queueCaps = DEFAULT_QUEUE_CAPS,
      publicMedia: this.publicMedia = (row) => `${this.apiOrigin()}/media/${row.id}/`,
    } = options);
  }

  /**
   * The path of a playback file (no token: the ids are unguessable). 404 until the video is ready, and for
   * any name playback does not serve. `rendition` undefined: a file of the video itself.
   */
  async mediaFile(id: string, rendition: string | undefined, name: string): Promise<string> {
    const row = isId(id) ? await this.row(id) : undefined;
    if (!row) throw notFound(`Video ${JSON.stringify(id)}`);
    if (row.status !== 'ready')
      throw new ServiceError('not_ready', `Video ${id} is not ready yet (status ${row.status}).`);
    const ok = rendition === undefined ? FILE.test(name) : RENDITION.test(rendition) && RENDITION_FILE.test(name);
    if (!ok) throw notFound(`The file ${JSON.stringify(name)}`);
    return this.files.media(id, rendition === undefined ? name : `${rendition}/${name}`);
  }

  /** The embed page's video: its HLS address and status (any status: the page says what it waits for). */
  async embed(id: string): Promise<{ hlsUrl: string; status: VideoStatus }> {
    const row = isId(id) ? await this.row(id) : undefined;
    if (!row) throw notFound(`Video ${JSON.stringify(id)}`);
    return { hlsUrl: this.object(row).playback.hls_url, status: row.status };
  }

  /**
   * #1, or a conversion (#10), which names its live stream and is processing from the start (inside the
   * conversion's transaction, `db`). #1 counts the videos waiting and inserts in one transaction holding the
   * organization's lock: requests at once never pass its caps together.
   */
  async create(
    caller: Caller,
    fileName: string | null,
    liveStreamId: string | null = null,
    db: Executor = this.db,
  ): Promise<VideoObject> {
    const id = newId();
    const now = this.clock.now();
    const insert = (trx: Executor) =>
      trx
        .insertInto('videos')
        .values({
          id,
          organization_id: caller.organizationId,
          user_id: caller.userId,
          end_user: caller.endUser,
          environment: caller.environment,
          status: liveStreamId ? 'processing' : 'waiting',
          file_name: fileName,
          live_stream_id: liveStreamId,
          token_hash: caller.tokenHash,
          created_at: now,
          updated_at: now,
        })
        .execute();
    if (liveStreamId) await insert(db);
    else
      await db.transaction().execute(async (trx) => {
        await this.accounts.lockOrganization(trx, caller.organizationId);
        await this.assertUnderWaitingCaps(trx, caller, now);
        await insert(trx);
      });
    return this.object((await this.row(id, db))!);
  }

  private async assertUnderWaitingCaps(trx: Executor, caller: Caller, now: number): Promise<void> {
    const since = now - WAITING_COUNTS_FOR_MS;
    await assertUnderCaps(
      this.caps,
      caller,
      now,
      'videos waiting for their file',
      'upload a file to one of them first, or wait until the oldest, a day old, stops counting.',
      async (user) => {
        let query = trx
          .selectFrom('videos')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
          .where('organization_id', '=', caller.organizationId)
          .where('status', '=', 'waiting')
          .where('created_at', '>', since);
        if (user !== undefined)
          query = user === null ? query.where('end_user', 'is', null) : query.where('end_user', '=', user);
        const row = (await query.executeTakeFirstOrThrow()) as { n: number | string; oldest: number | null };
        return { n: Number(row.n), freesAt: row.oldest === null ? null : Number(row.oldest) + WAITING_COUNTS_FOR_MS };
      },
    );
  }

  /** #8. */
  async get(caller: Caller, id: string): Promise<VideoDetails> {
    return this.details(await this.find(caller, id));
  }

  /** #11. Decision: the permanent videos converted from the stream, as #8 shows them, oldest first. */
  async convertedFrom(streamId: string): Promise<VideoDetails[]> {
    const rows = await this.db
      .selectFrom('videos')
      .selectAll()
      .where('live_stream_id', '=', streamId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return Promise.all(rows.map((r) => this.details(r as VideoRow)));
  }

  /** Seconds of the organization's ready videos (hosting minutes, domain/usage.ts). */
  async readySeconds(organizationId: string): Promise<number> {
    const { s } = await this.db
      .selectFrom('videos')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('duration'), eb.lit(0)).as('s'))
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'ready')
      .executeTakeFirstOrThrow();
    return Number(s);
  }

  /** Bytes of the organization's sources (uploads, imports, conversions), for its storage quota (domain/usage.ts). */
  async storedBytes(organizationId: string): Promise<number> {
    const { b } = await this.db
      .selectFrom('videos')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('b'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(b);
  }

  /** The bytes of every video's source, of all organizations (what /metrics shows as stored). */
  async allStoredBytes(): Promise<number> {
    const { b } = await this.db
      .selectFrom('videos')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('b'))
      .executeTakeFirstOrThrow();
    return Number(b);
  }

  async ids(organizationId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('videos')
      .select('id')
      .where('organization_id', '=', organizationId)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Deletes the organization's video rows (their files and uploads are gone first: domain/usage.ts). */
  async deleteAll(organizationId: string, db: Executor = this.db): Promise<void> {
    await db.deleteFrom('videos').where('organization_id', '=', organizationId).execute();
  }

  async row(id: string, db: Executor = this.db): Promise<VideoRow | undefined> {
    return (await db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst()) as VideoRow | undefined;
  }

  /**
   * The video's row, held until the transaction `trx` ends (PostgreSQL: FOR UPDATE; SQLite: the transaction is
   * the file's one writer once it writes), so that two ways of giving it its file at once, in any processes,
   * are taken one after the other and the second finds it no longer waiting.
   */
  async lock(id: string, trx: Executor): Promise<VideoRow | undefined> {
    const query = trx.selectFrom('videos').selectAll().where('id', '=', id);
    return (await (engineOf(trx) === 'postgres' ? query.forUpdate() : query).executeTakeFirst()) as
      VideoRow | undefined;
  }

  /**
   * A video the caller may see. Another organization's (or environment's) video is a 404, never a 403; so is,
   * for an upload token, another end user's video, and for a clip token, a video not converted from its stream.
   * Decision: an upload token minted without `user` sees only the videos it made itself (not its key's, nor
   * another such token's), so a token refreshed without a user cannot continue the last one's upload: name a
   * `user` when minting for that.
   */
  async find(caller: Caller, id: string): Promise<VideoRow> {
    const row = isId(id) ? await this.row(id) : undefined;
    const visible =
      caller.scope === 'key' ||
      (caller.scope === 'upload' &&
        row?.end_user === caller.endUser &&
        (caller.endUser !== null || row.token_hash === caller.tokenHash)) ||
      (caller.scope === 'clip' && row?.live_stream_id !== null && row?.live_stream_id === caller.liveStreamId);
    return owned(caller, visible ? row : undefined, `Video ${JSON.stringify(id)}`);
  }

  object(row: VideoRow): VideoObject {
    const media = this.publicMedia(row);
    const ready = row.status === 'ready';
    return {
      _id: row.id,
      playback: {
        embed_url: `${this.apiOrigin()}/embed/${row.id}`,
        hls_url: `${media}index.m3u8`,
        poster_url: ready && row.has_video ? `${media}poster.jpg` : null,
      },
      // The integrator's end user, when an upload token named one; else the organization's user.
      user: row.end_user ?? row.user_id,
      environment: row.environment,
      organization: row.organization_id,
      creation_time: iso(row.created_at),
    };
  }

  async details(row: VideoRow): Promise<VideoDetails> {
    return {
      ...this.object(row),
      status: row.status,
      failure_reason: row.failure_reason,
      download_url: this.downloadUrl(row),
      duration: row.duration,
      size: row.size,
      file_name: row.file_name,
      upload_method: row.upload_method,
      // Only an import has one (startImport names the method as it begins): no query for the others.
      import: row.upload_method === 'import' ? await this.importOf(row.id) : null,
      live_stream_id: row.live_stream_id,
      mediainfo: row.mediainfo ? (JSON.parse(row.mediainfo) as MediaInfo) : null,
      update_time: iso(row.updated_at),
      ready_time: row.ready_at === null ? null : iso(row.ready_at),
    };
  }

  /** The processed MP4; null until the video is ready. */
  downloadUrl(row: VideoRow): string | null {
    return row.status === 'ready' ? `${this.publicMedia(row)}download.mp4` : null;
  }

  /** Which of these videos are the organization's (a few at a time: conversions under way, domain/exports.ts). */
  async ofOrganization(organizationId: string, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('videos')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * The source is complete on disk: queue its processing. Call inside the transaction that accepts the upload
   * (`db`), so that the video's state and its job commit together.
   */
  async startProcessing(id: string, size: number, method: UploadMethod | null, db: Executor = this.db): Promise<void> {
    await db
      .updateTable('videos')
      .set({ status: 'processing', size, upload_method: method, updated_at: this.clock.now() })
      .where('id', '=', id)
      .execute();
    // Grouped by organization: the job runner takes turns between organizations (app.ts).
    const { organization_id } = (await this.row(id, db))!;
    await this.jobs.enqueue(PROCESS_VIDEO, { videoId: id }, { group: organization_id, db });
  }

  /** An import begins (domain/imports.ts): the video is processing from now, its file on the way. */
  async startImport(video: VideoRow, db: Executor = this.db): Promise<void> {
    this.assertWaiting(video);
    await db
      .updateTable('videos')
      .set({ status: 'processing', upload_method: 'import', updated_at: this.clock.now() })
      .where('id', '=', video.id)
      .execute();
  }

  /**
   * Refuses (429 `queue_full`) a new upload (#2, #3) or import while the organization, or the upload token's end
   * user, has as many videos processing as its cap. Checked when the work is asked for, never when bytes arrive;
   * inside the transaction (`db`) that holds the organization's lock and records what was asked for.
   */
  async assertQueueRoom(caller: Caller, db: Executor = this.db): Promise<void> {
    const processing = (endUser?: string) => {
      let query = db
        .selectFrom('videos')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', caller.organizationId)
        .where('status', '=', 'processing')
        .where('live_stream_id', 'is', null);
      if (endUser !== undefined) query = query.where('end_user', '=', endUser);
      return query.executeTakeFirstOrThrow().then((r) => Number(r.n));
    };
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
    full(await processing(), this.queueCaps.perOrganization, 'This organization', '--max-queued-per-organization');
    if (caller.scope !== 'upload' || caller.endUser === null) return;
    full(await processing(caller.endUser), this.queueCaps.perUser, 'This end user', '--max-queued-per-user');
  }

  /** A video takes its file once, by whichever way (#2, #3–#6, an import): after that, 409 `already_uploaded`. */
  assertWaiting(video: VideoRow): void {
    if (video.status !== 'waiting')
      throw new ServiceError('already_uploaded', `Video ${video.id} already has its file (status ${video.status}).`);
  }

  /**
   * #6 begins completing the video's multipart upload, or #8 or the sweeper take a #2 upload in from the store
   * (domain/uploads.ts): the claim, when no other completion of it (by any process, of any session) holds it. One
   * conditional update, so two at once never both win. The claim holds CLAIM_HOLDS_MS and is renewed while its
   * holder works, so one whose release was lost (its process died, or the database went away meanwhile) passes
   * within that time; the work's own transaction is guarded on the video's state, so even a claim that ran out
   * mid-work never lets a video take two files.
   */
  async claimCompleting(id: string): Promise<CompletingClaim | undefined> {
    let until = this.clock.now() + CLAIM_HOLDS_MS;
    const r = await this.db
      .updateTable('videos')
      .set({ completing_until: until })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('completing_until', 'is', null), eb('completing_until', '<=', this.clock.now())]))
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) return undefined;
    let renewed = Promise.resolve();
    const renewing = setInterval(() => {
      const next = this.clock.now() + CLAIM_HOLDS_MS;
      renewed = this.db
        .updateTable('videos')
        .set({ completing_until: next })
        .where('id', '=', id)
        .where('completing_until', '=', until)
        .execute()
        .then(
          () => void (until = next),
          () => {}, // the database away: the next renewal tries again, and the work's own transaction fails
        );
    }, CLAIM_HOLDS_MS / 3);
    return {
      release: async () => {
        clearInterval(renewing);
        await renewed; // the release names the end the last renewal set
        // Lost (the database away), the claim passes at its end.
        await this.db
          .updateTable('videos')
          .set({ completing_until: null })
          .where('id', '=', id)
          .where('completing_until', '=', until)
          .execute()
          .catch(() => {});
      },
    };
  }

  /** Whether #6 is completing the video's upload now (#7 and the sweeper leave its session alone meanwhile). */
  isCompleting(row: VideoRow): boolean {
    return row.completing_until != null && row.completing_until > this.clock.now();
  }

  /**
   * Processing made the video's media: it is ready. Only a video still processing becomes ready, so a job run again
   * after its end was recorded, or a worker that lost its lease, changes nothing; returns whether this call did it
   * (the one that announces it, domain/ready.ts). Inside the caller's transaction (`db`) when given.
   */
  async markReady(
    id: string,
    result: { duration: number; hasVideo: boolean; mediainfo: MediaInfo },
    db: Executor = this.db,
  ): Promise<boolean> {
    const now = this.clock.now();
    const { numUpdatedRows } = await db
      .updateTable('videos')
      .set({
        status: 'ready',
        failure_reason: null,
        duration: result.duration,
        has_video: result.hasVideo ? 1 : 0,
        mediainfo: JSON.stringify(result.mediainfo),
        updated_at: now,
        ready_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  /**
   * The video's processing (or import, or conversion) failed. As markReady, only a video still processing: a ready
   * video stays ready whatever a late run says. Returns whether this call failed it.
   * Every failure_reason passes here: a server path in it becomes its last part (a client never sees where files live).
   */
  async markFailed(id: string, reason: string, db: Executor = this.db): Promise<boolean> {
    const { numUpdatedRows } = await db
      .updateTable('videos')
      .set({ status: 'failed', failure_reason: withoutPaths(reason), updated_at: this.clock.now() })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }
}

// Not within an address (`s3://bucket/key`, `http://host/…`): the store's messages name the object that failed.
const withoutPaths = (text: string) => text.replace(/(?<!:\/*|:\/\/\S*)(?:\/[^\s/'"():,]+)+\/([^\s/'"():,]+)/g, '$1');
