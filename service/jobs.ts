import type { Clock } from './clock.js';
import type { Db } from './db.js';
import type { JobOutcome } from './metrics.js';
import { setTimeout as sleep } from 'node:timers/promises';

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

/**
 * What each kind of job carries (kind → payload). Empty here: the module that enqueues a kind declares it next to
 * the kind's name (`declare module '../jobs.js' { interface JobPayloads { [PROCESS_VIDEO]: { videoId: string } } }`),
 * so `enqueue` and the handler `register` takes are checked against the same type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface JobPayloads {}
export type JobKind = keyof JobPayloads & string;

export type JobHandler<K extends JobKind = JobKind> = (payload: JobPayloads[K], signal: AbortSignal) => Promise<void>;

/** How many jobs of a kind run at once, and how many of one group (default: no limit but `concurrency`). */
export interface JobLimits {
  concurrency: number;
  perGroup?: number;
}

/** What the job runner tells as each job ends: its kind, outcome and seconds; and a failure for good, with its error. */
export interface JobEvents {
  finished(kind: string, outcome: JobOutcome, seconds: number): void;
  failed(job: string, err: unknown): void;
}

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
 * encode never holds up a short delivery, and a limit per group (an organization; jobs without one
 * share the group "none"). The queue is fair: each free slot goes to the group under its limit that runs
 * the fewest jobs of the kind and, among those, started one the longest ago (round robin), and takes that
 * group's oldest due job. However long one organization's backlog, another's job waits for one free slot
 * only, not behind the backlog. Due times are on the service clock.
 */
export class Jobs {
  private readonly handlers = new Map<string, { run: JobHandler; concurrency: number; perGroup: number }>();
  private readonly running = new Map<
    number,
    { kind: string; group: string | null; abort: AbortController; done: Promise<void> }
  >();
  /** When each group of each kind last started a job (`kind group` → pick number): the round robin's turn. */
  private readonly lastStart = new Map<string, number>();
  private picks = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Told of each job as it ends (/metrics), and of each failure for good (the log); app.ts wires them. */
    private readonly events: JobEvents = {
      finished: () => {},
      failed: (job, err) => console.error(`${job} failed:`, err),
    },
  ) {}

  register<K extends JobKind>(kind: K, run: JobHandler<K>, { concurrency, perGroup = concurrency }: JobLimits): void {
    this.handlers.set(kind, { run: run as JobHandler, concurrency, perGroup });
  }

  enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayloads[K],
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
    const due = this.db.prepare(`SELECT 1 FROM jobs WHERE state = 'queued' AND run_at <= ? LIMIT 1`);
    while (this.running.size > 0 || due.get(this.clock.now())) await sleep(50);
  }

  /** By the sweeper: jobs done or failed over a week ago (their row is history; a week leaves time to look into a failure). */
  prune(): void {
    this.db
      .prepare(`DELETE FROM jobs WHERE state IN ('done', 'failed') AND updated_at < ?`)
      .run(this.clock.now() - PRUNE_JOBS_AFTER_MS);
  }

  /** The oldest due job (by run_at, then id) of each group of `kind`: one index seek per group (jobs_pick). */
  private heads(kind: string): JobRow[] {
    const now = this.clock.now();
    return this.db
      .prepare(
        `SELECT j.id, j.kind, j.payload, j.attempts, j.grp
         FROM (SELECT grp FROM jobs WHERE kind = ? AND state = 'queued' AND run_at <= ? GROUP BY grp) AS g
         JOIN jobs AS j ON j.id = (SELECT id FROM jobs WHERE kind = ? AND state = 'queued' AND grp IS g.grp
           AND run_at <= ? ORDER BY run_at, id LIMIT 1)
         ORDER BY j.run_at, j.id`,
      )
      .all(kind, now, kind, now) as JobRow[];
  }

  private tick(): void {
    if (this.stopped) return;
    for (const [kind, handler] of this.handlers) {
      const busy = new Map<string | null, number>();
      for (const j of this.running.values()) if (j.kind === kind) busy.set(j.group, (busy.get(j.group) ?? 0) + 1);
      const turn = (grp: string | null) => this.lastStart.get(`${kind} ${grp}`) ?? -1;
      let free = handler.concurrency - [...busy.values()].reduce((a, b) => a + b, 0);
      // One job per free slot; the heads are read again after each, as the group that started has a new one.
      while (free-- > 0) {
        const [job] = this.heads(kind)
          .filter((j) => (busy.get(j.grp) ?? 0) < handler.perGroup)
          .sort((a, b) => (busy.get(a.grp) ?? 0) - (busy.get(b.grp) ?? 0) || turn(a.grp) - turn(b.grp));
        if (!job) break;
        busy.set(job.grp, (busy.get(job.grp) ?? 0) + 1);
        this.lastStart.set(`${kind} ${job.grp}`, this.picks++);
        this.run(job, handler.run);
      }
    }
  }

  private run(job: JobRow, handler: JobHandler): void {
    const update = this.db.prepare(
      `UPDATE jobs SET state = ?, attempts = ?, run_at = ?, last_error = ?, updated_at = ? WHERE id = ?`,
    );
    const now = this.clock.now();
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    update.run('running', job.attempts + 1, now, null, now, job.id);
    const entry = { kind: job.kind, group: job.grp, abort: new AbortController(), done: Promise.resolve() };
    const abort = entry.abort;
    this.running.set(job.id, entry);
    entry.done = (async () => {
      try {
        await handler(JSON.parse(job.payload) as JobPayloads[JobKind], abort.signal);
        update.run('done', job.attempts + 1, this.clock.now(), null, this.clock.now(), job.id);
        this.events.finished(job.kind, 'done', seconds());
      } catch (err) {
        const outcome = abort.signal.aborted ? 'stopped' : err instanceof RetryAt ? 'retry' : 'failed';
        this.events.finished(job.kind, outcome, seconds());
        const message = err instanceof Error ? err.message : String(err);
        if (abort.signal.aborted)
          update.run('queued', job.attempts, this.clock.now(), 'stopped', this.clock.now(), job.id);
        else if (err instanceof RetryAt)
          update.run('queued', job.attempts + 1, err.at, message, this.clock.now(), job.id);
        else {
          this.events.failed(`job ${job.kind} #${job.id}`, err);
          update.run('failed', job.attempts + 1, this.clock.now(), message, this.clock.now(), job.id);
        }
      } finally {
        this.running.delete(job.id);
        setImmediate(() => this.tick());
      }
    })();
  }
}
