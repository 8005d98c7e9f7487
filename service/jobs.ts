import type { JobOutcome, QueueStat } from './metrics.js';
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from './clock.js';
import { engineOf } from './db/index.js';
import type { Database } from './db/schema.js';
import { holderGone, holderName, PID_SPACE } from './leases.js';
import { log } from './log.js';

/** Thrown by a handler that wants to run again later (a webhook delivery that failed, say). */
export class RetryAt extends Error {
  constructor(
    readonly at: number,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * What each kind of job carries (kind → payload, kept as JSON in the job's row). Empty here: the module that enqueues
 * a kind declares it next to the kind's name (`declare module '../jobs.js' { interface JobPayloads {
 * [PROCESS_VIDEO]: { videoId: string } } }`), so `enqueue` and the handler `register` takes are checked against the
 * same type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface JobPayloads {}
export type JobKind = keyof JobPayloads & string;
/** `attempt`: the job's run, 1 on the first and one more on each run after (a RetryAt, a lease lost, a restart). */
export type JobHandler<K extends JobKind = JobKind> = (
  payload: JobPayloads[K],
  signal: AbortSignal,
  attempt: number,
) => Promise<void>;

/**
 * `concurrency`: how many jobs of the kind one process runs at once (its share of this machine's cores).
 * `perGroup`: how many jobs of one group (an organization) run at once in all processes together (default:
 * `concurrency`).
 */
export interface JobLimits {
  concurrency: number;
  perGroup?: number;
}

export interface EnqueueOptions {
  /** When the job is due (service clock; default now). */
  runAt?: number;
  /** The organization the job counts against in the fair pick (none: the jobs without one share a group). */
  group?: string | null;
  /** A transaction, so that a row and the job that works on it commit together (default: the queue's database). */
  db?: Kysely<Database>;
}

/** What the job runner tells as each job ends: its kind, outcome and seconds; and a failure for good, with its error. */
export interface JobEvents {
  finished(kind: string, outcome: JobOutcome, seconds: number): void;
  failed(job: string, err: unknown): void;
}

export interface JobsOptions {
  /** Told of each job as it ends (/metrics), and of each failure for good (the log); app.ts wires them. */
  events?: JobEvents;
  /** How long a claimed job is this worker's without renewing; renewed every third of it while the handler runs. */
  leaseMs?: number;
  /** How often the queue looks for due jobs besides when one is enqueued here or a slot frees up. */
  pollMs?: number;
  /**
   * Where this worker's pid names it (leases.ts, `holderName`; default: this kernel and pid namespace, `PID_SPACE`);
   * tests give two processes a machine each.
   */
  machine?: string;
}

const PRUNE_JOBS_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a worker's claim on a job holds unrenewed: a dead worker's job runs again after it (`--job-lease-seconds`). */
export const DEFAULT_LEASE_MS = 30_000;
/** The job_groups key of jobs without a group (organization ids are never empty). */
const NO_GROUP = '';

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  grp: string | null;
}

/**
 * Durable jobs in the database, shared by any number of worker processes (SQLite's one file, or PostgreSQL).
 *
 * A worker claims a job by marking it running under its own id with a lease, which it renews while the handler runs.
 * A job whose lease passed (its worker died or was cut off) is queued again by the next claim of another worker,
 * so a job may run more than once: handlers must be idempotent. Its end is recorded only by the worker that still
 * holds it; one that lost its lease has its handler aborted and records nothing.
 *
 * Each kind has its own concurrency per process, so a long encode never holds up a short delivery, and a limit per
 * group (an organization; jobs without one share a group) across all processes. The queue is fair: each free slot
 * goes to the group under its limit that runs the fewest jobs of the kind and, among those, started one the longest
 * ago (round robin), and takes that group's oldest due job. However long one organization's backlog, another's job
 * waits for one free slot only. The counts come from the running rows and the turns from `job_groups`, and a claim
 * holds its kind's `job_kinds` row locked (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: the one writer), so two
 * processes never decide on the same counts. Due times and leases are on the service clock.
 */
export class Jobs {
  private readonly db: Kysely<Database>;
  private readonly handlers = new Map<string, { run: JobHandler; concurrency: number; perGroup: number }>();
  private readonly running = new Map<
    number,
    { kind: string; group: string | null; abort: AbortController; done: Promise<void> }
  >();
  /** This worker's name in the rows it holds (leases.ts, `holderName`): which process where, random to be unique. */
  readonly workerId: string;
  /** Where this worker's pid names it; undefined: unknown, so no other worker is known gone. */
  private readonly machine: string | undefined;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private timers: NodeJS.Timeout[] = [];
  private stopped = true;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private readonly events: JobEvents;
  /** Wall-clock time of the last look for due jobs that the database answered; 0 before the first (a worker's /readyz). */
  lookedAt = 0;

  constructor(
    db: Kysely<Database>,
    private readonly clock: Clock,
    options: JobsOptions = {},
  ) {
    this.db = db;
    this.machine = options.machine ?? PID_SPACE;
    this.workerId = holderName(this.machine);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? 250;
    this.events = options.events ?? { finished: () => {}, failed: (job, err) => log.error({ err }, `${job} failed`) };
  }

  register<K extends JobKind>(kind: K, run: JobHandler<K>, { concurrency, perGroup = concurrency }: JobLimits): void {
    this.handlers.set(kind, { run: run as JobHandler, concurrency, perGroup });
  }

  async enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayloads[K],
    { runAt, group: grp = null, db = this.db }: EnqueueOptions = {},
  ): Promise<number> {
    const now = this.clock.now();
    const { id } = await db
      .insertInto('jobs')
      .values({
        kind,
        payload: JSON.stringify(payload),
        state: 'queued',
        run_at: runAt ?? now,
        created_at: now,
        updated_at: now,
        grp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Inside a transaction the job is not visible until it commits: the next poll takes it then.
    setImmediate(() => this.tick());
    return id;
  }

  /**
   * Takes jobs from now on; resolves once the first look is done. Jobs another process left running are not
   * touched: they are taken again when their lease has passed (a worker restarted under a new id waits for them).
   */
  async start(): Promise<void> {
    for (const kind of this.handlers.keys())
      await this.db
        .insertInto('job_kinds')
        .values({ kind })
        .onConflict((c) => c.column('kind').doNothing())
        .execute();
    this.stopped = false;
    this.timers = [
      setInterval(() => this.tick(), this.pollMs),
      setInterval(() => void this.renewLeases(), this.leaseMs / 3),
    ];
    this.tick();
    await this.ticking;
  }

  /** Stops taking jobs and aborts the running ones; they are queued again at once, for any worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    await this.ticking;
    for (const job of this.running.values()) job.abort.abort();
    await Promise.all([...this.running.values()].map((j) => j.done));
  }

  /** Resolves when no job is queued for now or running here (tests and benchmarks wait on it). */
  async idle(): Promise<void> {
    const due = () =>
      this.db
        .selectFrom('jobs')
        .select('id')
        .where('state', '=', 'queued')
        .where('run_at', '<=', this.clock.now())
        .limit(1)
        .executeTakeFirst();
    while (this.running.size > 0 || this.ticking || (await due())) await sleep(50);
  }

  /**
   * What /metrics shows of the queue: each kind's due and running jobs (every process's) and its oldest due job,
   * in one pass over the jobs_due index (state, run_at).
   */
  async stats(): Promise<QueueStat[]> {
    const now = this.clock.now();
    const due = (eb: ExpressionBuilder<Database, 'jobs'>) =>
      eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]);
    const rows = await this.db
      .selectFrom('jobs')
      .select((eb) => [
        'kind',
        eb.fn.sum<number>(eb.case().when(due(eb)).then(1).else(0).end()).as('due'),
        eb.fn.sum<number>(eb.case().when('state', '=', 'running').then(1).else(0).end()).as('running'),
        eb.fn.min<number | null>(eb.case().when(due(eb)).then(eb.ref('run_at')).end()).as('oldestDueAt'),
      ])
      .where('state', 'in', ['queued', 'running'])
      .groupBy('kind')
      .execute();
    // PostgreSQL sums integers as NUMERIC, which pg reads back as a string.
    return rows.map((r) => ({
      kind: r.kind,
      due: Number(r.due),
      running: Number(r.running),
      oldestDueAt: r.oldestDueAt === null ? null : Number(r.oldestDueAt),
    }));
  }

  /** By the sweeper: jobs done or failed over a week ago (their row is history; a week leaves time to look into a failure). */
  async prune(): Promise<void> {
    await this.db
      .deleteFrom('jobs')
      .where('state', 'in', ['done', 'failed'])
      .where('updated_at', '<', this.clock.now() - PRUNE_JOBS_AFTER_MS)
      .execute();
  }

  /** Looks for work for every free slot; one look at a time in this process (a look asked for meanwhile follows it). */
  private tick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = (async () => {
      try {
        do {
          this.tickAgain = false;
          for (const kind of this.handlers.keys()) if (!this.stopped) await this.claim(kind);
        } while (this.tickAgain && !this.stopped);
        this.lookedAt = Date.now();
      } catch (err) {
        // The database away (PostgreSQL restarting, say): the next poll looks again.
        log.error({ err }, 'job queue: could not claim jobs');
      } finally {
        this.ticking = undefined;
      }
    })();
  }

  /** Claims a job of `kind` for each free slot of this process, in one transaction, then runs them. */
  private async claim(kind: string): Promise<void> {
    const handler = this.handlers.get(kind)!;
    let free = handler.concurrency - [...this.running.values()].filter((j) => j.kind === kind).length;
    if (free <= 0 || !(await this.anythingToClaim(kind))) return;
    const claimed = await this.db.transaction().execute(async (trx) => {
      if (!(await this.lockKind(trx, kind))) return [];
      const now = this.clock.now();
      // A job whose lease passed has lost its worker: it is due again, in its place by its start time.
      await trx
        .updateTable('jobs')
        .set({ state: 'queued', worker: null, lease_until: null, last_error: 'lease expired' })
        .where('kind', '=', kind)
        .where((eb) => this.leaseLost(eb, now))
        .execute();
      await this.requeueDeadNeighbours(trx, kind);
      const busy = new Map<string, number>();
      const counts = await trx
        .selectFrom('jobs')
        .select(['grp', (eb) => eb.fn.countAll<number>().as('n')])
        .where('kind', '=', kind)
        .where('state', '=', 'running')
        .groupBy('grp')
        .execute();
      for (const { grp, n } of counts) busy.set(grp ?? NO_GROUP, Number(n));
      const turns = new Map<string, number>();
      const groups = await trx.selectFrom('job_groups').select(['grp', 'last_pick']).where('kind', '=', kind).execute();
      for (const { grp, last_pick } of groups) turns.set(grp, last_pick);
      let { picks } = await trx
        .selectFrom('job_kinds')
        .select('picks')
        .where('kind', '=', kind)
        .executeTakeFirstOrThrow();
      const running = (job: JobRow) => busy.get(job.grp ?? NO_GROUP) ?? 0;
      const turn = (job: JobRow) => turns.get(job.grp ?? NO_GROUP) ?? -1;
      const taken: JobRow[] = [];
      // One job per free slot; the heads are read again after each, as the group that started has a new one.
      while (free-- > 0) {
        const [job] = (await this.heads(trx, kind, now))
          .filter((j) => running(j) < handler.perGroup)
          .sort((a, b) => running(a) - running(b) || turn(a) - turn(b));
        if (!job) break;
        const group = job.grp ?? NO_GROUP;
        await trx
          .updateTable('jobs')
          .set({
            state: 'running',
            attempts: job.attempts + 1,
            run_at: now,
            last_error: null,
            updated_at: now,
            worker: this.workerId,
            lease_until: now + this.leaseMs,
          })
          .where('id', '=', job.id)
          .execute();
        await trx
          .insertInto('job_groups')
          .values({ kind, grp: group, last_pick: picks })
          .onConflict((c) => c.columns(['kind', 'grp']).doUpdateSet({ last_pick: picks }))
          .execute();
        busy.set(group, running(job) + 1);
        turns.set(group, picks++);
        taken.push(job);
      }
      await trx.updateTable('job_kinds').set({ picks }).where('kind', '=', kind).execute();
      return taken;
    });
    for (const job of claimed) this.run(job, handler.run);
  }

  /**
   * Whether a claim of `kind` may find work: a due job, a job whose lease was lost (`leaseLost`), or a job of
   * another worker that may be a dead process of this pid space. Read without a lock, so that an idle queue's polls
   * write nothing (on SQLite a claim holds the file's one write lock, which the service's other processes wait for).
   */
  private async anythingToClaim(kind: string): Promise<boolean> {
    const now = this.clock.now();
    const machine = this.machine;
    const found = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]),
          this.leaseLost(eb, now),
          ...(machine
            ? [
                eb.and([
                  eb('state', '=', 'running'),
                  eb('worker', '<>', this.workerId),
                  eb('worker', 'like', `${machine}:%`),
                ]),
              ]
            : []),
        ]),
      )
      .limit(1)
      .executeTakeFirst();
    return found !== undefined;
  }

  /**
   * A running job whose lease has passed and that does not run here: its worker died or was cut off, or it is this
   * worker's own whose end could not be recorded (the database was away), which would otherwise stay running for
   * good on a lone worker. This process's jobs still running here are alive whatever the clock says (a test may
   * move the clock past their lease).
   */
  private leaseLost(eb: ExpressionBuilder<Database, 'jobs'>, now: number) {
    const mine = [...this.running.keys()];
    return eb.and([
      eb('state', '=', 'running'),
      eb('lease_until', '<=', now),
      ...(mine.length > 0 ? [eb.or([eb('worker', '<>', this.workerId), eb('id', 'not in', mine)])] : []),
    ]);
  }

  /**
   * Queues again at once the jobs of workers known gone (leases.ts, `holderGone`: a process of this pid space that
   * no longer exists, as after the service restarted from a crash): they need not wait for their lease, as a single
   * process's jobs never did. Workers of another machine or container cannot be seen from here and wait for their
   * lease.
   */
  private async requeueDeadNeighbours(trx: Transaction<Database>, kind: string): Promise<void> {
    const workers = await trx
      .selectFrom('jobs')
      .select('worker')
      .distinct()
      .where('kind', '=', kind)
      .where('state', '=', 'running')
      .where('worker', '<>', this.workerId)
      .execute();
    const dead = workers.map((w) => w.worker!).filter((worker) => holderGone(worker, this.machine));
    if (dead.length === 0) return;
    await trx
      .updateTable('jobs')
      .set({ state: 'queued', worker: null, lease_until: null, last_error: 'worker gone' })
      .where('kind', '=', kind)
      .where('state', '=', 'running')
      .where('worker', 'in', dead)
      .execute();
  }

  /**
   * Makes this transaction the only claim of `kind` until it ends, so that it counts every process's running jobs
   * and turns as they are. PostgreSQL: the kind's row, locked; a worker that finds it locked leaves the claim to
   * the one holding it and looks again at its next poll (SKIP LOCKED: no connection waits on another). SQLite: a
   * write first, so the transaction holds the file's one write lock from its start (a read first could not
   * become a write once another process had written: SQLITE_BUSY).
   */
  private async lockKind(trx: Transaction<Database>, kind: string): Promise<boolean> {
    if (engineOf(trx) === 'postgres') {
      const row = await trx
        .selectFrom('job_kinds')
        .select('kind')
        .where('kind', '=', kind)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      return row !== undefined;
    }
    await trx
      .updateTable('job_kinds')
      .set((eb) => ({ picks: eb.ref('picks') }))
      .where('kind', '=', kind)
      .execute();
    return true;
  }

  /** The oldest due job (by run_at, then id) of each group of `kind`: one index seek per group (jobs_pick). */
  private heads(trx: Transaction<Database>, kind: string, now: number): Promise<JobRow[]> {
    return trx
      .selectFrom(
        trx
          .selectFrom('jobs')
          .select('grp')
          .where('kind', '=', kind)
          .where('state', '=', 'queued')
          .where('run_at', '<=', now)
          .groupBy('grp')
          .as('g'),
      )
      .innerJoin('jobs as j', (join) =>
        join.on((eb) =>
          eb(
            'j.id',
            '=',
            eb
              .selectFrom('jobs as h')
              .select('h.id')
              .where('h.kind', '=', kind)
              .where('h.state', '=', 'queued')
              .where('h.run_at', '<=', now)
              .where((eb) => eb('h.grp', '=', eb.ref('g.grp')).or(eb('h.grp', 'is', null).and('g.grp', 'is', null)))
              .orderBy('h.run_at')
              .orderBy('h.id')
              .limit(1),
          ),
        ),
      )
      .select(['j.id', 'j.kind', 'j.payload', 'j.attempts', 'j.grp'])
      .orderBy('j.run_at')
      .orderBy('j.id')
      .execute();
  }

  private run(job: JobRow, handler: JobHandler): void {
    const abort = new AbortController();
    const entry = { kind: job.kind, group: job.grp, abort, done: Promise.resolve() };
    this.running.set(job.id, entry);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    entry.done = (async () => {
      let end: { state: string; attempts: number; run_at: number; last_error: string | null };
      try {
        await handler(JSON.parse(job.payload) as JobPayloads[JobKind], abort.signal, job.attempts + 1);
        end = { state: 'done', attempts: job.attempts + 1, run_at: this.clock.now(), last_error: null };
        this.events.finished(job.kind, 'done', seconds());
      } catch (err) {
        const outcome = abort.signal.aborted ? 'stopped' : err instanceof RetryAt ? 'retry' : 'failed';
        this.events.finished(job.kind, outcome, seconds());
        const message = err instanceof Error ? err.message : String(err);
        if (abort.signal.aborted)
          end = { state: 'queued', attempts: job.attempts, run_at: this.clock.now(), last_error: 'stopped' };
        else if (err instanceof RetryAt)
          end = { state: 'queued', attempts: job.attempts + 1, run_at: err.at, last_error: message };
        else {
          this.events.failed(`job ${job.kind} #${job.id}`, err);
          end = { state: 'failed', attempts: job.attempts + 1, run_at: this.clock.now(), last_error: message };
        }
      }
      try {
        // Only the worker that still holds the job records its end: one whose lease passed and whose job another
        // worker took changes nothing (that worker's run is the one that counts).
        const { numUpdatedRows } = await this.db
          .updateTable('jobs')
          .set({ ...end, worker: null, lease_until: null, updated_at: this.clock.now() })
          .where('id', '=', job.id)
          .where('state', '=', 'running')
          .where('worker', '=', this.workerId)
          .executeTakeFirst();
        if (numUpdatedRows === 0n) log.warn(`job ${job.kind} #${job.id}: lease lost, another worker took it`);
      } catch (err) {
        // The database away: the lease runs out and another worker (or this one) runs the job again.
        log.error({ err }, `job ${job.kind} #${job.id}: could not record its end`);
      } finally {
        this.running.delete(job.id);
        setImmediate(() => this.tick());
      }
    })();
  }

  /** Extends the lease of every job running here; a job no longer held (its lease passed, another took it) is aborted. */
  private async renewLeases(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      const held = await this.db
        .updateTable('jobs')
        .set({ lease_until: this.clock.now() + this.leaseMs })
        .where('id', 'in', ids)
        .where('state', '=', 'running')
        .where('worker', '=', this.workerId)
        .returning('id')
        .execute();
      const still = new Set(held.map((r) => r.id));
      for (const id of ids) if (!still.has(id)) this.running.get(id)?.abort.abort(new Error('lease lost'));
    } catch (err) {
      log.error({ err }, 'job queue: could not renew leases');
    }
  }
}
