import { randomBytes, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../domain/errors.js';

/** Where bytes live under the data directory. Names come from validated ids and keys only. */
export class Files {
  constructor(readonly root: string) {}
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

/**
 * Refuses new bytes (507) when the data volume would keep less than `reserve` bytes free after `incoming`
 * more, instead of filling the disk that the database, recordings and every other user share.
 */
export async function assertRoom(dir: string, incoming: number, reserve: number): Promise<void> {
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  if (free - incoming < reserve) {
    throw new ServiceError(
      'insufficient_storage',
      `The storage is too full to take ${incoming} more bytes now; try again later.`,
    );
  }
}

/**
 * Streams a request body to `target` through a temporary file and renames it into place only once the
 * whole body arrived and is on disk (fsync), so a cut connection or a crash never leaves a half file
 * under the real name, and the row that names the file is committed only after its bytes are durable.
 * The MD5 (the chunk's ETag, as S3 computes it) is taken on the way. More than `limit` bytes → 413.
 * `onBytes` sees every byte received, failed attempts included. `corrupt` (test faults only) flips the
 * first byte before it is stored and hashed, as a faulty disk or proxy would.
 */
export async function writeBody(
  req: IncomingMessage,
  target: string,
  limit: number,
  onBytes: (n: number) => void,
  corrupt = false,
): Promise<Written> {
  const declared = Number(req.headers['content-length']);
  if (declared >= limit) {
    throw new ServiceError(
      'payload_too_large',
      `The body has ${declared} bytes; it must be smaller than ${limit} bytes.`,
    );
  }
  const dir = join(target, '..');
  await mkdir(dir, { recursive: true });
  const temp = `${target}${TEMP_MARK}${randomBytes(6).toString('hex')}`;
  const md5 = createHash('md5');
  let size = 0;
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
      md5.update(chunk);
      done(null, chunk);
    },
  });
  try {
    // flush: fsync before the stream closes, so the bytes are on disk before the row naming them commits.
    await pipeline(req, meter, createWriteStream(temp, { highWaterMark: 1024 * 1024, flush: true }));
    if (!req.complete) throw new Error('incomplete');
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    // The client went away mid-body (cancel, lost network): an ordinary event, not a service failure.
    if (!(err instanceof ServiceError) && (req.destroyed || !req.complete)) {
      throw new ServiceError('incomplete_body', 'The connection closed before the whole body arrived.');
    }
    throw err;
  }
  return { size, md5: md5.digest('hex') };
}
