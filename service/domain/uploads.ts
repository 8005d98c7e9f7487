import { MAX_PART_BYTES, UPLOAD_TTL_MS } from '../../src/api/limits.js';
import type {
  AbortRequest,
  AbortResponse,
  ChunkDetail,
  ChunkUrlRequest,
  CompleteRequest,
  CompleteResponse,
  MultipartSession,
  UploadUrlResponse,
} from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import { engineOf, type Db, type Executor } from '../db/index.js';
import { newId, newSecret } from '../ids.js';
import type { Accounts, Caller } from './accounts.js';
import { badField, notFound, ServiceError, show } from './errors.js';
import { assertUnderCaps, type Open, type OpenUploadCaps } from './open-uploads.js';
import type { Usage } from './usage.js';
import type { Videos } from './videos.js';

interface SessionRow {
  key: string;
  video_id: string;
  created_at: number;
  expires_at: number;
  state: 'open' | 'completed' | 'aborted';
  token_hash: string | null;
  upload_id: string | null;
}
interface ChunkRow {
  chunk_id: number;
  etag: string;
  size: number;
  file: string;
}

const KEY_SHAPE = /^mpu_[A-Za-z0-9_-]{32}$/;
/** Decision: an expired session can still be completed or aborted for a day; then the sweeper aborts it. */
export const ABANDONED_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;
/**
 * Decision: on a direct store, the sweeper asks the store about open #2 links every 5 s (a HeadObject each), and
 * lists what links received (one ListObjectsV2) to delete what nobody waits for.
 */
const LINK_SWEEP_MS = 5000;

/**
 * Where the bytes of uploads are stored, as the rules below ask for them: links the browser PUTs to, room, the
 * chunks joined into a video's source, and their deletion. The local disk with its storage origin is one
 * (storage/local.ts, whose origin takes the PUTs and hands them here: storage/server.ts, UploadOrigin).
 */
export interface UploadStore {
  /** A URL that takes one PUT of a video's whole file (#2), until `expiresAt`. */
  linkUrl(linkId: string, expiresAt: number): string;
  /** A URL that takes chunk `chunkId` of the session `key` (#4), until `expiresAt`. */
  chunkUrl(key: string, chunkId: number, expiresAt: number): string;
  /** 507 unless `bytes` more fit (the source #6 will have processing join). */
  assertRoom(bytes: number): Promise<void>;
  /** The session's chunks (the names the store gave them), in order, joined into the video's source unless it has one. */
  assemble(videoId: string, key: string, chunks: string[]): Promise<void>;
  /** Deletes these chunks of a session. */
  removeChunks(key: string, chunks: string[]): Promise<void>;
  /** Deletes whatever is stored for a session. */
  removeSession(key: string): Promise<void>;
  /** At start, before any writer: what writes cut short by a crash left. */
  sweepTemporary(): Promise<void>;
}

/** The video an upload is for, as a store that keys objects by organization names it. */
export interface UploadTarget {
  organizationId: string;
  videoId: string;
}

/**
 * A store the browser PUTs to directly (an S3 store, storage/s3-uploads.ts): no byte reaches the service, so the
 * store is asked what it holds. Signing times are given (a link's or a session's creation) so that every process
 * signs the same URL.
 */
export interface DirectUploads {
  /** #2: a link for one PUT of the whole file, to a place of the link's own. */
  linkUrl(target: UploadTarget, linkId: string, signedAt: number, expiresAt: number): Promise<string>;
  /** #3: a multipart upload begun in the store; its id. */
  begin(target: UploadTarget): Promise<string>;
  /** #4: a link for one chunk of the upload `uploadId`. */
  chunkUrl(
    target: UploadTarget,
    uploadId: string,
    chunkId: number,
    signedAt: number,
    expiresAt: number,
  ): Promise<string>;
  /**
   * #6: the spec's checks on what the store holds, then `admit(size)` (the quota; it throws to refuse), then the
   * chunks joined; the source's size.
   */
  complete(
    target: UploadTarget,
    uploadId: string,
    chunks: ChunkDetail[],
    admit: (size: number) => void,
  ): Promise<{ size: number }>;
  /** #7 and the sweeper: the store drops the parts (an upload it no longer has is done). */
  abort(target: UploadTarget, uploadId: string): Promise<void>;
  /** The file the browser PUT by the #2 link `linkId`, if it did: its size and ETag. */
  uploaded(target: UploadTarget, linkId: string): Promise<{ size: number; etag: string } | null>;
  /** That file, the version `etag`, becomes the video's source; false when it was replaced or deleted meanwhile. */
  take(target: UploadTarget, linkId: string, etag: string): Promise<boolean>;
  /** What the link `linkId` received goes: refused (too large, over the quota), or taken in. */
  discard(target: UploadTarget, linkId: string): Promise<void>;
  /** By the sweeper: deletes what links received unless `waiting` (given their ids) says they still wait for it. */
  sweepIncoming(waiting: (linkIds: string[]) => Promise<Set<string>>): Promise<void>;
}

export interface UploadsOptions {
  db: Db;
  clock: Clock;
  store: UploadStore;
  videos: Videos;
  usage: Usage;
  accounts: Accounts;
  apiOrigin: () => string;
  caps: OpenUploadCaps;
  /** With an S3 store: the browser's PUTs go to it, and the rules ask it what it holds. */
  direct?: DirectUploads;
}

/**
 * Uploads: the signed link (#2), multipart sessions (#3, #4, #6, #7), and the rules for the bytes the storage
 * takes (#5). The database row is the commit point of every change; files are written first
 * under temporary names and removed after, so a crash at any point loses no accepted byte.
 */
export class Uploads {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly store: UploadStore;
  private readonly videos: Videos;
  private readonly usage: Usage;
  private readonly accounts: Accounts;
  private readonly apiOrigin: () => string;
  private readonly caps: OpenUploadCaps;
  private readonly direct: DirectUploads | undefined;
  /** When the sweeper last asked the store about open links (sweepLinks). */
  private linksSweptAt = -Infinity;

  constructor(options: UploadsOptions) {
    ({
      db: this.db,
      clock: this.clock,
      store: this.store,
      videos: this.videos,
      usage: this.usage,
      accounts: this.accounts,
      apiOrigin: this.apiOrigin,
      caps: this.caps,
      direct: this.direct,
    } = options);
  }

  // #2: a signed link for one PUT of the whole file, valid 6 hours, while the token that asked for it is not revoked.
  // Refused once the hosting-minute or the storage quota is used up. The caps are counted and the link inserted
  // in one transaction holding the organization's lock, so requests at once never pass them together.
  async createLink(caller: Caller, videoId: string): Promise<UploadUrlResponse> {
    const video = await this.videos.find(caller, videoId);
    await this.usage.assertRoom(caller.organizationId, 0);
    this.videos.assertWaiting(video);
    const id = newId();
    const now = this.clock.now();
    const expires = now + UPLOAD_TTL_MS;
    await this.db.transaction().execute(async (trx) => {
      await this.assertRoomLocked(trx, caller, now, 'upload_links');
      await trx
        .insertInto('upload_links')
        .values({
          id,
          video_id: video.id,
          created_at: now,
          expires_at: expires,
          organization_id: video.organization_id,
          end_user: video.end_user,
          token_hash: caller.tokenHash,
        })
        .execute();
    });
    if (this.direct) return { url: await this.direct.linkUrl(target(video), id, now, expires) };
    return { url: this.store.linkUrl(id, expires) };
  }

  // #3: a multipart session, valid 6 hours while its token is not revoked; the quotas and caps as for #2.
  async begin(caller: Caller, videoId: string): Promise<MultipartSession> {
    const video = await this.videos.find(caller, videoId);
    await this.usage.assertRoom(caller.organizationId, 0);
    this.videos.assertWaiting(video);
    const key = newSecret('mpu_');
    const now = this.clock.now();
    const expiresAt = now + UPLOAD_TTL_MS;
    // The store's multipart upload first (a call to the store, not under the organization's lock); given up if
    // the caps refuse the session.
    const uploadId = this.direct ? await this.direct.begin(target(video)) : null;
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.assertRoomLocked(trx, caller, now, 'upload_sessions');
        await trx
          .insertInto('upload_sessions')
          .values({
            key,
            video_id: video.id,
            created_at: now,
            expires_at: expiresAt,
            state: 'open',
            organization_id: video.organization_id,
            end_user: video.end_user,
            token_hash: caller.tokenHash,
            upload_id: uploadId,
          })
          .execute();
      });
    } catch (err) {
      if (uploadId) await this.direct?.abort(target(video), uploadId).catch(() => {});
      throw err;
    }
    return { key, expiresAt };
  }

  // #4: one URL for one chunk of one session. Decision: the URL lives as long as its session.
  async chunkUrl(caller: Caller, { key, chunkId }: ChunkUrlRequest, pathVideoId?: string): Promise<UploadUrlResponse> {
    const session = await this.session(caller, key, pathVideoId);
    this.assertOpen(session);
    await this.accounts.assertSource(session.token_hash);
    if (this.clock.now() >= session.expires_at) {
      throw new ServiceError(
        'session_expired',
        `The multipart session expired at ${iso(session.expires_at)}; no more chunks can be uploaded with it. ` +
          'Complete it with the chunks already uploaded, or abort it and begin a new one.',
      );
    }
    if (this.direct)
      return {
        url: await this.direct.chunkUrl(
          await this.target(session),
          session.upload_id!,
          chunkId,
          session.created_at,
          session.expires_at,
        ),
      };
    return { url: this.store.chunkUrl(session.key, chunkId, session.expires_at) };
  }

  // #6: checks the list against the stored chunks and commits it; the source is assembled when processing starts.
  // One #6 at a time per video, whichever session and whichever process: the video is claimed by a conditional
  // update (Videos.claimCompleting) before anything is read, and the session closed by one guarded on its state.
  async complete(caller: Caller, { key, chunks }: CompleteRequest, pathVideoId?: string): Promise<CompleteResponse> {
    const session = await this.session(caller, key, pathVideoId);
    this.assertOpen(session);
    await this.accounts.assertSource(session.token_hash);
    const listed = inOrder(chunks);
    const claim = await this.videos.claimCompleting(session.video_id);
    if (!claim) {
      throw new ServiceError('session_completing', "This video's multipart upload is already being completed.");
    }
    try {
      // Read again under the claim: an abort (closeSession) that came first has closed it, and it stays untouched.
      this.assertOpen((await this.sessionRow(session.key))!);
      if (this.direct) return await this.completeInStore(session, chunks);
      const rows = await this.db
        .selectFrom('chunks')
        .select(['chunk_id', 'etag', 'size', 'file'])
        .where('session_key', '=', session.key)
        .execute();
      const stored = new Map(rows.map((c) => [c.chunk_id, c as ChunkRow]));
      const parts = listed.map((c, i) => {
        const chunk = stored.get(c.chunkId);
        if (!chunk) throw badField(`chunks[${i}].chunkId`, `Chunk ${c.chunkId} was never uploaded to this session.`);
        if (c.eTag.replace(/^"|"$/g, '') !== chunk.etag) {
          throw badField(
            `chunks[${i}].eTag`,
            `The eTag of chunk ${c.chunkId} is ${show(c.eTag)}, but the stored chunk has "${chunk.etag}".`,
          );
        }
        return chunk;
      });
      const size = parts.reduce((sum, p) => sum + p.size, 0);
      // Room for the joined source, which processing writes before it deletes the chunks.
      await this.store.assertRoom(size);
      // The listed chunks stay, in their rows, until processing joins them into the source (assemble);
      // #6 answers without copying the file (bench/link.bench.ts measured that copy at the end of every upload).
      const unlisted = await this.db.transaction().execute(async (trx) => {
        await this.closeCompleted(session, trx);
        // A chunk sent again while this complete waited for the disk check: its eTag is no longer the listed one. The
        // same bytes again (an uploader's twin of a slow chunk, connections.ts) are the chunk listed, in another file.
        for (const [i, p] of parts.entries()) {
          const now = await trx
            .selectFrom('chunks')
            .select('etag')
            .where('session_key', '=', session.key)
            .where('chunk_id', '=', p.chunk_id)
            .executeTakeFirst();
          if (now?.etag !== p.etag)
            throw badField(
              `chunks[${i}].eTag`,
              `Chunk ${p.chunk_id} was sent again meanwhile; complete with its new eTag.`,
            );
        }
        // Every chunk not listed goes, read now that the session is closed: one stored since the rows above were read
        // (by any process) is among them, and none can be stored after (chunkStored locks the session's row).
        const listedIds = parts.map((p) => p.chunk_id);
        const unlisted = await trx
          .selectFrom('chunks')
          .select('file')
          .where('session_key', '=', session.key)
          .where('chunk_id', 'not in', listedIds)
          .execute();
        await trx
          .deleteFrom('chunks')
          .where('session_key', '=', session.key)
          .where('chunk_id', 'not in', listedIds)
          .execute();
        await this.videos.startProcessing(session.video_id, size, 'multipart', trx);
        await this.closeLinks(session.video_id, trx);
        return unlisted;
      });
      await this.store.removeChunks(
        session.key,
        unlisted.map((c) => c.file),
      );
      return { success: true, url: `${this.apiOrigin()}/videos/${session.video_id}` };
    } finally {
      await claim.release();
    }
  }

  /**
   * The first step of processing a multipart upload: the chunks #6 listed, joined in order into the source,
   * on disk (fsync) before their rows go. Idempotent: a crash at any point leaves the rows, and the job runs again.
   */
  async assemble(videoId: string): Promise<void> {
    const session = await this.db
      .selectFrom('upload_sessions')
      .select('key')
      .where('video_id', '=', videoId)
      .where('state', '=', 'completed')
      .executeTakeFirst();
    if (!session || !(await this.hasChunks(session.key))) return;
    const parts = await this.db
      .selectFrom('chunks')
      .select('file')
      .where('session_key', '=', session.key)
      .orderBy('chunk_id')
      .execute();
    await this.store.assemble(
      videoId,
      session.key,
      parts.map((p) => p.file),
    );
    await this.db.deleteFrom('chunks').where('session_key', '=', session.key).execute();
    await this.store.removeSession(session.key);
  }

  // #7: cancels the session and deletes its chunks. Decision: aborting twice is a success, like a DELETE.
  async abort(caller: Caller, { key }: AbortRequest): Promise<AbortResponse> {
    const session = await this.session(caller, key);
    const closedAs = () =>
      new ServiceError('session_closed', 'This multipart session was completed; it can no longer be aborted.');
    if (session.state === 'completed') throw closedAs();
    // A #6 of another process may have completed it since it was read, or be completing it (409
    // session_completing): the close is guarded on its state and on #6's claim (closeSession).
    if (session.state === 'open' && !(await this.closeSession(session))) {
      if ((await this.sessionRow(session.key))?.state === 'completed') throw closedAs();
    }
    if (this.direct && session.upload_id) await this.direct.abort(await this.target(session), session.upload_id);
    await this.store.removeSession(session.key);
    return { success: true };
  }

  /**
   * #5 for a signed link, before its body is read: the link's video, which must still wait for its file, and the
   * organization's storage quota for the storage to check as the bytes arrive. The storage checked the signature.
   */
  async acceptLink(linkId: string): Promise<{ videoId: string; storageCheck: (size: number) => void }> {
    const link = await this.db
      .selectFrom('upload_links')
      .select(['video_id', 'token_hash'])
      .where('id', '=', linkId)
      .executeTakeFirst();
    if (!link) throw notFound('This upload link');
    await this.accounts.assertSource(link.token_hash);
    const video = (await this.videos.row(link.video_id))!;
    this.videos.assertWaiting(video);
    return { videoId: video.id, storageCheck: await this.usage.storageCheck(video.organization_id) };
  }

  /**
   * #5 for a signed link, once the whole body is stored under a temporary name: `place` gives it the source's name
   * in the same transaction that starts processing, unless the video got its file meanwhile (the video's row is
   * locked, so two bodies for one video at once, to any process, never both become its source).
   */
  async fileStored(videoId: string, size: number, place: () => void): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      this.videos.assertWaiting((await this.videos.lock(videoId, trx))!);
      place();
      await this.videos.startProcessing(videoId, size, 'single', trx);
      await this.closeLinks(videoId, trx);
    });
  }

  /** #5 for a chunk, before its body is read: the session must be open, its token live, its video waiting. */
  async acceptChunk(key: string): Promise<{ storageCheck: (size: number) => void }> {
    const session = await this.sessionRow(key);
    if (!session) throw notFound('This multipart session');
    this.assertOpen(session);
    await this.accounts.assertSource(session.token_hash);
    // A video that has its file (by the signed link, or another session) takes no more chunks.
    const video = (await this.videos.row(session.video_id))!;
    this.videos.assertWaiting(video);
    return { storageCheck: await this.usage.storageCheck(video.organization_id) };
  }

  /**
   * #5 for a chunk, once stored as `file`: its row says it is the chunk now (the one it replaces is deleted).
   * Closed meanwhile: the file goes, and the PUT is refused as closed. The session's row is locked while the
   * chunk's is written, so a #6 or #7 of another process never closes it in between.
   */
  async chunkStored(key: string, chunkId: number, written: { md5: string; size: number; file: string }): Promise<void> {
    const replaced = await this.db.transaction().execute(async (trx) => {
      const now = (await this.sessionRow(key, trx, { lock: true }))!;
      if (now.state !== 'open') return null;
      const old = await trx
        .selectFrom('chunks')
        .select('file')
        .where('session_key', '=', key)
        .where('chunk_id', '=', chunkId)
        .executeTakeFirst();
      const row = { etag: written.md5, size: written.size, file: written.file, updated_at: this.clock.now() };
      await trx
        .insertInto('chunks')
        .values({ session_key: key, chunk_id: chunkId, ...row })
        .onConflict((c) => c.columns(['session_key', 'chunk_id']).doUpdateSet(row))
        .execute();
      return old?.file ?? '';
    });
    if (replaced === null) {
      await this.dropIfClosed(key, written.file);
      this.assertOpen((await this.sessionRow(key))!);
    } else if (replaced) {
      await this.store.removeChunks(key, [replaced]);
    }
  }

  /** The video a signed link is for (the test hooks' byte counters). */
  async videoOfLink(linkId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('upload_links').select('video_id').where('id', '=', linkId).executeTakeFirst();
    return row?.video_id;
  }

  /**
   * A PUT that was writing while its session was completed or aborted (the abort removed the session's folder,
   * and the write made it again): what it left goes too, so no chunk outlives its session on disk. The chunks
   * a completed session listed stay until they are assembled. The PUT is then refused as closed (409), whatever
   * its write's own failure was (the folder removed under it, by a #6 or #7 of any process).
   */
  async dropIfClosed(key: string, file: string): Promise<void> {
    const session = await this.sessionRow(key);
    if (session?.state === 'open') return;
    await this.store.removeChunks(key, [file]);
    if (!(await this.hasChunks(key))) await this.store.removeSession(key);
    if (session) this.assertOpen(session);
  }

  private async hasChunks(key: string): Promise<boolean> {
    return !!(await this.db
      .selectFrom('chunks')
      .select('chunk_id')
      .where('session_key', '=', key)
      .limit(1)
      .executeTakeFirst());
  }

  /** Bytes of the chunks in the organization's open sessions (its storage quota, domain/usage.ts). */
  async chunkBytes(organizationId: string): Promise<number> {
    const { b } = await this.db
      .selectFrom('chunks as c')
      .innerJoin('upload_sessions as s', 's.key', 'c.session_key')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('c.size'), eb.lit(0)).as('b'))
      .where('s.organization_id', '=', organizationId)
      .where('s.state', '=', 'open')
      .executeTakeFirstOrThrow();
    return Number(b);
  }

  /**
   * At start: what a crash left behind. Chunk folders of closed sessions (but the chunks of a completed one
   * processing has not assembled yet), and every temporary file (no
   * writer can exist yet): half bodies, half assembled sources.
   */
  async sweepOrphans(): Promise<void> {
    const closed = await this.db
      .selectFrom('upload_sessions as s')
      .select('s.key')
      .where('s.state', '!=', 'open')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('chunks as c').select('c.chunk_id').whereRef('c.session_key', '=', 's.key'))),
      )
      .execute();
    await Promise.all(closed.map((s) => this.store.removeSession(s.key)));
    await this.store.sweepTemporary();
  }

  /**
   * By the sweeper: a session abandoned a day after it expired (complete and abort still work until then)
   * is aborted and its chunks deleted.
   */
  async sweepAbandoned(): Promise<void> {
    const stale = await this.db
      .selectFrom('upload_sessions')
      .select(['key', 'video_id'])
      .where('state', '=', 'open')
      .where('expires_at', '<', this.clock.now() - ABANDONED_AFTER_EXPIRY_MS)
      .execute();
    for (const { key, video_id } of stale) {
      const closed = await this.closeSession({ key, video_id }).catch((err: unknown) => {
        if (err instanceof ServiceError && err.code === 'session_completing') return false; // #6 has it
        throw err;
      });
      if (!closed) continue;
      const session = (await this.sessionRow(key))!;
      if (this.direct && session.upload_id) await this.direct.abort(await this.target(session), session.upload_id);
      await this.store.removeSession(key);
    }
  }

  /**
   * #6 on a store the browser PUT to: the spec's checks on what the store holds (it is the chunks' record, not the
   * chunks table), the parts joined by the store, then the session closed and processing queued in one transaction.
   * The joined source counts in the storage quota as an accepted source does on disk (videos' size).
   */
  private async completeInStore(session: SessionRow, chunks: ChunkDetail[]): Promise<CompleteResponse> {
    const where = await this.target(session);
    // The organization's storage quota, as the storage origin checks each body on disk: here the joined source.
    const { size } = await this.direct!.complete(
      where,
      session.upload_id!,
      chunks,
      await this.usage.storageCheck(where.organizationId),
    );
    await this.db.transaction().execute(async (trx) => {
      await this.closeCompleted(session, trx);
      await this.videos.startProcessing(session.video_id, size, 'multipart', trx);
      await this.closeLinks(session.video_id, trx);
    });
    return { success: true, url: `${this.apiOrigin()}/videos/${session.video_id}` };
  }

  /**
   * #5 for a signed link on a store the browser PUT to: no PUT reaches the service, so it asks the store whether a
   * link not closed of a video still waiting took its PUT (HeadObject of the link's own key). Seen, its size is
   * checked as the storage origin checks a body (the largest file, the organization's storage quota); refused, the
   * object is deleted and the video waits for another (the link still works, as after a refused PUT on disk).
   * Accepted, the store copies that very version (its ETag) to the video's source, processing is queued and the
   * video's links closed in one transaction, and the link's object deleted. One upload per link, as on disk (where a
   * PUT to a link whose video has its file is refused): the link used again writes to its own key, which nobody
   * reads and the sweeper empties (sweepLinks). Under #6's claim on the video (Videos.claimCompleting), so #8 in
   * several processes, the sweeper and a #6 take in one upload at a time. Asked by #8 (of a waiting video) and by
   * the sweeper; a no-op on disk. True when it took an upload in (the video's row changed).
   */
  async sourceArrived(videoId: string): Promise<boolean> {
    if (!this.direct) return false;
    const links = await this.db
      .selectFrom('upload_links')
      .select('id')
      .where('video_id', '=', videoId)
      .where('closed_at', 'is', null)
      .where('expires_at', '>', this.clock.now())
      .orderBy('created_at')
      .execute();
    const video = links.length > 0 ? await this.videos.row(videoId) : undefined;
    if (!video || video.status !== 'waiting') return false;
    for (const { id } of links) {
      const seen = await this.direct.uploaded(target(video), id);
      if (!seen) continue;
      const claim = await this.videos.claimCompleting(videoId);
      if (!claim) return false; // another process is taking it in
      try {
        if ((await this.videos.row(videoId))?.status === 'waiting') await this.takeIn(video, id, seen);
      } finally {
        await claim.release();
      }
      return true;
    }
    return false;
  }

  /** sourceArrived's work once a link's upload is seen, under the video's claim. */
  private async takeIn(
    video: { id: string; organization_id: string },
    linkId: string,
    seen: { size: number; etag: string },
  ): Promise<void> {
    const where = target(video);
    try {
      if (seen.size >= MAX_PART_BYTES) throw new Error('larger than a file may be');
      (await this.usage.storageCheck(video.organization_id))(seen.size);
    } catch {
      // Refused as the storage origin refuses such a body: the video waits for another file (#8 says waiting).
      await this.direct!.discard(where, linkId);
      return;
    }
    // Replaced since it was seen (the link used again): the next look takes the new one.
    if (!(await this.direct!.take(where, linkId, seen.etag))) return;
    await this.db.transaction().execute(async (trx) => {
      // The video's row locked: an import may have given it its file meanwhile (it does not take the claim).
      if ((await this.videos.lock(video.id, trx))?.status !== 'waiting') return;
      await this.videos.startProcessing(video.id, seen.size, 'single', trx);
      await this.closeLinks(video.id, trx);
    });
    await this.direct!.discard(where, linkId);
  }

  /**
   * By the sweeper, every few seconds on a direct store: the videos whose #2 link took its PUT (sourceArrived), then
   * what links received and nobody waits for any more (the link closed, expired or gone): a link used again after
   * its video had its file, an upload that lost to another, one that came too late.
   */
  async sweepLinks(): Promise<void> {
    if (!this.direct || this.clock.now() - this.linksSweptAt < LINK_SWEEP_MS) return;
    this.linksSweptAt = this.clock.now();
    const waiting = await this.db
      .selectFrom('upload_links')
      .select('video_id')
      .distinct()
      .where('closed_at', 'is', null)
      .where('expires_at', '>', this.clock.now())
      .execute();
    for (const { video_id } of waiting) await this.sourceArrived(video_id).catch(() => undefined);
    await this.direct.sweepIncoming(async (ids) => {
      const open = await this.db
        .selectFrom('upload_links')
        .select('id')
        .where('id', 'in', ids)
        .where('closed_at', 'is', null)
        .where('expires_at', '>', this.clock.now())
        .execute();
      return new Set(open.map((l) => l.id));
    });
  }

  private async target(session: SessionRow): Promise<UploadTarget> {
    return target((await this.videos.row(session.video_id))!);
  }

  /**
   * #6's commit, first in its transaction: the session closed, guarded on its state (this locks its row against a
   * chunk being stored and an abort, in any process; one closed meanwhile, aborted or swept, is said as closed), and
   * the video still waiting, its row locked.
   */
  private async closeCompleted(session: SessionRow, trx: Executor): Promise<void> {
    const closed = await trx
      .updateTable('upload_sessions')
      .set({ state: 'completed', closed_at: this.clock.now() })
      .where('key', '=', session.key)
      .where('state', '=', 'open')
      .executeTakeFirst();
    if (closed.numUpdatedRows === 0n) this.assertOpen((await this.sessionRow(session.key, trx))!);
    this.videos.assertWaiting((await this.videos.lock(session.video_id, trx))!);
  }

  /**
   * #2's and #3's caps (the queue's, then the open links' or sessions'), counted under the organization's lock in
   * `trx`, which then inserts the new one: requests at once, in any process, never pass them together.
   */
  private async assertRoomLocked(
    trx: Executor,
    caller: Caller,
    now: number,
    table: 'upload_links' | 'upload_sessions',
  ): Promise<void> {
    await this.accounts.lockOrganization(trx, caller.organizationId);
    await this.videos.assertQueueRoom(caller, trx);
    const [what, hint] =
      table === 'upload_links'
        ? ['signed links not expired', 'use one of them, or wait until the oldest expires.']
        : ['multipart sessions open', 'complete or abort one of them, or wait until the oldest expires.'];
    await assertUnderCaps(this.caps, caller, now, what, hint, (user) => this.open(trx, table, caller, user, now));
  }

  /** Links or sessions not expired of the caller's organization, or of its end user `user` (domain/open-uploads.ts). */
  private async open(
    trx: Executor,
    table: 'upload_links' | 'upload_sessions',
    caller: Caller,
    user: string | null | undefined,
    now: number,
  ): Promise<Open> {
    let query = trx
      .selectFrom(table)
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('expires_at').as('freesAt')])
      .where('organization_id', '=', caller.organizationId)
      .where('expires_at', '>', now);
    if (user !== undefined)
      query = user === null ? query.where('end_user', 'is', null) : query.where('end_user', '=', user);
    // A link counts until its video has its file; a session while open.
    query = table === 'upload_links' ? query.where('closed_at', 'is', null) : query.where('state', '=', 'open');
    const row = (await query.executeTakeFirstOrThrow()) as { n: number | string; freesAt: number | null };
    return { n: Number(row.n), freesAt: row.freesAt === null ? null : Number(row.freesAt) };
  }

  /** The video has its file: its links stop counting against the caps (a PUT to one still gets 409 already_uploaded). */
  private async closeLinks(videoId: string, db: Executor): Promise<void> {
    await db.updateTable('upload_links').set({ closed_at: this.clock.now() }).where('video_id', '=', videoId).execute();
  }

  /** By the sweeper: signed links past their expiry, which no PUT can use any more (the signature expired with them). */
  async prune(): Promise<void> {
    await this.db.deleteFrom('upload_links').where('expires_at', '<', this.clock.now()).execute();
  }

  /** A purge (domain/usage.ts): every session, chunk and link of these videos, files first. */
  async purge(videoIds: string[]): Promise<void> {
    if (videoIds.length === 0) return;
    const sessions = await this.db
      .selectFrom('upload_sessions')
      .select('key')
      .where('video_id', 'in', videoIds)
      .execute();
    for (const s of sessions) await this.store.removeSession(s.key);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('chunks')
        .where('session_key', 'in', (eb) =>
          eb.selectFrom('upload_sessions').select('key').where('video_id', 'in', videoIds),
        )
        .execute();
      await trx.deleteFrom('upload_sessions').where('video_id', 'in', videoIds).execute();
      await trx.deleteFrom('upload_links').where('video_id', 'in', videoIds).execute();
    });
  }

  /** A session's row; `lock`: held (PostgreSQL: FOR UPDATE) until the transaction `db` ends. */
  private async sessionRow(
    key: string,
    db: Executor = this.db,
    { lock = false } = {},
  ): Promise<SessionRow | undefined> {
    const query = db.selectFrom('upload_sessions').selectAll().where('key', '=', key);
    const row = await (lock && engineOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    return row as SessionRow | undefined;
  }

  /** The caller's session named by `key`; with the path form that names a video, it must be that video's. */
  private async session(caller: Caller, key: string, pathVideoId?: string): Promise<SessionRow> {
    const session = KEY_SHAPE.test(key) ? await this.sessionRow(key) : undefined;
    if (!session) throw new ServiceError('not_found', `No multipart session has the key ${show(key)}.`, 'key');
    await this.videos.find(caller, session.video_id);
    if (pathVideoId !== undefined && pathVideoId !== session.video_id) {
      throw new ServiceError(
        'not_found',
        `The session ${show(key)} does not belong to video ${show(pathVideoId)}.`,
        'key',
      );
    }
    return session;
  }

  /**
   * Aborted: the session and its chunks' rows (#6 closes a session itself, keeping the chunks it listed). Only an
   * open session: false when another request (of any process) closed it first. Never while #6 holds the video's
   * claim (409 session_completing, nothing changed): the session's row is written, then the video's locked and its
   * claim read, so a claim (an update of that row, in any process) comes wholly before this or after it, and a #6
   * that claims after finds the session closed before it asks the store for anything.
   */
  private async closeSession({ key, video_id }: { key: string; video_id: string }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('upload_sessions')
        .set({ state: 'aborted', closed_at: this.clock.now() })
        .where('key', '=', key)
        .where('state', '=', 'open')
        .executeTakeFirst();
      if (r.numUpdatedRows === 0n) return false;
      const video = await this.videos.lock(video_id, trx);
      if (video && this.videos.isCompleting(video))
        throw new ServiceError(
          'session_completing',
          'This multipart session is being completed; it can no longer be aborted.',
        );
      await trx.deleteFrom('chunks').where('session_key', '=', key).execute();
      return true;
    });
  }

  private assertOpen(session: SessionRow): void {
    if (session.state !== 'open') {
      throw new ServiceError(
        'session_closed',
        `This multipart session was ${session.state}; begin a new one to upload again.`,
      );
    }
  }
}

const target = (video: { id: string; organization_id: string }): UploadTarget => ({
  organizationId: video.organization_id,
  videoId: video.id,
});

/**
 * `chunks` of #6 (its schema checked each entry): chunkIds 1..N, in any order, with no gap and no duplicate. Sorted,
 * each with its place in the request (`at`, for the field an error names); on disk and on a store alike.
 */
export function inOrder(list: ChunkDetail[]): (ChunkDetail & { at: number })[] {
  const sorted = list
    .map((c, at) => ({ chunkId: c.chunkId, eTag: c.eTag.toLowerCase(), at }))
    .sort((a, b) => a.chunkId - b.chunkId);
  sorted.forEach((c, i) => {
    if (c.chunkId !== i + 1) {
      const dup = sorted[i - 1]?.chunkId === c.chunkId;
      throw badField(
        'chunks',
        dup
          ? `chunkId ${c.chunkId} is listed twice.`
          : `chunkIds must run from 1 to ${list.length} with no gap; chunk ${i + 1} is missing.`,
      );
    }
  });
  return sorted;
}
