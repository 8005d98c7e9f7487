import { MAX_PART_BYTES } from '../api/limits.js';

export const MiB = 1024 * 1024;
/** @uppy/aws-s3 5.x never cuts chunks smaller than this, and uploads smaller files in one PUT. */
export const MIN_CHUNK_BYTES = 5 * MiB;
/** No file is cut into more chunks than this (S3's limit; the local service's too). */
export const MAX_CHUNKS = 10_000;

export interface UploadPlan {
  method: 'single' | 'multipart';
  /** Bytes per chunk (the last one may be smaller); the file size for a single upload. */
  chunkSize: number;
  chunks: number;
}

/** With no `chunk-size`, a file is cut into this many chunks per connection (see `autoChunkSize`). */
export const CHUNKS_PER_CONNECTION = 4;
/** The largest chunk `autoChunkSize` picks: a lost chunk costs at most this much again. */
export const MAX_AUTO_CHUNK_BYTES = 64 * MiB;

/**
 * The chunk size when `chunk-size` is not set: enough chunks that every connection (`parallel-uploads`) has
 * several, so that all of them stay busy until near the end and the last round is short, within 5 to 64 MiB.
 * Over a lossy link each TCP connection is held back by its own losses, and parallel connections are what
 * beats that (bench/link.bench.ts; the README has the figures).
 */
export function autoChunkSize(size: number, parallel: number): number {
  const even = Math.ceil(size / (parallel * CHUNKS_PER_CONNECTION) / MiB) * MiB;
  return Math.min(Math.max(even, MIN_CHUNK_BYTES), MAX_AUTO_CHUNK_BYTES);
}

/**
 * How a file of `size` bytes is sent: by the signed link under `threshold`, otherwise in chunks of
 * `chunkSize` (null: `autoChunkSize` for `parallel` connections), raised (to a whole MiB) when the file would
 * need more than 10,000 of them. Chunks stay below the spec's 5 GB; a file that cannot fit is refused with a
 * message that says why.
 */
export function planUpload(size: number, threshold: number, chunkSize: number | null, parallel = 1): UploadPlan {
  if (size < threshold || size <= MIN_CHUNK_BYTES) return { method: 'single', chunkSize: size, chunks: 1 };
  const wanted = chunkSize ?? autoChunkSize(size, parallel);
  const raised = Math.max(wanted, MIN_CHUNK_BYTES, Math.ceil(size / MAX_CHUNKS / MiB) * MiB);
  if (raised >= MAX_PART_BYTES) {
    throw new RangeError(
      `A file of ${size} bytes would need chunks of 5 GB or more; the service takes at most ${MAX_CHUNKS} chunks under 5 GB.`,
    );
  }
  return { method: 'multipart', chunkSize: raised, chunks: Math.ceil(size / raised) };
}
