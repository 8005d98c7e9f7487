import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Windows that ended are deleted this often by each process that counts (one indexed DELETE). */
const PRUNE_EVERY_MS = 60_000;

/**
 * The requests of each rate-limit key (http/api.ts) counted in the database, not in a process: every API process
 * of a service counts against the one budget, so a token whose requests a load balancer spreads over two processes
 * gets its 429 at the same total as on one (issue 30, item 4).
 *
 * Used when other processes may serve the same tokens (a role of a fleet, a database server: app.ts, sharedLimits);
 * one `all` process on its own SQLite file counts in memory, sparing a write per request. A window is fixed, as @fastify/rate-limit's own store does:
 * the first request of a key starts a minute, the count goes back to 1 at the first request after it ends. The
 * window is wall-clock time (not the service clock a test moves): it guards the process's real load.
 */
export class RateLimitCounts {
  private prunedAt = 0;

  /** `now`: wall-clock time in ms (tests give a clock of their own). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `key`; its count in the current window and the milliseconds left of it. */
  async add(key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
    const now = this.now();
    // One statement, so two processes counting the same key at once both count: the row is created or, its window
    // over, started again, or counted on; either engine serializes the two upserts of one row.
    const row = await this.db
      .insertInto('rate_limits')
      .values({ key, count: 1, reset_at: now + windowMs })
      .onConflict((c) =>
        c.column('key').doUpdateSet({
          count: sql`CASE WHEN rate_limits.reset_at <= ${now} THEN 1 ELSE rate_limits.count + 1 END`,
          reset_at: sql`CASE WHEN rate_limits.reset_at <= ${now} THEN excluded.reset_at ELSE rate_limits.reset_at END`,
        }),
      )
      .returning(['count', 'reset_at'])
      .executeTakeFirstOrThrow();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      void this.db
        .deleteFrom('rate_limits')
        .where('reset_at', '<=', now)
        .execute()
        .catch(() => {}); // the next prune tries again; a stale row is started again by its next request anyway
    }
    return { current: Number(row.count), ttl: Number(row.reset_at) - now };
  }

  /** The store @fastify/rate-limit takes (its `store` option): every limiter of the API counts here. */
  store(): FastifyRateLimitStoreCtor {
    const add = (key: string, windowMs: number) => this.add(key, windowMs);
    return class DatabaseStore implements FastifyRateLimitStore {
      incr(
        key: string,
        done: (err: Error | null, result?: { current: number; ttl: number }) => void,
        windowMs: number,
      ) {
        add(key, windowMs).then((result) => done(null, result), done);
      }
      // Each limiter's keys are already its own (api.ts prefixes them with the budget's name).
      child(): FastifyRateLimitStore {
        return this;
      }
    };
  }
}
