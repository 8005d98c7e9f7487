import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Clock } from '../../service/clock.js';
import { openDatabase, type Db } from '../../service/db/index.js';
import { Jobs, RetryAt } from '../../service/jobs.js';
import { PID_SPACE } from '../../service/leases.js';
import '../helpers/job-kinds.js';
import { startPostgres, type Postgres } from '../helpers/engines/postgres.js';

/** The service clock, moved by the test only. */
function testClock(start = 1_000_000): Clock {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

const LEASE_MS = 30_000;

/** Resolves once `ready()` holds, looking every 10 ms (a claim is a few statements: on PostgreSQL a few ms). */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ready(), `waited 5 s for ${what}`);
}

/**
 * A handler that records which jobs started, in order, and holds each until the test finishes it (or the runner
 * stops, which aborts it).
 */
function heldJobs() {
  const started: string[] = [];
  const finishers = new Map<string, (outcome?: Error) => void>();
  const handler = (payload: Record<string, unknown>, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const name = payload.name as string;
      started.push(name);
      finishers.set(name, (err) => (err ? reject(err) : resolve()));
      signal.addEventListener('abort', () => reject(new Error('stopped')));
    });
  /** Finishes `name` and waits until the runner has started `next` more jobs in the slot it freed. */
  const finish = async (name: string, outcome?: Error, next = 1) => {
    const count = started.length + next;
    finishers.get(name)!(outcome);
    await until(() => started.length >= count, `${next} more job(s) after ${name}`);
  };
  return { started, handler, finish };
}

/** Lets a runner look for work more than once (a poll, the look after a finish), to see that it starts nothing more. */
const settle = () => new Promise((r) => setTimeout(r, 300));

// The same cases on both engines: SQLite in memory (the default's engine) and a throwaway PostgreSQL cluster.
for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`the job queue picks fairly (service/jobs.ts, ${engine})`, () => {
    let postgres: Postgres | undefined;
    let db: Db;
    let clock: Clock;
    let jobs: Jobs;
    /** Runners a case adds to `jobs`, stopped however the case ends (a runner left looking keeps the file running). */
    let others: Jobs[] = [];
    before(async () => {
      if (engine === 'postgres') postgres = await startPostgres();
    });
    after(() => postgres?.stop());
    beforeEach(async () => {
      db = await openDatabase(postgres ? await postgres.freshDatabase() : ':memory:');
      clock = testClock();
      jobs = new Jobs(db, clock, { leaseMs: LEASE_MS });
    });
    afterEach(async () => {
      await Promise.all([jobs, ...others].map((runner) => runner.stop()));
      others = [];
      await db.destroy();
    });

    const enqueue = async (group: string | null, count: number, kind = 'work' as const) => {
      for (let i = 1; i <= count; i++) await jobs.enqueue(kind, { name: `${group ?? 'none'}${i}` }, { group });
    };

    it("starts another organization's single job in the first pick, behind 150 of one organization", async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 2, perGroup: 1 });
      await enqueue('A', 150);
      await enqueue('B', 1);
      await jobs.start();
      assert.deepEqual(held.started, ['A1', 'B1']);
    });

    it('takes turns between organizations, whatever their backlog, each in its own order', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
      await enqueue('A', 4);
      await enqueue('B', 3);
      await enqueue('C', 2);
      await jobs.start();
      for (let i = 0; i < 8; i++) await held.finish(held.started.at(-1)!);
      assert.deepEqual(held.started, ['A1', 'B1', 'C1', 'A2', 'B2', 'C2', 'A3', 'B3', 'A4']);
    });

    it('gives a free slot to the group that runs the fewest, never more than its limit per group', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 4, perGroup: 3 });
      await enqueue('A', 5);
      await jobs.start();
      await settle();
      assert.deepEqual(
        held.started,
        ['A1', 'A2', 'A3'],
        'a group never takes more than its limit, even with a slot free',
      );
      await enqueue('B', 3);
      await until(() => held.started.length === 4, 'B1');
      assert.deepEqual(held.started.slice(3), ['B1']);
      await held.finish('B1');
      await held.finish('A1');
      await settle();
      assert.deepEqual(held.started.slice(3), ['B1', 'B2', 'B3'], 'A runs two, B one: B takes the slot A freed');
    });

    it('puts jobs without a group in one group of their own', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 3, perGroup: 1 });
      await enqueue(null, 3);
      await enqueue('A', 1);
      await jobs.start();
      await settle();
      assert.deepEqual(held.started, ['none1', 'A1']);
    });

    it('runs the job of a worker that died once its lease has passed, and a job that asks to retry at its time, then in its turn', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
      await enqueue('A', 2);
      await jobs.start();
      assert.deepEqual(held.started, ['A1']);
      // A crash: this runner is gone without stopping (it stops looking and renewing); its job is still running.
      const dead = jobs;
      (dead as unknown as { timers: NodeJS.Timeout[] }).timers.forEach(clearInterval);
      const again = new Jobs(db, clock, { leaseMs: LEASE_MS });
      others.push(again);
      const after = heldJobs();
      again.register('work', after.handler, { concurrency: 1, perGroup: 1 });
      await again.start();
      await settle();
      assert.deepEqual(after.started, [], 'the job is the dead worker’s until its lease passes');
      clock.advance(LEASE_MS);
      await until(() => after.started.length === 1, 'the job of the dead worker');
      assert.deepEqual(after.started, ['A1'], 'the interrupted job runs first, being the oldest');
      await after.finish('A1', new RetryAt(clock.now() + 60_000, 'later'));
      assert.deepEqual(after.started, ['A1', 'A2'], 'a retry waits for its time');
      await after.finish('A2', undefined, 0);
      clock.advance(60_000);
      await until(() => after.started.length === 3, 'the retry, once due (the runner looks every 250 ms)');
      assert.deepEqual(after.started, ['A1', 'A2', 'A1']);
      await again.stop();
      const rows = await db.selectFrom('jobs').select(['state', 'attempts']).orderBy('id').execute();
      assert.deepEqual(rows, [
        { state: 'queued', attempts: 2 },
        { state: 'done', attempts: 1 },
      ]);
    });

    it('runs at once the job of a process of this machine that is gone, without waiting for its lease', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
      await enqueue('A', 1);
      // The job as a service process killed here left it: running, its lease far from over, its process gone.
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      await db
        .updateTable('jobs')
        .set({
          state: 'running',
          worker: `${PID_SPACE}:${hostname()}:${gone}:dead`,
          lease_until: clock.now() + LEASE_MS,
        })
        .execute();
      await jobs.start();
      assert.deepEqual(held.started, ['A1']);
    });

    it('leaves alone the job of a process of this machine that still runs, until its lease has passed', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
      await enqueue('A', 1);
      await db
        .updateTable('jobs')
        .set({
          state: 'running',
          worker: `${PID_SPACE}:${hostname()}:${process.ppid}:alive`,
          lease_until: clock.now() + LEASE_MS,
        })
        .execute();
      await jobs.start();
      await settle();
      assert.deepEqual(held.started, []);
      clock.advance(LEASE_MS);
      await until(() => held.started.length === 1, 'the job once its lease has passed');
    });

    it('leaves alone the job of a worker of another container with this host name, until its lease has passed', async () => {
      const held = heldJobs();
      jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
      await enqueue('A', 1);
      // Its pid is nobody here, but it lived in another pid namespace, where it may well be alive.
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      await db
        .updateTable('jobs')
        .set({
          state: 'running',
          worker: `another-pid-namespace:${hostname()}:${gone}:alive`,
          lease_until: clock.now() + LEASE_MS,
        })
        .execute();
      await jobs.start();
      await settle();
      assert.deepEqual(held.started, [], 'not taken before its lease has passed');
      clock.advance(LEASE_MS);
      await until(() => held.started.length === 1, 'the job once its lease has passed');
    });
  });
}
