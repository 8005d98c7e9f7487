import { renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_PART_BYTES } from '../../src/api/limits.js';
import type { Clock } from '../clock.js';
import { notFound, ServiceError } from '../domain/errors.js';
import type { Uploads } from '../domain/uploads.js';
import type { Faults } from '../faults.js';
import { sendError } from '../http/errors.js';
import { requestUrl } from '../http/url.js';
import { newId } from '../ids.js';
import { TEMP_MARK, writeBody } from './files.js';
import { CHUNK_PATH, LINK_PATH, type LocalStore } from './local.js';
import type { UrlSigner } from './signing.js';

/**
 * The storage origin ({upload_url}), #5. Its own port, so the browser meets real cross-origin rules:
 * preflights are answered, PUT with any Content-Type is allowed from any origin, and ETag is exposed
 * (without that header exposed, a browser uploader cannot complete a multipart upload).
 * The signature in the query string authorises a PUT; an Authorization header is never read.
 */
export interface StorageRequest {
  method: string;
  path: string;
  /** Whether the request carried an Authorization header (it never should). */
  authorization: boolean;
  /** When it arrived and when its answer was sent (ms), and the answer's status (0: closed without one). */
  startedAt: number;
  endedAt?: number;
  status?: number;
}

/**
 * #5 on the local store (storage/local.ts): the bytes of a PUT, written to disk, then handed to the domain
 * (domain/uploads.ts) as plain values, which decides whether they are accepted and commits them.
 */
export class UploadOrigin {
  /**
   * Bodies being written, per video (signed link: one at a time) and per chunk of a session (two: an uploader's
   * endgame sends a slow chunk's bytes again on another connection, as S3 takes it, and keeps the first answer).
   */
  private readonly writing = new Map<string, number>();
  /** Bytes received per video and per session, failed attempts included (read through test hooks). */
  readonly received = new Map<string, number>();

  constructor(
    private readonly uploads: Uploads,
    private readonly store: LocalStore,
    private readonly signer: UrlSigner,
    private readonly clock: Clock,
  ) {}

  // #5 for a signed link: the whole file. A failed PUT leaves nothing; the next one starts over.
  async receiveSingle(url: URL, req: IncomingMessage, corrupt = false): Promise<{ etag: string }> {
    const [, linkId] = url.pathname.match(LINK_PATH) ?? [];
    if (!linkId) throw notFound('This upload URL');
    this.signer.verify(url, this.clock.now());
    const { videoId, storageCheck } = await this.uploads.acceptLink(linkId);
    const source = this.store.files.source(videoId);
    const written = await this.exclusively(`video:${videoId}`, 1, async () => {
      const temp = `${source}${TEMP_MARK}${newId()}`;
      const body = await writeBody(req, temp, MAX_PART_BYTES, this.store.files.disk, (n) => this.count(videoId, n), {
        corrupt,
        check: storageCheck,
      });
      try {
        await this.uploads.fileStored(videoId, body.size, () => renameSync(temp, source));
      } finally {
        await rm(temp, { force: true });
      }
      return body;
    });
    return { etag: `"${written.md5}"` };
  }

  // #5 for a chunk: stored under a unique name; the database row says which file is the chunk.
  async receiveChunk(url: URL, req: IncomingMessage, corrupt = false): Promise<{ etag: string }> {
    const [, key, id] = url.pathname.match(CHUNK_PATH) ?? [];
    if (!key || !id) throw notFound('This upload URL');
    this.signer.verify(url, this.clock.now());
    const chunkId = Number(id);
    const { storageCheck } = await this.uploads.acceptChunk(key);
    const file = `${chunkId}-${newId()}`;
    const path = this.store.files.chunk(key, file);
    const written = await this.exclusively(`chunk:${key}/${chunkId}`, 2, () =>
      writeBody(req, path, MAX_PART_BYTES, this.store.files.disk, (n) => this.count(key, n), {
        corrupt,
        check: storageCheck,
      }),
    ).catch(async (err: unknown) => {
      await this.uploads.dropIfClosed(key, file);
      throw err;
    });
    await this.uploads.chunkStored(key, chunkId, { ...written, file });
    return { etag: `"${written.md5}"` };
  }

  /** Runs `write` unless `most` PUTs to the same target are sending their bodies (409): no more may race them. */
  private async exclusively<T>(target: string, most: number, write: () => Promise<T>): Promise<T> {
    const now = this.writing.get(target) ?? 0;
    if (now >= most) {
      throw new ServiceError(
        'upload_in_progress',
        'Another PUT to this URL is still sending its body; wait for it to end, or cancel it, then send again.',
      );
    }
    this.writing.set(target, now + 1);
    try {
      return await write();
    } finally {
      const left = this.writing.get(target)! - 1;
      if (left === 0) this.writing.delete(target);
      else this.writing.set(target, left);
    }
  }

  /** Counts bytes that reached a storage path (a fault took them): the session's key, or the link's video. */
  async countFor(pathname: string, n: number): Promise<void> {
    const key = CHUNK_PATH.exec(pathname)?.[1];
    const linkId = LINK_PATH.exec(pathname)?.[1];
    const id = key ?? (linkId ? await this.uploads.videoOfLink(linkId) : undefined);
    if (id) this.count(id, n);
  }

  private count(id: string, n: number): void {
    this.received.set(id, (this.received.get(id) ?? 0) + n);
  }
}

export function storageHandler(
  uploads: UploadOrigin,
  hooks: { log?: (entry: StorageRequest) => void; faults?: Faults } = {},
) {
  const { log, faults } = hooks;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (log) {
      const entry: StorageRequest = {
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0]!,
        authorization: req.headers.authorization !== undefined,
        startedAt: Date.now(),
      };
      res.once('finish', () => Object.assign(entry, { endedAt: Date.now(), status: res.statusCode }));
      // A request the client gave up on (a pause, a cut connection) ends without an answer: status 0.
      res.once('close', () => entry.endedAt === undefined && Object.assign(entry, { endedAt: Date.now(), status: 0 }));
      log(entry);
    }
    res.setHeader('access-control-allow-origin', '*');
    // ETag to complete a multipart upload; Retry-After so a throttled client knows how long to wait.
    if (faults?.exposeEtag !== false) res.setHeader('access-control-expose-headers', 'ETag, Retry-After');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'PUT, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    try {
      const url = requestUrl(req.url);
      if (req.method !== 'PUT') {
        sendError(
          res,
          new ServiceError('method_not_allowed', 'The storage accepts PUT only.', undefined, { allow: 'PUT, OPTIONS' }),
        );
        req.resume();
        return;
      }
      const chunk = url.pathname.startsWith('/chunks/');
      const fault = faults
        ? await faults.apply(chunk ? 'chunk-put' : 'single-put', req, res, (n) => uploads.countFor(url.pathname, n))
        : false;
      if (fault === true) return;
      const corrupt = fault === 'corrupt';
      const { etag } = chunk
        ? await uploads.receiveChunk(url, req, corrupt)
        : await uploads.receiveSingle(url, req, corrupt);
      res.writeHead(200, { etag, 'content-length': '0' });
      res.end();
    } catch (err) {
      // The rest of a refused body is not read: close the connection once the answer is out.
      res.setHeader('connection', 'close');
      sendError(res, err);
      req.resume();
    }
  };
}
