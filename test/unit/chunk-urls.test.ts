import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkUrls } from '../../src/upload/chunk-urls.js';

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
