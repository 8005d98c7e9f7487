import { MAX_PART_BYTES } from '../../src/api/limits.js';
import type { ChunkDetail } from '../../src/api/types.js';
import { badField, show } from '../domain/errors.js';
import { inOrder } from '../domain/uploads.js';
import type { StoredPart } from './s3.js';

/**
 * #6's checks, before the store joins anything: `chunks` names chunkIds 1..N (any order, no gap, no duplicate), each
 * one stored, with the eTag the store gave it (quotes and case aside: the spec's example sends it quoted), each smaller
 * than MAX_PART_BYTES, and every one but the last at least `minPartBytes` (S3's 5 MiB; 0 on disk). Chunks stored but
 * not listed are left out, as S3 leaves them. Returns the parts in order and the joined size (for the quota).
 */
export function matchParts(
  listed: ChunkDetail[],
  stored: StoredPart[],
  minPartBytes = 0,
): { parts: { partNumber: number; etag: string }[]; size: number } {
  const sorted = inOrder(listed);
  const byNumber = new Map(stored.map((p) => [p.partNumber, p]));
  let size = 0;
  const parts = sorted.map((c, i) => {
    const part = byNumber.get(c.chunkId);
    if (!part) throw badField(`chunks[${c.at}].chunkId`, `Chunk ${c.chunkId} was never uploaded to this session.`);
    const etag = c.eTag.replace(/^"|"$/g, '').toLowerCase();
    if (etag !== part.etag)
      throw badField(
        `chunks[${c.at}].eTag`,
        `The eTag of chunk ${c.chunkId} is ${show(c.eTag)}, but the stored chunk has "${part.etag}".`,
      );
    if (part.size >= MAX_PART_BYTES)
      throw badField(
        `chunks[${c.at}]`,
        `Chunk ${c.chunkId} has ${part.size} bytes; it must be smaller than ${MAX_PART_BYTES}.`,
      );
    if (i < sorted.length - 1 && part.size < minPartBytes)
      throw badField(
        `chunks[${c.at}]`,
        `Chunk ${c.chunkId} has ${part.size} bytes; every chunk but the last must have at least ${minPartBytes} on this store.`,
      );
    size += part.size;
    return { partNumber: c.chunkId, etag: part.etag };
  });
  return { parts, size };
}
