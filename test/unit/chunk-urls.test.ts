import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkUrls } from '../../src/upload/chunk-urls.js';

/** Lets the answers already given reach their waiters. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

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
    await urls.take('v', 's', 1);
    await tick();
    assert.deepEqual(asked, [1, 2, 3, 4, 5, 6]);
  });

  it("asks a video's first chunk URL alone, and the others once it has answered (its preflight is cached then)", async () => {
    const asked: string[] = [];
    let answerFirst!: () => void;
    const urls = new ChunkUrls((video, session, chunkId) => {
      asked.push(`${video}/${chunkId}`);
      if (asked.length > 1) return Promise.resolve(`${session}/${chunkId}`);
      return new Promise((resolve) => (answerFirst = () => resolve(`${session}/${chunkId}`)));
    });
    urls.ahead('v', 's', 1, 4, 10, () => false);
    urls.ahead('w', 't', 1, 2, 10, () => false);
    await tick();
    // Another video's first goes at once; its second waits for its own first only.
    assert.deepEqual(asked, ['v/1', 'w/1', 'w/2']);
    answerFirst();
    assert.equal(await urls.take('v', 's', 4), 's/4');
    assert.deepEqual(asked, ['v/1', 'w/1', 'w/2', 'v/2', 'v/3', 'v/4']);
    // Answered once: later ones go at once, a chunk sent again too.
    urls.ahead('v', 's', 5, 1, 10, () => false);
    assert.deepEqual(asked.slice(6), ['v/5']);
  });

  it("sends the others when the video's first #4 failed: the chunk that takes it gets the failure", async () => {
    const asked: number[] = [];
    const urls = new ChunkUrls(async (_v, _s, chunkId) => {
      asked.push(chunkId);
      if (chunkId === 1) throw new Error('#4 answered 503');
      return `u${chunkId}`;
    });
    urls.ahead('v', 's', 1, 3, 3, () => false);
    await assert.rejects(urls.take('v', 's', 1), /503/);
    assert.equal(await urls.take('v', 's', 3), 'u3');
    assert.deepEqual(asked, [1, 2, 3]);
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
    await tick();
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
