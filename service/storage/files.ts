import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../domain/errors.js';
import { MiB } from '../../src/api/limits.js';
import { fileMd5 } from './md5.js';

/** Where bytes live under the data directory. Names come from validated ids and keys only. */
export class Files {
  /** The data volume's room for new bytes: below its reserve, 507. */
  readonly disk: Disk;
  constructor(
    readonly root: string,
    reserveBytes: number,
  ) {
    this.disk = new Disk(root, reserveBytes);
  }
  chunkDir = (key: string) => join(this.root, 'chunks', key);
  chunk = (key: string, file: string) => join(this.chunkDir(key), file);
  videoDir = (id: string) => join(this.root, 'videos', id);
  source = (id: string) => join(this.videoDir(id), 'source');
  media = (id: string, name: string) => join(this.videoDir(id), 'media', name);
  /** A temporary recording: part1/, part2/… (one per publish, HLS from ffmpeg) and recording.mp4 once complete. */
  recordingDir = (id: string) => join(this.root, 'recordings', id);
}

export interface Written {
  size: number;
  md5: string;
}

/** Temporary files are named `<target>.part-<random>`: a crash leaves them, and the start sweeps them. */
export const TEMP_MARK = '.part-';

/** A meter looks at the free space again after this many bytes, or this long, whichever comes first. */
export const CHECK_EVERY_BYTES = 4 * MiB;
export const CHECK_EVERY_MS = 1000;

/** Bytes held for one body in flight: `check` looks again at the free space once `size` bytes are written. */
export interface Hold {
  check(size: number): Promise<void>;
  release(): void;
}

const full = (incoming: number) =>
  new ServiceError(
    'insufficient_storage',
    `The storage is too full to take ${incoming > 0 ? `${incoming} more bytes` : 'more bytes'} now: the data volume keeps its reserve free (--min-free-mb); try again later.`,
  );

/**
 * The data volume's room for new bytes: what statfs says is free, less the bytes that bodies in flight (PUTs,
 * imports) may still write, less `reserve`. One ledger per process, so concurrent bodies cannot all count on the
 * same free bytes; past it, 507 instead of filling the disk that the database, recordings and every other user share.
 */
export class Disk {
  private inFlight = 0;

  constructor(
    readonly root: string,
    readonly reserve: number,
  ) {}

  private async free(): Promise<number> {
    const fs = await statfs(this.root);
    return fs.bavail * fs.bsize;
  }

  /** 507 unless `incoming` more bytes (beside those in flight) leave the reserve free. */
  async assertRoom(incoming: number): Promise<void> {
    if ((await this.free()) - this.inFlight - incoming < this.reserve) throw full(incoming);
  }

  /**
   * Holds `bytes` for a body about to be written (its declared length, or the largest allowed when undeclared), or 507.
   * The hold shrinks as the body is written (statfs sees those bytes then) and ends with `release`.
   */
  async hold(bytes: number): Promise<Hold> {
    // Checked and taken in one turn after statfs answers: no other hold can come between.
    if ((await this.free()) - this.inFlight - bytes < this.reserve) throw full(bytes);
    this.inFlight += bytes;
    let held = bytes;
    return {
      check: async (size) => {
        const left = Math.max(0, bytes - size);
        this.inFlight -= held - left;
        held = left;
        // Something else filled the volume meanwhile (a recording, processing, another program): stop here.
        if ((await this.free()) - this.inFlight < this.reserve) throw full(0);
      },
      release: () => {
        this.inFlight -= held;
        held = 0;
      },
    };
  }
}

/**
 * A body's meter looks at the room again every CHECK_EVERY_BYTES or CHECK_EVERY_MS of it, whichever comes first:
 * something else may have filled the volume (or the quota) meanwhile. Returns the check when it is due, else nothing.
 */
export function everyFewMiB(check: (size: number) => unknown): (size: number) => Promise<void> | undefined {
  let checked = { size: 0, at: Date.now() };
  return (size) => {
    if (size - checked.size < CHECK_EVERY_BYTES && Date.now() - checked.at < CHECK_EVERY_MS) return undefined;
    checked = { size, at: Date.now() };
    return Promise.resolve().then(async () => void (await check(size)));
  };
}

/**
 * Streams a request body to `target` through a temporary file and renames it into place only once the
 * whole body arrived and is on disk (fsync), so a cut connection or a crash never leaves a half file
 * under the real name, and the row that names the file is committed only after its bytes are durable.
 * The MD5 (the chunk's ETag, as S3 computes it) is taken on the way, off the main thread (storage/md5.ts).
 * More than `limit` bytes → 413.
 * The body holds its declared length on `disk` (an undeclared one, `limit`), and the meter looks again at the
 * free space (and asks `check`, the organization's quota) every few MiB or second: 507 (or `check`'s error)
 * mid-body, the part received dropped. `onBytes` sees every byte received, failed attempts included.
 * `corrupt` (test faults only) flips the first byte before it is stored and hashed, as a faulty disk or proxy would.
 */
export async function writeBody(
  req: IncomingMessage,
  target: string,
  limit: number,
  disk: Disk,
  onBytes: (n: number) => void,
  { corrupt = false, check }: { corrupt?: boolean; check?: (size: number) => void } = {},
): Promise<Written> {
  const declared = Number(req.headers['content-length']);
  if (declared >= limit) {
    throw new ServiceError(
      'payload_too_large',
      `The body has ${declared} bytes; it must be smaller than ${limit} bytes.`,
    );
  }
  check?.(declared >= 0 ? declared : 0);
  await mkdir(join(target, '..'), { recursive: true });
  const hold = await disk.hold(declared >= 0 ? declared : limit);
  const temp = `${target}${TEMP_MARK}${randomBytes(6).toString('hex')}`;
  const out = createWriteStream(temp, { highWaterMark: MiB, flush: true });
  const md5 = fileMd5(temp);
  let size = 0;
  const recheck = everyFewMiB((n) => (check?.(n), hold.check(n)));
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      onBytes(chunk.length);
      if (size >= limit) {
        done(new ServiceError('payload_too_large', `The body must be smaller than ${limit} bytes.`));
        return;
      }
      if (corrupt && size === chunk.length && chunk.length > 0)
        chunk = Buffer.concat([Buffer.from([chunk[0]! ^ 0xff]), chunk.subarray(1)]);
      md5.written(out.bytesWritten);
      const looking = recheck(size);
      if (!looking) return done(null, chunk);
      looking.then(() => done(null, chunk), done);
    },
  });
  try {
    // flush: fsync before the stream closes, so the bytes are on disk before the row naming them commits.
    await pipeline(req, meter, out);
    if (!req.complete) throw new Error('incomplete');
    const digest = await md5.digest(size);
    await rename(temp, target);
    return { size, md5: digest };
  } catch (err) {
    md5.drop();
    await rm(temp, { force: true });
    // The client went away mid-body (cancel, lost network): an ordinary event, not a service failure.
    if (!(err instanceof ServiceError) && (req.destroyed || !req.complete)) {
      throw new ServiceError('incomplete_body', 'The connection closed before the whole body arrived.');
    }
    throw err;
  } finally {
    hold.release();
  }
}
