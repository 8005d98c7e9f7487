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
import type { Db } from '../db.js';
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
/** Decision: on a direct store, the sweeper asks the store about open #2 links every 5 s (a HeadObject each). */
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
  /** #2: a link for one PUT of the whole file. */
  linkUrl(target: UploadTarget, signedAt: number, expiresAt: number): Promise<string>;
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
  /** The source the browser PUT by a #2 link, if it did: its size. */
  uploaded(target: UploadTarget): Promise<{ size: number } | null>;
  /** A source refused once seen (too large, over the quota): deleted, so the video can take another. */
  discard(target: UploadTarget): Promise<void>;
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
  /** Videos whose multipart upload is being completed: one at a time per video, whichever session. */
  private readonly completing = new Set<string>();
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
  // Refused once the hosting-minute or the storage quota is used up.
  async createLink(caller: Caller, videoId: string): Promise<UploadUrlResponse> {
    const video = this.videos.find(caller, videoId);
    this.usage.assertRoom(caller.organizationId, 0);
    this.videos.assertWaiting(video);
    this.videos.assertQueueRoom(caller);
    const id = newId();
    const now = this.clock.now();
    assertUnderCaps(
      this.caps,
      caller,
      now,
      'signed links not expired',
      'use one of them, or wait until the oldest expires.',
      (user) => this.open('upload_links', 'AND closed_at IS NULL', caller, user, now),
    );
    const expires = now + UPLOAD_TTL_MS;
    this.db
      .prepare(
        'INSERT INTO upload_links (id, video_id, created_at, expires_at, organization_id, end_user, token_hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, video.id, now, expires, video.organization_id, video.end_user, caller.tokenHash);
    if (this.direct) return { url: await this.direct.linkUrl(target(video), now, expires) };
    return { url: this.store.linkUrl(id, expires) };
  }

  // #3: a multipart session, valid 6 hours while its token is not revoked; the quotas as for #2.
  async begin(caller: Caller, videoId: string): Promise<MultipartSession> {
    const video = this.videos.find(caller, videoId);
    this.usage.assertRoom(caller.organizationId, 0);
    this.videos.assertWaiting(video);
    this.videos.assertQueueRoom(caller);
    const key = newSecret('mpu_');
    const now = this.clock.now();
    assertUnderCaps(
      this.caps,
      caller,
      now,
      'multipart sessions open',
      'complete or abort one of them, or wait until the oldest expires.',
      (user) => this.open('upload_sessions', `AND state = 'open'`, caller, user, now),
    );
    const expiresAt = now + UPLOAD_TTL_MS;
    const uploadId = this.direct ? await this.direct.begin(target(video)) : null;
    this.db
      .prepare(
        `INSERT INTO upload_sessions (key, video_id, created_at, expires_at, state, organization_id, end_user, token_hash, upload_id)
         VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?)`,
      )
      .run(key, video.id, now, expiresAt, video.organization_id, video.end_user, caller.tokenHash, uploadId);
    return { key, expiresAt };
  }

  // #4: one URL for one chunk of one session. Decision: the URL lives as long as its session.
  async chunkUrl(caller: Caller, { key, chunkId }: ChunkUrlRequest, pathVideoId?: string): Promise<UploadUrlResponse> {
    const session = this.session(caller, key, pathVideoId);
    this.assertOpen(session);
    this.accounts.assertSource(session.token_hash);
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
  async complete(caller: Caller, { key, chunks }: CompleteRequest, pathVideoId?: string): Promise<CompleteResponse> {
    const session = this.session(caller, key, pathVideoId);
    this.assertOpen(session);
    this.accounts.assertSource(session.token_hash);
    const listed = inOrder(chunks);
    if (this.completing.has(session.video_id)) {
      throw new ServiceError('session_completing', "This video's multipart upload is already being completed.");
    }
    this.completing.add(session.video_id);
    try {
      if (this.direct) return await this.completeInStore(session, chunks);
      const stored = new Map(
        (
          this.db
            .prepare('SELECT chunk_id, etag, size, file FROM chunks WHERE session_key = ?')
            .all(session.key) as ChunkRow[]
        ).map((c) => [c.chunk_id, c]),
      );
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
      const unlisted = [...stored.values()].filter((c) => !parts.includes(c));
      this.db.transaction(() => {
        this.videos.assertWaiting(this.videos.row(session.video_id)!);
        // A chunk sent again while this complete waited for the disk check: its eTag is no longer the listed one.
        const now = this.db.prepare('SELECT file FROM chunks WHERE session_key = ? AND chunk_id = ?');
        parts.forEach((p, i) => {
          if ((now.get(session.key, p.chunk_id) as { file: string } | undefined)?.file !== p.file)
            throw badField(
              `chunks[${i}].eTag`,
              `Chunk ${p.chunk_id} was sent again meanwhile; complete with its new eTag.`,
            );
        });
        this.db
          .prepare("UPDATE upload_sessions SET state = 'completed', closed_at = ? WHERE key = ?")
          .run(this.clock.now(), session.key);
        const drop = this.db.prepare('DELETE FROM chunks WHERE session_key = ? AND chunk_id = ?');
        for (const c of unlisted) drop.run(session.key, c.chunk_id);
        this.videos.startProcessing(session.video_id, size, 'multipart');
        this.closeLinks(session.video_id);
      })();
      await this.store.removeChunks(
        session.key,
        unlisted.map((c) => c.file),
      );
      return { success: true, url: `${this.apiOrigin()}/videos/${session.video_id}` };
    } finally {
      this.completing.delete(session.video_id);
    }
  }

  /**
   * The first step of processing a multipart upload: the chunks #6 listed, joined in order into the source,
   * on disk (fsync) before their rows go. Idempotent: a crash at any point leaves the rows, and the job runs again.
   */
  async assemble(videoId: string): Promise<void> {
    const session = this.db
      .prepare(`SELECT key FROM upload_sessions WHERE video_id = ? AND state = 'completed'`)
      .get(videoId) as { key: string } | undefined;
    if (!session || !this.hasChunks(session.key)) return;
    const parts = this.db
      .prepare('SELECT file FROM chunks WHERE session_key = ? ORDER BY chunk_id')
      .all(session.key) as { file: string }[];
    await this.store.assemble(
      videoId,
      session.key,
      parts.map((p) => p.file),
    );
    this.db.prepare('DELETE FROM chunks WHERE session_key = ?').run(session.key);
    await this.store.removeSession(session.key);
  }

  // #7: cancels the session and deletes its chunks. Decision: aborting twice is a success, like a DELETE.
  async abort(caller: Caller, { key }: AbortRequest): Promise<AbortResponse> {
    const session = this.session(caller, key);
    if (session.state === 'completed') {
      throw new ServiceError('session_closed', 'This multipart session was completed; it can no longer be aborted.');
    }
    if (this.completing.has(session.video_id)) {
      throw new ServiceError(
        'session_completing',
        'This multipart session is being completed; it can no longer be aborted.',
      );
    }
    if (session.state === 'open') this.closeSession(session.key);
    if (this.direct && session.upload_id) await this.direct.abort(await this.target(session), session.upload_id);
    await this.store.removeSession(session.key);
    return { success: true };
  }

  /**
   * #5 for a signed link, before its body is read: the link's video, which must still wait for its file, and the
   * organization's storage quota for the storage to check as the bytes arrive. The storage checked the signature.
   */
  acceptLink(linkId: string): { videoId: string; storageCheck: (size: number) => void } {
    const link = this.db.prepare('SELECT video_id, token_hash FROM upload_links WHERE id = ?').get(linkId) as
      { video_id: string; token_hash: string | null } | undefined;
    if (!link) throw notFound('This upload link');
    this.accounts.assertSource(link.token_hash);
    const video = this.videos.row(link.video_id)!;
    this.videos.assertWaiting(video);
    return { videoId: video.id, storageCheck: this.usage.storageCheck(video.organization_id) };
  }

  /**
   * #5 for a signed link, once the whole body is stored under a temporary name: `place` gives it the source's name
   * in the same transaction that starts processing, unless the video got its file meanwhile.
   */
  fileStored(videoId: string, size: number, place: () => void): void {
    this.db.transaction(() => {
      this.videos.assertWaiting(this.videos.row(videoId)!);
      place();
      this.videos.startProcessing(videoId, size, 'single');
      this.closeLinks(videoId);
    })();
  }

  /** #5 for a chunk, before its body is read: the session must be open, its token live, its video waiting. */
  acceptChunk(key: string): { storageCheck: (size: number) => void } {
    const session = this.sessionRow(key);
    if (!session) throw notFound('This multipart session');
    this.assertOpen(session);
    this.accounts.assertSource(session.token_hash);
    // A video that has its file (by the signed link, or another session) takes no more chunks.
    const video = this.videos.row(session.video_id)!;
    this.videos.assertWaiting(video);
    return { storageCheck: this.usage.storageCheck(video.organization_id) };
  }

  /**
   * #5 for a chunk, once stored as `file`: its row says it is the chunk now (the one it replaces is deleted).
   * Closed meanwhile: the file goes, and the PUT is refused as closed.
   */
  async chunkStored(key: string, chunkId: number, written: { md5: string; size: number; file: string }): Promise<void> {
    const replaced = this.db.transaction(() => {
      const now = this.sessionRow(key)!;
      if (now.state !== 'open') return null;
      const old = this.db
        .prepare('SELECT file FROM chunks WHERE session_key = ? AND chunk_id = ?')
        .get(key, chunkId) as { file: string } | undefined;
      this.db
        .prepare(
          `INSERT INTO chunks (session_key, chunk_id, etag, size, file, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (session_key, chunk_id) DO UPDATE SET etag = excluded.etag, size = excluded.size,
           file = excluded.file, updated_at = excluded.updated_at`,
        )
        .run(key, chunkId, written.md5, written.size, written.file, this.clock.now());
      return old?.file ?? '';
    })();
    if (replaced === null) {
      await this.dropIfClosed(key, written.file);
      this.assertOpen(this.sessionRow(key)!);
    } else if (replaced) {
      await this.store.removeChunks(key, [replaced]);
    }
  }

  /** The video a signed link is for (the test hooks' byte counters). */
  videoOfLink(linkId: string): string | undefined {
    return (
      this.db.prepare('SELECT video_id FROM upload_links WHERE id = ?').get(linkId) as { video_id: string } | undefined
    )?.video_id;
  }

  /**
   * A PUT that was writing while its session was completed or aborted (the abort removed the session's folder,
   * and the write made it again): what it left goes too, so no chunk outlives its session on disk. The chunks
   * a completed session listed stay until they are assembled.
   */
  async dropIfClosed(key: string, file: string): Promise<void> {
    if (this.sessionRow(key)?.state === 'open') return;
    await this.store.removeChunks(key, [file]);
    if (!this.hasChunks(key)) await this.store.removeSession(key);
  }

  private hasChunks(key: string): boolean {
    return !!this.db.prepare('SELECT 1 FROM chunks WHERE session_key = ?').get(key);
  }

  /** Bytes of the chunks in the organization's open sessions (its storage quota, domain/usage.ts). */
  chunkBytes(organizationId: string): number {
    return (
      this.db
        .prepare(
          `SELECT COALESCE(SUM(c.size), 0) AS b FROM chunks c JOIN upload_sessions s ON s.key = c.session_key
           WHERE s.organization_id = ? AND s.state = 'open'`,
        )
        .get(organizationId) as { b: number }
    ).b;
  }

  /**
   * At start: what a crash left behind. Chunk folders of closed sessions (but the chunks of a completed one
   * processing has not assembled yet), and every temporary file (no
   * writer can exist yet): half bodies, half assembled sources.
   */
  async sweepOrphans(): Promise<void> {
    const closed = this.db
      .prepare(
        `SELECT key FROM upload_sessions WHERE state != 'open'
         AND NOT EXISTS (SELECT 1 FROM chunks WHERE session_key = key)`,
      )
      .all() as { key: string }[];
    await Promise.all(closed.map((s) => this.store.removeSession(s.key)));
    await this.store.sweepTemporary();
  }

  /**
   * By the sweeper: a session abandoned a day after it expired (complete and abort still work until then)
   * is aborted and its chunks deleted.
   */
  async sweepAbandoned(): Promise<void> {
    const stale = this.db
      .prepare(`SELECT key FROM upload_sessions WHERE state = 'open' AND expires_at < ?`)
      .all(this.clock.now() - ABANDONED_AFTER_EXPIRY_MS) as { key: string }[];
    for (const { key } of stale) {
      if (this.completing.has(this.sessionRow(key)!.video_id)) continue;
      this.closeSession(key);
      const session = this.sessionRow(key)!;
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
    this.db.transaction(() => {
      this.videos.assertWaiting(this.videos.row(session.video_id)!);
      this.db
        .prepare("UPDATE upload_sessions SET state = 'completed', closed_at = ? WHERE key = ?")
        .run(this.clock.now(), session.key);
      this.videos.startProcessing(session.video_id, size, 'multipart');
      this.closeLinks(session.video_id);
    })();
    return { success: true, url: `${this.apiOrigin()}/videos/${session.video_id}` };
  }

  /**
   * #5 for a signed link on a store the browser PUT to: no PUT reaches the service, so it asks the store whether the
   * source is there (HeadObject), for a video still waiting with a link not closed. Seen: its size is checked as the
   * storage origin checks a body (the largest file, the organization's storage quota; refused, the object is deleted
   * and the video waits for another), and processing is queued as when the origin stores a body. Asked by #8 and
   * by the sweeper (sweepLinks); a no-op on disk.
   */
  async sourceArrived(videoId: string): Promise<void> {
    if (!this.direct) return;
    const link = this.db
      .prepare('SELECT 1 FROM upload_links WHERE video_id = ? AND closed_at IS NULL AND expires_at > ? LIMIT 1')
      .get(videoId, this.clock.now());
    const video = link ? await this.videos.row(videoId) : undefined;
    if (!video || video.status !== 'waiting') return;
    const where = target(video);
    const seen = await this.direct.uploaded(where);
    if (!seen) return;
    try {
      if (seen.size >= MAX_PART_BYTES) throw new Error('larger than a file may be');
      (await this.usage.storageCheck(video.organization_id))(seen.size);
    } catch {
      // Refused as the storage origin refuses such a body: the video waits for another file (#8 says waiting).
      await this.direct.discard(where);
      return;
    }
    this.db.transaction(() => {
      if (this.videos.row(videoId)!.status !== 'waiting') return;
      this.videos.startProcessing(videoId, seen.size, 'single');
      this.closeLinks(videoId);
    })();
  }

  /** By the sweeper, every few seconds on a direct store: the videos whose #2 link took its PUT (sourceArrived). */
  async sweepLinks(): Promise<void> {
    if (!this.direct || this.clock.now() - this.linksSweptAt < LINK_SWEEP_MS) return;
    this.linksSweptAt = this.clock.now();
    const waiting = this.db
      .prepare('SELECT DISTINCT video_id FROM upload_links WHERE closed_at IS NULL AND expires_at > ?')
      .all(this.clock.now()) as { video_id: string }[];
    for (const { video_id } of waiting) await this.sourceArrived(video_id).catch(() => undefined);
  }

  private async target(session: SessionRow): Promise<UploadTarget> {
    return target((await this.videos.row(session.video_id))!);
  }

  /** Links or sessions not expired of the caller's organization, or of its end user `user` (domain/open-uploads.ts). */
  private open(
    table: 'upload_links' | 'upload_sessions',
    where: string,
    caller: Caller,
    user: string | null | undefined,
    now: number,
  ): Open {
    return this.db
      .prepare(
        `SELECT COUNT(*) AS n, MIN(expires_at) AS freesAt FROM ${table} WHERE organization_id = ?
         ${user === undefined ? '' : 'AND end_user IS ?'} ${where} AND expires_at > ?`,
      )
      .get(caller.organizationId, ...(user === undefined ? [] : [user]), now) as Open;
  }

  /** The video has its file: its links stop counting against the caps (a PUT to one still gets 409 already_uploaded). */
  private closeLinks(videoId: string): void {
    this.db.prepare('UPDATE upload_links SET closed_at = ? WHERE video_id = ?').run(this.clock.now(), videoId);
  }

  /** By the sweeper: signed links past their expiry, which no PUT can use any more (the signature expired with them). */
  prune(): void {
    this.db.prepare('DELETE FROM upload_links WHERE expires_at < ?').run(this.clock.now());
  }

  /** A purge (domain/usage.ts): every session, chunk and link of these videos, files first. */
  async purge(videoIds: string[]): Promise<void> {
    const where = `video_id IN (${videoIds.map(() => '?').join(', ')})`;
    if (videoIds.length === 0) return;
    const sessions = this.db.prepare(`SELECT key FROM upload_sessions WHERE ${where}`).all(...videoIds) as {
      key: string;
    }[];
    for (const s of sessions) await this.store.removeSession(s.key);
    this.db.transaction(() => {
      this.db
        .prepare(`DELETE FROM chunks WHERE session_key IN (SELECT key FROM upload_sessions WHERE ${where})`)
        .run(...videoIds);
      this.db.prepare(`DELETE FROM upload_sessions WHERE ${where}`).run(...videoIds);
      this.db.prepare(`DELETE FROM upload_links WHERE ${where}`).run(...videoIds);
    })();
  }

  private sessionRow(key: string): SessionRow | undefined {
    return this.db.prepare('SELECT * FROM upload_sessions WHERE key = ?').get(key) as SessionRow | undefined;
  }

  /** The caller's session named by `key`; with the path form that names a video, it must be that video's. */
  private session(caller: Caller, key: string, pathVideoId?: string): SessionRow {
    const session = KEY_SHAPE.test(key) ? this.sessionRow(key) : undefined;
    if (!session) throw new ServiceError('not_found', `No multipart session has the key ${show(key)}.`, 'key');
    this.videos.find(caller, session.video_id);
    if (pathVideoId !== undefined && pathVideoId !== session.video_id) {
      throw new ServiceError(
        'not_found',
        `The session ${show(key)} does not belong to video ${show(pathVideoId)}.`,
        'key',
      );
    }
    return session;
  }

  /** Aborted: the session and its chunks' rows (#6 closes a session itself, keeping the chunks it listed). */
  private closeSession(key: string): void {
    this.db
      .prepare("UPDATE upload_sessions SET state = 'aborted', closed_at = ? WHERE key = ?")
      .run(this.clock.now(), key);
    this.db.prepare('DELETE FROM chunks WHERE session_key = ?').run(key);
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

/** `chunks` of #6 (its schema checked each entry): chunkIds 1..N, in any order, with no gap and no duplicate. */
function inOrder(list: ChunkDetail[]): ChunkDetail[] {
  const sorted = list
    .map((c) => ({ chunkId: c.chunkId, eTag: c.eTag.toLowerCase() }))
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
