import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VideoServiceError } from '../../src/api/errors.js';
import { TokenCache, type TokenResult } from '../../src/api/token.js';

/** A provider that answers from a list and counts its calls. */
function provider(...answers: (TokenResult | Error)[]) {
  const calls = { n: 0 };
  const get = async () => {
    const answer = answers[Math.min(calls.n++, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { get, calls };
}

describe('token cache (src/api/token.ts)', () => {
  it('asks the provider once for callers at the same time, then serves the cached token', async () => {
    const p = provider({ token: 'a', expiresAt: Date.now() + 3_600_000 });
    const cache = new TokenCache(p.get);
    assert.deepEqual(await Promise.all([cache.get(), cache.get(), cache.get()]), ['a', 'a', 'a']);
    assert.equal(await cache.get(), 'a');
    assert.equal(p.calls.n, 1);
  });

  it('renews a token 30 s before it expires, and reads expiresAt in ms, seconds or ISO 8601', async () => {
    for (const expiresAt of [
      Date.now() + 20_000,
      Math.floor(Date.now() / 1000) + 20,
      new Date(Date.now() + 20_000).toISOString(),
    ]) {
      const p = provider({ token: 'old', expiresAt }, { token: 'new', expiresAt: Date.now() + 3_600_000 });
      const cache = new TokenCache(p.get);
      assert.equal(await cache.get(), 'old');
      assert.equal(await cache.get(), 'new', `expiresAt ${JSON.stringify(expiresAt)} is inside the margin`);
    }
  });

  it('forgets a refused token, but not a newer one fetched meanwhile', async () => {
    const p = provider('one', 'two', 'three');
    const cache = new TokenCache(p.get);
    assert.equal(await cache.get(), 'one');
    cache.invalidate('one');
    assert.equal(await cache.get(), 'two');
    cache.invalidate('one');
    assert.equal(await cache.get(), 'two');
  });

  it('turns a failing or empty provider into a VideoServiceError that says so', async () => {
    await assert.rejects(
      new TokenCache(provider(new Error('backend down')).get).get(),
      (e: VideoServiceError) => e.code === 'token' && e.retryable && /backend down/.test(e.message),
    );
    await assert.rejects(
      new TokenCache(provider('').get).get(),
      (e: VideoServiceError) => e.code === 'token' && !e.retryable && /no token/.test(e.message),
    );
    await assert.rejects(new TokenCache(provider({ token: 't', expiresAt: 'soon' }).get).get(), /"soon" is not a date/);
  });
});
