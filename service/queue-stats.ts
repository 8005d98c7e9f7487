import type { Db } from './db.js';
import type { QueueStat } from './metrics.js';

/**
 * What /metrics reads from the database at scrape time, one function per table. Each belongs to the module that
 * owns its table (the queue to jobs.ts, the sources to domain/videos.ts) and moves there when those modules get
 * their query layer (issue 30); until then they are the only reads of those tables from outside, and read-only.
 */

/** Each kind's due and running jobs and its oldest due job: one pass over the jobs_due index (state, run_at). */
export function queueStats(db: Db, now: number): QueueStat[] {
  return db
    .prepare(
      `SELECT kind,
         SUM(state = 'queued' AND run_at <= @now) AS due,
         SUM(state = 'running') AS running,
         MIN(CASE WHEN state = 'queued' AND run_at <= @now THEN run_at END) AS oldestDueAt
       FROM jobs WHERE state IN ('queued', 'running') GROUP BY kind`,
    )
    .all({ now }) as QueueStat[];
}

/** The bytes of every video's source (what domain/usage.ts counts against quotas, for all organizations). */
export function storedSourceBytes(db: Db): number {
  return (db.prepare('SELECT COALESCE(SUM(size), 0) AS b FROM videos').get() as { b: number }).b;
}
