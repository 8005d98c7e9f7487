import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../service/db/index.js';
import { RateLimitCounts } from '../../service/http/rate-limit-store.js';

const MINUTE = 60_000;

/**
 * The rate limits counted in the database (service/http/rate-limit-store.ts), as the processes of a fleet count
 * them: a fixed window per key, and the windows that ended deleted, so the table holds the keys of the last minute
 * only.
 */
describe('rate-limit counts in the database', () => {
  let db: Db;
  /** The wall clock the counts read, moved by the test. */
  let now = Date.UTC(2026, 0, 1);
  let counts: RateLimitCounts;
  before(async () => {
    db = await openDatabase(':memory:');
    counts = new RateLimitCounts(db, () => now);
  });
  after(() => db.destroy());

  const keys = async () =>
    (await db.selectFrom('rate_limits').select('key').orderBy('key').execute()).map((r) => r.key);

  /** Resolves once the table holds `expected` (a prune runs beside the count that starts it). */
  async function untilKeys(expected: string[]): Promise<void> {
    for (let i = 0; i < 500 && JSON.stringify(await keys()) !== JSON.stringify(expected); i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(await keys(), expected);
  }

  it('counts a key within its window, and starts again after it', async () => {
    assert.deepEqual(await counts.add('a', MINUTE), { current: 1, ttl: MINUTE });
    now += 1_000;
    assert.deepEqual(await counts.add('a', MINUTE), { current: 2, ttl: MINUTE - 1_000 });
    now += MINUTE;
    assert.deepEqual(await counts.add('a', MINUTE), { current: 1, ttl: MINUTE });
  });

  it('deletes the windows that ended, once a minute, and keeps those still running', async () => {
    now += 2 * MINUTE;
    await counts.add('ended', 1_000);
    await counts.add('running', 10 * MINUTE);
    now += 2_000;
    await counts.add('new', MINUTE);
    assert.ok((await keys()).includes('ended'), 'not pruned before a minute has passed since the last prune');
    // A minute after the last prune, which the count of `ended` started: `new` has 2 s of its window left.
    now += MINUTE - 2_000;
    await counts.add('newer', MINUTE);
    await untilKeys(['new', 'newer', 'running']);
  });
});
