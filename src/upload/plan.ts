import { GIB, MAX_CHUNKS, MAX_PART_BYTES, MiB } from '../api/limits.js';

/** @uppy/aws-s3 5.x never cuts chunks smaller than this, and uploads smaller files in one PUT. */
export const MIN_CHUNK_BYTES = 5 * MiB;

export interface UploadPlan {
  method: 'single' | 'multipart';
  /**
   * Bytes per chunk as @uppy/aws-s3 cuts the file (the last one may be smaller); the file size for a single
   * upload. With `shrink`, what each chunk really carries is `shrinkingRange`'s.
   */
  chunkSize: number;
  chunks: number;
  /** Set when chunks shrink with what is left: each is 1/`shrink` of it (`shrinkingSizes`). */
  shrink?: number;
}

/** Equal chunks with no `chunk-size` (`autoChunkSize`): this many per connection. */
export const CHUNKS_PER_CONNECTION = 4;
/** The largest chunk picked when `chunk-size` is not set: a lost chunk costs at most this much again. */
export const MAX_AUTO_CHUNK_BYTES = 64 * MiB;

/**
 * The equal chunk size when `chunk-size` is not set and chunks do not shrink (one connection, or a file
 * @uppy/aws-s3 would not cut into the shrinking plan's count): enough chunks that every connection
 * (`parallel-uploads`) has several, within 5 to 64 MiB. Over a lossy link each TCP connection is held back by its
 * own losses, and parallel connections are what beats that (bench/link.bench.ts; docs/benchmarks.md has the figures).
 */
export function autoChunkSize(size: number, parallel: number): number {
  const even = Math.ceil(size / (parallel * CHUNKS_PER_CONNECTION) / MiB) * MiB;
  return Math.min(Math.max(even, MIN_CHUNK_BYTES), MAX_AUTO_CHUNK_BYTES);
}

/**
 * Chunk sizes that shrink with what is left, when `chunk-size` is not set: each chunk is 1/`shrink` of the bytes
 * not yet cut (`shrink` is twice `parallel-uploads`), in whole MiB, 5 to 64 MiB; the last is what is left, however
 * small. 256 MiB over six connections: 22, 20, 18 … down to twelve of 5 MiB, 28 chunks. A chunk that
 * starts late is small, so one that starts on a slow connection no longer ends seconds after the others (docs/benchmarks.md,
 * "Over real links", has the runs).
 */
export function shrinkingSizes(size: number, shrink: number): number[] {
  const sizes: number[] = [];
  for (let left = size; left > 0;) {
    const next = Math.min(MAX_AUTO_CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, Math.ceil(left / shrink / MiB) * MiB), left);
    sizes.push(next);
    left -= next;
  }
  return sizes;
}

/**
 * Where chunk `chunkId` (from 1) of a shrinking plan starts and ends. @uppy/aws-s3 5.x cuts every chunk to one
 * size: it is told to cut as many chunks as the plan has, and the PUT of each sends these bytes instead
 * (aws-s3-options.ts).
 */
export function shrinkingRange(size: number, shrink: number, chunkId: number): { start: number; end: number } {
  const key = `${size}/${shrink}`;
  let ends = shrinkingEnds.get(key);
  if (!ends) {
    let end = 0;
    ends = shrinkingSizes(size, shrink).map((bytes) => (end += bytes));
    shrinkingEnds.set(key, ends);
  }
  return { start: ends[chunkId - 2] ?? 0, end: ends[chunkId - 1]! };
}
/** Each shrinking plan's chunk ends, by file size and `shrink`: asked for once per chunk PUT. */
const shrinkingEnds = new Map<string, number[]>();

/**
 * How a file of `size` bytes is sent: by the signed link under `threshold`, otherwise in chunks of `chunkSize`
 * raised (to a whole MiB) when the file would need more than MAX_CHUNKS of them. With no `chunkSize`, chunks shrink
 * with what is left (`shrinkingSizes`) over `parallel` > 1 connections, else they are `autoChunkSize`. Chunks
 * stay below the spec's 5 GB; a file that cannot fit is refused with a message that says why.
 */
export function planUpload(size: number, threshold: number, chunkSize: number | null, parallel = 1): UploadPlan {
  if (size < threshold || size <= MIN_CHUNK_BYTES) return { method: 'single', chunkSize: size, chunks: 1 };
  const wanted = chunkSize ?? autoChunkSize(size, parallel);
  const raised = Math.max(wanted, MIN_CHUNK_BYTES, Math.ceil(size / MAX_CHUNKS / MiB) * MiB);
  if (raised >= MAX_PART_BYTES) {
    throw new RangeError(
      `A file of ${size} bytes would need chunks of ${MAX_PART_BYTES / GIB} GB or more; the service takes at most ${MAX_CHUNKS} chunks under ${MAX_PART_BYTES / GIB} GB.`,
    );
  }
  // One connection has no others to end with: its chunks stay even.
  if (chunkSize === null && parallel > 1) {
    const shrink = 2 * parallel;
    const chunks = shrinkingSizes(size, shrink).length;
    const nominal = Math.max(Math.ceil(size / chunks), MIN_CHUNK_BYTES);
    // Only where @uppy/aws-s3 5.x, cutting `nominal` bytes a chunk, cuts as many (nor over MAX_CHUNKS of MAX_AUTO_CHUNK_BYTES).
    if (chunks <= MAX_CHUNKS && Math.ceil(size / nominal) === chunks)
      return { method: 'multipart', chunkSize: nominal, chunks, shrink };
  }
  return { method: 'multipart', chunkSize: raised, chunks: Math.ceil(size / raised) };
}
