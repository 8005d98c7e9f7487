import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MiB } from '../../src/api/limits.js';
import type { UploadStore } from '../domain/uploads.js';
import { newId } from '../ids.js';
import { TEMP_MARK, type Files } from './files.js';
import type { UrlSigner } from './signing.js';

/** The storage origin's paths (storage/server.ts): a signed link's, and a chunk's of a multipart session. */
export const LINK_PATH = /^\/uploads\/([0-9a-f]{24})$/;
export const CHUNK_PATH = /^\/chunks\/(mpu_[A-Za-z0-9_-]{32})\/(\d{1,5})$/;

/**
 * Uploads on the local disk (the data directory), their bytes taken by the storage origin (storage/server.ts):
 * the store the domain asks for links, chunk links, room and the joined source (domain/uploads.ts, UploadStore).
 * A chunk is a file `chunks/<key>/<name>`; the name is the storage's (the database row says which file is the chunk).
 */
export class LocalStore implements UploadStore {
  constructor(
    readonly files: Files,
    private readonly signer: UrlSigner,
  ) {}

  // A single link is one connection: on the first host. Chunk N on host N-1 (round the hosts), so chunks uploaded
  // together spread over the hosts and the browser's connections to each (six per host) add up (issue 32); every
  // process names the same host for the same chunk.
  linkUrl(linkId: string, expiresAt: number): string {
    return this.signer.sign(`/uploads/${linkId}`, expiresAt, 0);
  }

  chunkUrl(key: string, chunkId: number, expiresAt: number): string {
    return this.signer.sign(`/chunks/${key}/${chunkId}`, expiresAt, chunkId - 1);
  }

  assertRoom(bytes: number): Promise<void> {
    return this.files.disk.assertRoom(bytes);
  }

  /** Joined under a temporary name, on disk (fsync) before it takes the source's name; an existing source is kept. */
  async assemble(videoId: string, key: string, chunks: string[]): Promise<void> {
    const source = this.files.source(videoId);
    if (existsSync(source)) return;
    await mkdir(this.files.videoDir(videoId), { recursive: true });
    const temp = `${source}${TEMP_MARK}${newId()}`;
    try {
      await pipeline(
        (async function* (files: string[]) {
          for (const file of files) yield* createReadStream(file, { highWaterMark: 4 * MiB });
        })(chunks.map((chunk) => this.files.chunk(key, chunk))),
        createWriteStream(temp, { highWaterMark: 4 * MiB, flush: true }),
      );
      renameSync(temp, source);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async removeChunks(key: string, chunks: string[]): Promise<void> {
    await Promise.all(chunks.map((chunk) => rm(this.files.chunk(key, chunk), { force: true })));
  }

  async removeSession(key: string): Promise<void> {
    // Retried: a PUT racing the close may create its file in the folder while it is being removed (ENOTEMPTY);
    // that PUT then finds the session closed and deletes its file (Uploads.dropIfClosed).
    await rm(this.files.chunkDir(key), { recursive: true, force: true, maxRetries: 5 });
  }

  /** Every temporary file under chunks/ and videos/ (no writer can exist yet): half bodies, half assembled sources. */
  async sweepTemporary(): Promise<void> {
    for (const dir of [join(this.files.root, 'chunks'), join(this.files.root, 'videos')]) {
      const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
      await Promise.all(entries.filter((e) => e.includes(TEMP_MARK)).map((e) => rm(join(dir, e), { force: true })));
    }
  }
}
