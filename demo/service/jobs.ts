import type { Clock } from './clock.js';
import type { Db } from './db.js';

/** Thrown by a handler that wants to run again later (a webhook delivery that failed, say). */
export class RetryAt extends Error {
  constructor(
    readonly at: number,
    reason: string,
  ) {
    super(reason);
  }
}

const PRUNE_JOBS_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

export type JobHandler = (payload: Record<string, unknown>, signal: AbortSignal) => Promise<void>;

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  grp: string | null;
}

/**
 * Durable jobs in SQLite. A job that was running when the service stopped (or was killed) runs again
 * at the next start, so handlers must be idempotent. Each kind has its own concurrency, so a long
 * encode never holds up a short delivery, and a limit per group (an organization): a job whose group
 * already runs that many waits, and the next due job of another group takes the slot, so one
 * organization's slow receivers or huge uploads cannot hold every slot. Due times are on the service clock.
 */
export class Jobs {
  private readonly handlers = new Map<string, { run: JobHandler; concurrency: number; perGroup: number }>();
  private readonly running = new Map<
    number,
    { kind: string; group: string | null; abort: AbortController; done: Promise<void> }
  >();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** `perGroup`: how many jobs of one group may run at once (default: no limit but `concurrency`). */
  register(kind: string, run: JobHandler, concurrency = 1, perGroup = concurrency): void {
    this.handlers.set(kind, { run, concurrency, perGroup });
  }

  enqueue(
    kind: string,
    payload: Record<string, unknown>,
    runAt = this.clock.now(),
    group: string | null = null,
  ): number {
    const now = this.clock.now();
    const r = this.db
      .prepare(
        `INSERT INTO jobs (kind, payload, state, run_at, created_at, updated_at, grp) VALUES (?, ?, 'queued', ?, ?, ?, ?)`,
      )
      .run(kind, JSON.stringify(payload), runAt, now, now, group);
    setImmediate(() => this.tick());
    return Number(r.lastInsertRowid);
  }

  start(): void {
    this.db.prepare(`UPDATE jobs SET state = 'queued' WHERE state = 'running'`).run();
    this.stopped = false;
    this.timer = setInterval(() => this.tick(), 250);
    this.tick();
  }

  /** Stops taking jobs and aborts the running ones; they are queued again for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const job of this.running.values()) job.abort.abort();
    await Promise.all([...this.running.values()].map((j) => j.done));
  }

  /** Resolves when no job is queued for now or running (tests and benchmarks wait on it). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.due(1).length > 0) await new Promise((r) => setTimeout(r, 50));
  }

  /** By the sweeper: jobs done or failed over a week ago (their row is history; a week leaves time to look into a failure). */
  prune(): void {
    this.db
      .prepare(`DELETE FROM jobs WHERE state IN ('done', 'failed') AND updated_at < ?`)
      .run(this.clock.now() - PRUNE_JOBS_AFTER_MS);
  }

  private due(limit: number, kinds = [...this.handlers.keys()]): JobRow[] {
    if (kinds.length === 0) return [];
    const marks = kinds.map(() => '?').join(', ');
    return this.db
      .prepare(
        `SELECT id, kind, payload, attempts, grp FROM jobs WHERE state = 'queued' AND run_at <= ? AND kind IN (${marks})
         ORDER BY run_at, id LIMIT ?`,
      )
      .all(this.clock.now(), ...kinds, limit) as JobRow[];
  }

  private tick(): void {
    if (this.stopped) return;
    for (const [kind, handler] of this.handlers) {
      const mine = [...this.running.values()].filter((j) => j.kind === kind);
      let free = handler.concurrency - mine.length;
      if (free <= 0) continue;
      const perGroup = new Map<string | null, number>();
      for (const j of mine) perGroup.set(j.group, (perGroup.get(j.group) ?? 0) + 1);
      // Oldest first, skipping jobs whose group is at its limit (looking further than the free slots for them).
      for (const job of this.due(handler.concurrency * 50, [kind])) {
        if (free <= 0) break;
        const busy = perGroup.get(job.grp) ?? 0;
        if (job.grp !== null && busy >= handler.perGroup) continue;
        perGroup.set(job.grp, busy + 1);
        free--;
        this.run(job, handler.run);
      }
    }
  }

  private run(job: JobRow, handler: JobHandler): void {
    const update = this.db.prepare(
      `UPDATE jobs SET state = ?, attempts = ?, run_at = ?, last_error = ?, updated_at = ? WHERE id = ?`,
    );
    const now = this.clock.now();
    update.run('running', job.attempts + 1, now, null, now, job.id);
    const entry = { kind: job.kind, group: job.grp, abort: new AbortController(), done: Promise.resolve() };
    const abort = entry.abort;
    this.running.set(job.id, entry);
    entry.done = (async () => {
      try {
        await handler(JSON.parse(job.payload) as Record<string, unknown>, abort.signal);
        update.run('done', job.attempts + 1, this.clock.now(), null, this.clock.now(), job.id);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (abort.signal.aborted)
          update.run('queued', job.attempts, this.clock.now(), 'stopped', this.clock.now(), job.id);
        else if (err instanceof RetryAt)
          update.run('queued', job.attempts + 1, err.at, message, this.clock.now(), job.id);
        else {
          console.error(`job ${job.kind} #${job.id} failed:`, err);
          update.run('failed', job.attempts + 1, this.clock.now(), message, this.clock.now(), job.id);
        }
      } finally {
        this.running.delete(job.id);
        setImmediate(() => this.tick());
      }
    })();
  }
}
