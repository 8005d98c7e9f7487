import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Clock } from '../../service/clock.js';
import { openDatabase, type Db } from '../../service/db.js';
import { Jobs, RetryAt } from '../../service/jobs.js';

declare module '../../service/jobs.js' {
  interface JobPayloads {
    /** The test's own kind: a job named for the order it started in. */
    work: { name: string };
  }
}

/** The service clock, moved by the test only. */
function testClock(start = 1_000_000): Clock {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

/**
 * A handler that records which jobs started, in order, and holds each until the test finishes it (or the runner
 * stops, which aborts it).
 */
function heldJobs() {
  const started: string[] = [];
  const finishers = new Map<string, (outcome?: Error) => void>();
  const handler = ({ name }: { name: string }, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      started.push(name);
      finishers.set(name, (err) => (err ? reject(err) : resolve()));
      signal.addEventListener('abort', () => reject(new Error('stopped')));
    });
  /** Finishes `name` and waits for the runner to start what the freed slot takes. */
  const finish = async (name: string, outcome?: Error) => {
    finishers.get(name)!(outcome);
    await new Promise((r) => setTimeout(r, 10));
  };
  return { started, handler, finish };
}

describe('the job queue picks fairly (service/jobs.ts)', () => {
  let db: Db;
  let clock: Clock;
  let jobs: Jobs;
  beforeEach(() => {
    db = openDatabase(':memory:');
    clock = testClock();
    jobs = new Jobs(db, clock);
  });
  afterEach(async () => {
    await jobs.stop();
    db.close();
  });

  const enqueue = (group: string | null, count: number, kind = 'work' as const) => {
    for (let i = 1; i <= count; i++) jobs.enqueue(kind, { name: `${group ?? 'none'}${i}` }, undefined, group);
  };

  it("starts another organization's single job in the first pick, behind 150 of one organization", () => {
    const held = heldJobs();
    jobs.register('work', held.handler, { concurrency: 2, perGroup: 1 });
    enqueue('A', 150);
    enqueue('B', 1);
    jobs.start();
    assert.deepEqual(held.started, ['A1', 'B1']);
  });

  it('takes turns between organizations, whatever their backlog, each in its own order', async () => {
    const held = heldJobs();
    jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
    enqueue('A', 4);
    enqueue('B', 3);
    enqueue('C', 2);
    jobs.start();
    for (let i = 0; i < 8; i++) await held.finish(held.started.at(-1)!);
    assert.deepEqual(held.started, ['A1', 'B1', 'C1', 'A2', 'B2', 'C2', 'A3', 'B3', 'A4']);
  });

  it('gives a free slot to the group that runs the fewest, never more than its limit per group', async () => {
    const held = heldJobs();
    jobs.register('work', held.handler, { concurrency: 4, perGroup: 3 });
    enqueue('A', 5);
    jobs.start();
    assert.deepEqual(
      held.started,
      ['A1', 'A2', 'A3'],
      'a group never takes more than its limit, even with a slot free',
    );
    enqueue('B', 3);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(held.started.slice(3), ['B1']);
    await held.finish('B1');
    await held.finish('A1');
    assert.deepEqual(held.started.slice(3), ['B1', 'B2', 'B3'], 'A runs two, B one: B takes the slot A freed');
  });

  it('puts jobs without a group in one group of their own', () => {
    const held = heldJobs();
    jobs.register('work', held.handler, { concurrency: 3, perGroup: 1 });
    enqueue(null, 3);
    enqueue('A', 1);
    jobs.start();
    assert.deepEqual(held.started, ['none1', 'A1']);
  });

  it('runs a job again after a crash, and a job that asks to retry at its time, then in its turn', async () => {
    const held = heldJobs();
    jobs.register('work', held.handler, { concurrency: 1, perGroup: 1 });
    enqueue('A', 2);
    jobs.start();
    assert.deepEqual(held.started, ['A1']);
    // A crash: this runner is gone without stopping; the job it ran is still marked running.
    const again = new Jobs(db, clock);
    const after = heldJobs();
    again.register('work', after.handler, { concurrency: 1, perGroup: 1 });
    again.start();
    assert.deepEqual(after.started, ['A1'], 'the interrupted job runs first, being the oldest');
    await after.finish('A1', new RetryAt(clock.now() + 60_000, 'later'));
    assert.deepEqual(after.started, ['A1', 'A2'], 'a retry waits for its time');
    await after.finish('A2');
    clock.advance(60_000);
    for (let i = 0; i < 40 && after.started.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(after.started, ['A1', 'A2', 'A1'], 'the retry runs once due (the runner looks every 250 ms)');
    await again.stop();
  });
});
