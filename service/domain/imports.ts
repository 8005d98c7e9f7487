import { createWriteStream, renameSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ImportProgress, VideoDetails } from '../../src/api/types.js';
import type { S3Media } from '../storage/s3-media.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import { retryOutage } from '../outages.js';
import { checkUrlForm, getFollowing, HeaderTimeout, RefusedUrl, type OutboundPolicy } from '../net/outbound.js';
import { everyFewMiB, TEMP_MARK, type Files } from '../storage/files.js';
import type { Accounts, Caller } from './accounts.js';
import { badField, ServiceError, show } from './errors.js';
import type { Usage } from './usage.js';
import type { Videos } from './videos.js';
import { GIB, MiB } from '../../src/api/limits.js';
import { log } from '../log.js';

export const IMPORT_VIDEO = 'import-video';
// What the job carries, checked where it is enqueued and where it runs (service/jobs.ts, JobPayloads).
declare module '../jobs.js' {
  interface JobPayloads {
    [IMPORT_VIDEO]: { videoId: string };
  }
}

/**
 * Decisions (docs/service.md, docs/security.md): the largest file an import takes, how long its download may take in all,
 * how long the server may take to begin its answer (each redirect too), and how long the body may send nothing.
 * The last two free an import slot held by a server that answers one byte a minute.
 */
export interface ImportLimits {
  maxBytes: number;
  timeoutMs: number;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
}
export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxBytes: 20 * GIB,
  timeoutMs: 2 * 60 * 60 * 1000,
  headerTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
};
/** Bytes in flight between the socket and the disk: large writes, as curl's, not Node's 16 KiB default. */
const BUFFER = 4 * MiB;
/** How often the bytes so far are written down for #8. */
const PROGRESS_EVERY_MS = 250;

/** Why an import stopped, for the video's failure_reason. */
class ImportFailed extends Error {}

interface ImportRow {
  video_id: string;
  url: string;
  bytes: number;
  total: number | null;
}

export interface ImportsOptions {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  files: Files;
  videos: Videos;
  usage: Usage;
  /** The organization's lock, held while its queue cap is counted (domain/accounts.ts). */
  accounts: Accounts;
  outbound: OutboundPolicy;
  limits: ImportLimits;
  /** An S3 store (--storage s3://…): the downloaded file becomes the video's source there, as an upload's does. */
  remote?: S3Media;
}

/**
 * The spec's third way to attach a file to a video: from a third-party URL ("not shown" beyond its existence).
 * POST /videos/{id}/import checks what it can at once and answers 202; a job downloads the file through
 * net/outbound.ts (http(s) only, no internal address at any redirect), within a size limit and a time limit,
 * then processes it like an upload. #8 shows `import: {bytes, total}` meanwhile; a failure says why.
 */
export class Imports {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly files: Files;
  private readonly videos: Videos;
  private readonly usage: Usage;
  private readonly accounts: Accounts;
  private readonly outbound: OutboundPolicy;
  private readonly limits: ImportLimits;
  private readonly remote: S3Media | undefined;

  constructor(options: ImportsOptions) {
    ({
      db: this.db,
      clock: this.clock,
      jobs: this.jobs,
      files: this.files,
      videos: this.videos,
      usage: this.usage,
      accounts: this.accounts,
      outbound: this.outbound,
      limits: this.limits,
      remote: this.remote,
    } = options);
  }

  async start(caller: Caller, videoId: string, url: string): Promise<VideoDetails> {
    const video = await this.videos.find(caller, videoId);
    await this.usage.assertRoom(caller.organizationId, 0);
    try {
      checkUrlForm(url, this.outbound);
    } catch (err) {
      if (!(err instanceof RefusedUrl)) throw err;
      throw badField('url', `url ${show(url)} is refused: ${err.message}`);
    }
    // The queue cap counted, the video locked and its import recorded in one transaction: imports at once (in
    // any processes) never pass the cap together, nor give one video two files.
    await this.db.transaction().execute(async (trx) => {
      await this.accounts.lockOrganization(trx, caller.organizationId);
      await this.videos.assertQueueRoom(caller, trx);
      await this.videos.startImport((await this.videos.lock(video.id, trx))!, trx);
      await trx
        .insertInto('imports')
        .values({ video_id: video.id, url, bytes: 0, total: null, created_at: this.clock.now() })
        .execute();
      await this.jobs.enqueue(IMPORT_VIDEO, { videoId: video.id }, { group: video.organization_id, db: trx });
    });
    return this.videos.details((await this.videos.row(video.id))!);
  }

  /** What #8 shows while the file is on its way; null before and after. */
  async progress(videoId: string): Promise<ImportProgress | null> {
    const row = await this.row(videoId);
    return row ? { bytes: row.bytes, total: row.total } : null;
  }

  /**
   * The job: download, then hand over to processing. Runs again from the start after a restart, and after the
   * database or the store was away (service/outages.ts); what the URL did fails the import, naming why.
   */
  async run(videoId: string, signal: AbortSignal, attempt: number): Promise<void> {
    const source = this.files.source(videoId);
    const temp = `${source}${TEMP_MARK}${newId()}`;
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    try {
      const row = await this.row(videoId);
      if (!row) return;
      const organization = (await this.videos.row(videoId))!.organization_id;
      // The organization's storage quota holds for imports, on the declared length and again as the bytes arrive.
      const quota = await this.usage.storageCheck(organization);
      const bytes = await this.download(row, temp, quota, AbortSignal.any([signal, timeout]));
      // On a store, processing (on any worker) reads the source from there (domain/ready.ts), not this disk.
      if (this.remote) await this.remote.putSource(organization, videoId, temp);
      await this.db.transaction().execute(async (trx) => {
        if (!this.remote) renameSync(temp, source);
        await trx.deleteFrom('imports').where('video_id', '=', videoId).execute();
        await this.videos.startProcessing(videoId, bytes, 'import', trx);
      });
      if (this.remote) await rm(temp, { force: true });
    } catch (err) {
      await rm(temp, { force: true });
      if (signal.aborted) throw err; // the service stops: the job runs again at its next start
      const gaveUp = retryOutage(err, attempt, this.clock.now());
      const reason = timeout.aborted ? `the download took longer than ${this.limits.timeoutMs / 1000} s` : why(err);
      await this.fail(videoId, gaveUp ?? reason).catch((lost: unknown) => {
        retryOutage(lost, attempt, this.clock.now());
        throw lost;
      });
    }
  }

  /**
   * The URL's part of the job: the answer's head checked, its body saved to `temp` within the limits; returns its
   * bytes. It calls neither the database (progress is written on the side) nor the store, so whatever fails here
   * (the server, its network, a limit, this disk) is the import's failure, never taken for an outage.
   */
  private async download(
    row: ImportRow,
    temp: string,
    quota: (size: number) => void,
    signal: AbortSignal,
  ): Promise<number> {
    try {
      const { res } = await getFollowing(row.url, this.outbound, signal, this.limits.headerTimeoutMs);
      // The socket's idle timer: a body that sends nothing for that long ends the import.
      const idle = this.limits.idleTimeoutMs;
      res.setTimeout(idle, () => res.destroy(new ImportFailed(`the download sent nothing for ${idle / 1000} s`)));
      try {
        const total = this.check(res.statusCode ?? 0, res.statusMessage, res.headers);
        await mkdir(dirname(temp), { recursive: true });
        // The disk's reserve holds for imports as for PUTs (storage/files.ts): an undeclared length counts as the most allowed.
        quota(total ?? 0);
        const hold = await this.files.disk.hold(total ?? this.limits.maxBytes);
        const recheck = everyFewMiB((n) => (quota(n), hold.check(n)));
        return await this.save(row.video_id, res, temp, total, signal, recheck).finally(hold.release);
      } finally {
        res.destroy();
      }
    } catch (err) {
      throw new ImportFailed(why(err));
    }
  }

  /** Deletes the import rows of purged videos (domain/usage.ts). */
  async purge(videoIds: string[]): Promise<void> {
    if (videoIds.length > 0) await this.db.deleteFrom('imports').where('video_id', 'in', videoIds).execute();
  }

  /** The answer's head: a 2xx that is not a web page, and not declared bigger than the limit. Returns its length. */
  private check(status: number, text: string | undefined, headers: Record<string, unknown>): number | null {
    if (status < 200 || status >= 300)
      throw new ImportFailed(`the URL answered HTTP ${status}${text ? ` ${text}` : ''}`);
    const type = String(headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (/^text\/|^application\/(json|xml|xhtml)/i.test(type))
      throw new ImportFailed(`the URL answered a ${type} document, not a media file`);
    const length = Number(headers['content-length']);
    const total = Number.isSafeInteger(length) && length >= 0 ? length : null;
    if (total !== null && total > this.limits.maxBytes) throw this.tooBig(total);
    return total;
  }

  /** Streams the body to `temp`, counting; past the limit it stops. Records progress for #8. */
  private async save(
    videoId: string,
    body: NodeJS.ReadableStream,
    temp: string,
    total: number | null,
    signal: AbortSignal,
    recheck: ReturnType<typeof everyFewMiB>,
  ): Promise<number> {
    const update = (n: number) =>
      this.db.updateTable('imports').set({ bytes: n, total }).where('video_id', '=', videoId).execute();
    let bytes = 0;
    // Written at once (the total) and then at most every 250 ms, and always within 250 ms of the last byte (a
    // stalled download shows where it stopped); one write at a time, each after the one before. A write that
    // fails (the database away) is only progress not shown: the download goes on.
    let timer: NodeJS.Timeout | undefined;
    let writing: Promise<unknown> = Promise.resolve();
    const flush = () => {
      timer = undefined;
      const n = bytes;
      writing = writing
        .then(() => update(n))
        .catch((err: unknown) => log.error({ err }, `import ${videoId}: progress`));
    };
    flush();
    const count = new Transform({
      highWaterMark: BUFFER,
      transform: (chunk: Buffer, _encoding, done) => {
        bytes += chunk.length;
        if (bytes > this.limits.maxBytes) return done(this.tooBig());
        timer ??= setTimeout(flush, PROGRESS_EVERY_MS);
        const looking = recheck(bytes);
        if (!looking) return done(null, chunk);
        looking.then(() => done(null, chunk), done);
      },
    });
    try {
      await pipeline(body, count, createWriteStream(temp, { flags: 'wx', highWaterMark: BUFFER }), { signal });
    } finally {
      clearTimeout(timer);
      await writing;
    }
    return bytes;
  }

  /** Declared too big (`bytes` is its length), or found so while counting (`bytes` undefined). */
  private tooBig(bytes?: number): ImportFailed {
    const max = this.limits.maxBytes;
    return new ImportFailed(
      bytes === undefined
        ? `the file passed ${max} bytes, the most an import takes`
        : `the file is ${bytes} bytes; an import takes at most ${max} bytes`,
    );
  }

  /** The import's end, failed: its row and the video's state together, once (a run whose row is gone ended already). */
  private async fail(videoId: string, reason: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const { numDeletedRows } = await trx.deleteFrom('imports').where('video_id', '=', videoId).executeTakeFirst();
      if (numDeletedRows > 0n) await this.videos.markFailed(videoId, `The import failed: ${reason}.`, trx);
    });
  }

  private async row(videoId: string): Promise<ImportRow | undefined> {
    return this.db.selectFrom('imports').selectAll().where('video_id', '=', videoId).executeTakeFirst();
  }
}

/** A failure in words: ours, a refused or unresolvable address, or the network's error code. */
function why(err: unknown): string {
  if (err instanceof ImportFailed || err instanceof RefusedUrl || err instanceof HeaderTimeout)
    return err.message.replace(/\.$/, '');
  if (err instanceof ServiceError) return err.message.replace(/\.$/, '');
  const code = (err as NodeJS.ErrnoException).code;
  return `the download failed (${code ?? (err as Error).message})`;
}
