import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  autoChunkSize,
  MAX_AUTO_CHUNK_BYTES,
  MIN_CHUNK_BYTES,
  planUpload,
  shrinkingRange,
  shrinkingSizes,
} from '../../src/upload/plan.js';
import { MiB } from '../../src/api/limits.js';

describe('chunk size sized to the file', () => {
  it('gives every connection several chunks, between 5 and 64 MiB', () => {
    assert.equal(autoChunkSize(64 * MiB, 6), MIN_CHUNK_BYTES);
    assert.equal(autoChunkSize(256 * MiB, 6), 11 * MiB);
    assert.equal(autoChunkSize(20 * 1024 * MiB, 6), MAX_AUTO_CHUNK_BYTES);
    assert.equal(planUpload(256 * MiB, MiB, null, 1).chunks, 4);
  });

  it('with several connections, cuts chunks that shrink with what is left: 256 MiB over six is the measured plan', () => {
    const plan = planUpload(256 * MiB, MiB, null, 6);
    assert.equal(plan.shrink, 12);
    assert.deepEqual(
      shrinkingSizes(256 * MiB, 12).map((bytes) => bytes / MiB),
      [22, 20, 18, 17, 15, 14, 13, 12, 11, 10, 9, 8, 8, 7, 6, 6, ...Array(12).fill(5)],
    );
    assert.equal(plan.chunks, 28);
    assert.deepEqual(shrinkingRange(256 * MiB, 12, 1), { start: 0, end: 22 * MiB });
    assert.deepEqual(shrinkingRange(256 * MiB, 12, 2), { start: 22 * MiB, end: 42 * MiB });
    assert.deepEqual(shrinkingRange(256 * MiB, 12, 28), { start: 251 * MiB, end: 256 * MiB });
  });

  it('gives a shrinking plan only where @uppy/aws-s3 cuts as many chunks, each 5 to 64 MiB but the last', () => {
    let shrinking = 0;
    for (let size = 5 * MiB + 1; size < 3000 * MiB; size = Math.ceil(size * 1.07) + 12345) {
      for (const parallel of [2, 3, 4, 6]) {
        const plan = planUpload(size, MiB, null, parallel);
        if (!plan.shrink) continue;
        shrinking++;
        // @uppy/aws-s3 5.x (MultipartUploader#initChunks): chunks of max(getChunkSize, 5 MiB) until the end.
        assert.equal(Math.ceil(size / Math.max(plan.chunkSize, MIN_CHUNK_BYTES)), plan.chunks, `${size}/${parallel}`);
        let next = 0;
        for (let id = 1; id <= plan.chunks; id++) {
          const { start, end } = shrinkingRange(size, plan.shrink, id);
          assert.equal(start, next, `chunk ${id} of ${size} starts where the one before ended`);
          assert.ok(end - start <= MAX_AUTO_CHUNK_BYTES && (id === plan.chunks || end - start >= MIN_CHUNK_BYTES));
          next = end;
        }
        assert.equal(next, size, `the chunks of ${size} end at its end`);
      }
    }
    assert.ok(shrinking > 100, `${shrinking} shrinking plans checked`);
  });

  it('keeps a chunk-size that is set, and the 10,000-chunk rule over either', () => {
    assert.deepEqual(planUpload(256 * MiB, MiB, 32 * MiB, 6), { method: 'multipart', chunkSize: 32 * MiB, chunks: 8 });
    const huge = planUpload(1024 * 1024 * MiB, MiB, null, 6);
    assert.ok(huge.chunks <= 10_000);
  });
});
