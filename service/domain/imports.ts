import { createWriteStream, renameSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ImportProgress, VideoDetails } from '../../src/api/types.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db.js';
import { newId } from '../ids.js';
import type { Jobs } from '../jobs.js';
import { checkUrlForm, getFollowing, HeaderTimeout, RefusedUrl, type OutboundPolicy } from '../net/outbound.js';
import { everyFewMiB, TEMP_MARK, type Files } from '../storage/files.js';
import type { Caller } from './accounts.js';
import { badField, ServiceError, show } from './errors.js';
import type { Usage } from './usage.js';
import type { Videos } from './videos.js';
import { GIB, MiB } from '../../src/api/limits.js';

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
  outbound: OutboundPolicy;
  limits: ImportLimits;
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
  private readonly outbound: OutboundPolicy;
  private readonly limits: ImportLimits;

  constructor(options: ImportsOptions) {
    ({
      db: this.db,
      clock: this.clock,
      jobs: this.jobs,
      files: this.files,
      videos: this.videos,
      usage: this.usage,
      outbound: this.outbound,
      limits: this.limits,
    } = options);
  }

  start(caller: Caller, videoId: string, url: string): VideoDetails {
    const video = this.videos.find(caller, videoId);
    this.usage.assertRoom(caller.organizationId, 0);
    try {
      checkUrlForm(url, this.outbound);
    } catch (err) {
      if (!(err instanceof RefusedUrl)) throw err;
      throw badField('url', `url ${show(url)} is refused: ${err.message}`);
    }
    this.videos.assertQueueRoom(caller);
    this.db.transaction(() => {
      this.videos.startImport(video);
      this.db
        .prepare('INSERT INTO imports (video_id, url, bytes, total, created_at) VALUES (?, ?, 0, NULL, ?)')
        .run(video.id, url, this.clock.now());
    })();
    this.jobs.enqueue(IMPORT_VIDEO, { videoId: video.id }, undefined, video.organization_id);
    return this.videos.details(this.videos.row(video.id)!);
  }

  /** What #8 shows while the file is on its way; null before and after. */
  progress(videoId: string): ImportProgress | null {
    const row = this.row(videoId);
    return row ? { bytes: row.bytes, total: row.total } : null;
  }

  /** The job: download, then hand over to processing. Runs again from the start after a restart. */
  async run(videoId: string, signal: AbortSignal): Promise<void> {
    const row = this.row(videoId);
    if (!row) return;
    const source = this.files.source(videoId);
    const temp = `${source}${TEMP_MARK}${newId()}`;
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    const deadline = AbortSignal.any([signal, timeout]);
    try {
      const { res } = await getFollowing(row.url, this.outbound, deadline, this.limits.headerTimeoutMs);
      // The socket's idle timer: a body that sends nothing for that long ends the import.
      const idle = this.limits.idleTimeoutMs;
      res.setTimeout(idle, () => res.destroy(new ImportFailed(`the download sent nothing for ${idle / 1000} s`)));
      try {
        const total = this.check(res.statusCode ?? 0, res.statusMessage, res.headers);
        await mkdir(dirname(temp), { recursive: true });
        // The disk's reserve holds for imports as for PUTs (storage/files.ts): an undeclared length counts as the most allowed.
        // The organization's storage quota too, on the declared length and again as the bytes arrive.
        const quota = this.usage.storageCheck(this.videos.row(videoId)!.organization_id);
        quota(total ?? 0);
        const hold = await this.files.disk.hold(total ?? this.limits.maxBytes);
        const recheck = everyFewMiB((n) => (quota(n), hold.check(n)));
        const bytes = await this.save(videoId, res, temp, total, deadline, recheck).finally(hold.release);
        this.db.transaction(() => {
          renameSync(temp, source);
          this.db.prepare('DELETE FROM imports WHERE video_id = ?').run(videoId);
          this.videos.startProcessing(videoId, bytes, 'import');
        })();
      } finally {
        res.destroy();
      }
    } catch (err) {
      await rm(temp, { force: true });
      if (signal.aborted) throw err; // the service stops: the job runs again at its next start
      this.fail(
        videoId,
        timeout.aborted ? `the download took longer than ${this.limits.timeoutMs / 1000} s` : why(err),
      );
    }
  }

  /** Deletes the import rows of purged videos (domain/usage.ts). */
  purge(videoIds: string[]): void {
    const del = this.db.prepare('DELETE FROM imports WHERE video_id = ?');
    for (const id of videoIds) del.run(id);
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
    const update = this.db.prepare('UPDATE imports SET bytes = ?, total = ? WHERE video_id = ?');
    update.run(0, total, videoId);
    let bytes = 0;
    // Written at most every 250 ms, and always within 250 ms of the last byte (a stalled download shows where it stopped).
    let timer: NodeJS.Timeout | undefined;
    const flush = () => ((timer = undefined), update.run(bytes, total, videoId));
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

  private fail(videoId: string, reason: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM imports WHERE video_id = ?').run(videoId);
      this.videos.markFailed(videoId, `The import failed: ${reason}.`);
    })();
  }

  private row(videoId: string): ImportRow | undefined {
    return this.db.prepare('SELECT * FROM imports WHERE video_id = ?').get(videoId) as ImportRow | undefined;
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
