import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkUrls } from '../../src/upload/chunk-urls.js';
import {
  autoChunkSize,
  MAX_AUTO_CHUNK_BYTES,
  MIN_CHUNK_BYTES,
  MiB,
  planUpload,
  shrinkingRange,
  shrinkingSizes,
} from '../../src/upload/plan.js';

/** A #4 that records what it was asked for and answers a URL naming the chunk. */
function recorder() {
  const asked: number[] = [];
  const urls = new ChunkUrls(async (_video, session, chunkId) => {
    asked.push(chunkId);
    return `https://storage.test/${session}/${chunkId}?n=${asked.length}`;
  });
  return { asked, urls };
}

describe('chunk URLs asked for ahead', () => {
  it('asks for the next chunks, one per connection, never past the last, and each only once', async () => {
    const { asked, urls } = recorder();
    urls.ahead('v', 's', 1, 4, 6, () => false);
    urls.ahead('v', 's', 2, 4, 6, () => false);
    urls.ahead('v', 's', 3, 4, 6, () => false);
    assert.deepEqual(asked, [1, 2, 3, 4, 5, 6]);
  });

  it('hands a fetched URL to its chunk without asking again, and asks afresh for a chunk sent again', async () => {
    const { asked, urls } = recorder();
    urls.ahead('v', 's', 1, 2, 10, () => false);
    assert.equal(await urls.take('v', 's', 2), 'https://storage.test/s/2?n=2');
    assert.deepEqual(asked, [1, 2]);
    // A retry of chunk 2 (its URL expired, say) gets a new URL.
    assert.equal(await urls.take('v', 's', 2), 'https://storage.test/s/2?n=3');
  });

  it('does not ask again for a chunk whose PUT is under way when a retried chunk asks ahead', async () => {
    const { asked, urls } = recorder();
    urls.ahead('v', 's', 1, 3, 10, () => false);
    await Promise.all([1, 2, 3].map((id) => urls.take('v', 's', id)));
    // Chunk 2's URL expired: it is signed again and asks ahead from itself; 3 is still being sent.
    urls.again('s', 2);
    urls.ahead('v', 's', 2, 3, 10, () => false);
    assert.deepEqual(asked, [1, 2, 3, 2, 4]);
  });

  it('skips chunks already in, and forgets a finished session', async () => {
    const { asked, urls } = recorder();
    urls.ahead('v', 's', 1, 4, 10, (id) => id === 2);
    assert.deepEqual(asked, [1, 3, 4]);
    urls.forget('s');
    await urls.take('v', 's', 3);
    assert.deepEqual(asked, [1, 3, 4, 3]);
  });

  it('gives a failed request to the chunk that takes it, and to no one else', async () => {
    const urls = new ChunkUrls(async (_v, _s, chunkId) => {
      if (chunkId === 2) throw new Error('#4 answered 503');
      return `u${chunkId}`;
    });
    urls.ahead('v', 's', 1, 3, 3, () => false);
    assert.equal(await urls.take('v', 's', 1), 'u1');
    await assert.rejects(urls.take('v', 's', 2), /503/);
    assert.equal(await urls.take('v', 's', 3), 'u3');
  });
});

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
