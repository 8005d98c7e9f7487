import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { domainUnderTest, type DomainUnderTest } from '../helpers/domain.js';

/**
 * The claim on a video's completion (Videos.claimCompleting): #6, and #8 or the sweeper taking a #2 upload in from a
 * store, work on a video one at a time. A claim whose release was lost (its process died, or the database went away
 * as it released: the cluster's PostgreSQL restart) must not keep the video waiting for minutes.
 */
describe("the claim on a video's completion (domain on an in-memory database)", () => {
  let domain: DomainUnderTest;
  let id: string;
  beforeEach(async () => {
    domain = await domainUnderTest();
    id = (await domain.call('POST', '/videos', { token: domain.key })).body._id;
  });
  afterEach(async () => {
    mock.timers.reset();
    await domain.close();
  });
  const claim = () => domain.context.videos.claimCompleting(id);

  it('is held by one at a time, and passes on once released', async () => {
    const first = await claim();
    assert.ok(first);
    assert.equal(await claim(), undefined, 'a second while the first holds');
    await first.release();
    const second = await claim();
    assert.ok(second, 'the next, once released');
    await second.release();
  });

  it('passes within 30 s when its release is lost, and a late release leaves the next holder alone', async () => {
    const lost = await claim();
    assert.ok(lost);
    domain.context.clock.advance(29_000);
    assert.equal(await claim(), undefined, 'still held at 29 s');
    domain.context.clock.advance(1_000);
    const next = await claim();
    assert.ok(next, 'taken over at 30 s');
    await lost.release();
    assert.equal(await claim(), undefined, "the first's late release does not end the second's claim");
    await next.release();
  });

  it('is renewed while its holder works', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    const working = await claim();
    assert.ok(working);
    for (let s = 0; s < 60; s += 10) {
      domain.context.clock.advance(10_000);
      mock.timers.tick(10_000);
      await new Promise((resolve) => setImmediate(resolve)); // the renewal's statement runs
      assert.equal(await claim(), undefined, `held at ${s + 10} s, renewed`);
    }
    await working.release();
    assert.ok(await claim(), 'free once released');
  });
});
