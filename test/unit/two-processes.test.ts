import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, before, describe, it } from 'node:test';
import { systemClock } from '../../service/clock.js';
import { openDatabase, type Db } from '../../service/db/index.js';
import { Jobs } from '../../service/jobs.js';
import '../helpers/job-kinds.js';
import type { QueueProcessOptions } from '../helpers/engines/queue-process.js';
import { startPostgres, type Postgres } from '../helpers/engines/postgres.js';
import { tempDir } from '../helpers/temp.js';

const SCRIPT = join(import.meta.dirname, '../helpers/engines/queue-process.ts');

interface Event {
  event: 'ready' | 'start' | 'end' | 'secret';
  name?: string;
  value?: string;
  pid: number;
  at: number;
}

/** A process of test/helpers/engines/queue-process.ts, and what it has said (standard output) and warned (standard error). */
interface QueueProcess {
  child: ChildProcess;
  events: Event[];
  warnings: string[];
}

const children = new Set<ChildProcess>();

function startProcess(options: QueueProcessOptions): QueueProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const proc: QueueProcess = { child, events: [], warnings: [] };
  createInterface({ input: child.stdout! }).on('line', (line) => proc.events.push(JSON.parse(line) as Event));
  createInterface({ input: child.stderr! }).on('line', (line) => proc.warnings.push(line));
  return proc;
}

/** Resolves once `ready()` holds; the limit is far above what the test needs on a busy 2-core machine. */
async function until(ready: () => boolean | Promise<boolean>, what: string, seconds = 30): Promise<void> {
  for (let i = 0; i < seconds * 20; i++) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`waited ${seconds} s for ${what}`);
}

const said = (procs: QueueProcess[], event: Event['event']) =>
  procs.flatMap((p) => p.events).filter((e) => e.event === event);

// Every case on both engines: one SQLite file, and one PostgreSQL database, shared by two processes at once.
for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`two processes on one ${engine} database`, () => {
    let postgres: Postgres | undefined;
    let location: string;
    /** This test process's own view: it enqueues, and reads the rows. */
    let db: Db;
    let queue: Jobs;
    before(async () => {
      if (engine === 'postgres') postgres = await startPostgres();
    });
    after(() => postgres?.stop());
    const fresh = async () => {
      location = postgres ? await postgres.freshDatabase() : join(await tempDir('queue-'), 'service.db');
      db = await openDatabase(location);
      queue = new Jobs(db, systemClock());
    };
    afterEach(async () => {
      for (const child of children) child.kill('SIGKILL');
      await db?.destroy();
      db = undefined!;
    });

    /** Two workers started at once, both ready to take jobs. */
    const twoWorkers = async (options: Omit<QueueProcessOptions, 'location' | 'mode'>) => {
      const procs = [0, 1].map((i) => startProcess({ location, mode: 'work', machine: `machine-${i}`, ...options }));
      await until(() => said(procs, 'ready').length === 2, 'both workers');
      return procs;
    };
    /** The jobs, committed together, so that both workers find all of them at once. */
    const enqueue = (jobs: { name: string; group: string; holdMs: number }[]) =>
      db.transaction().execute(async (trx) => {
        for (const { name, group, holdMs } of jobs) await queue.enqueue('work', { name, holdMs }, { group, db: trx });
      });
    const rows = () => db.selectFrom('jobs').select(['state', 'attempts', 'worker']).orderBy('id').execute();
    const allDone = async () => (await rows()).every((r) => r.state === 'done');

    it('runs each job once, however the two race for them', async () => {
      await fresh();
      const procs = await twoWorkers({ concurrency: 3, perGroup: 3 });
      const names = Array.from({ length: 48 }, (_, i) => `${'ABCD'[i % 4]}${i}`);
      await enqueue(names.map((name) => ({ name, group: name[0]!, holdMs: 20 })));
      await until(allDone, 'every job done');
      const started = said(procs, 'start')
        .map((e) => e.name)
        .sort();
      assert.deepEqual(started, [...names].sort(), 'each job started once, none twice');
      for (const proc of procs)
        assert.ok(
          proc.events.some((e) => e.event === 'start'),
          'both processes took jobs',
        );
    });

    it("takes a SIGKILLed worker's job again once its lease has passed", async () => {
      await fresh();
      const procs = await twoWorkers({ leaseMs: 1000 });
      await enqueue([{ name: 'long', group: 'A', holdMs: 3000 }]);
      await until(() => said(procs, 'start').length === 1, 'the job to start');
      const first = procs.find((p) => p.events.some((e) => e.event === 'start'))!;
      const other = procs.find((p) => p !== first)!;
      first.child.kill('SIGKILL');
      await until(() => other.events.some((e) => e.event === 'end'), 'the other worker to run it to its end');
      await until(allDone, 'the job done');
      assert.deepEqual(await rows(), [{ state: 'done', attempts: 2, worker: null }]);
    });

    it('records the end of a job once, by the worker holding it, when the first one comes back after losing its lease', async () => {
      await fresh();
      const procs = await twoWorkers({ leaseMs: 1000 });
      await enqueue([{ name: 'long', group: 'A', holdMs: 3000 }]);
      await until(() => said(procs, 'start').length === 1, 'the job to start');
      const first = procs.find((p) => p.events.some((e) => e.event === 'start'))!;
      const other = procs.find((p) => p !== first)!;
      // Paused past its lease (a long GC pause, a stalled VM): for the others it is as good as dead.
      first.child.kill('SIGSTOP');
      await until(allDone, 'the other worker to take the job and finish it');
      assert.ok(other.events.some((e) => e.event === 'end'));
      const second = await rows();
      first.child.kill('SIGCONT');
      await until(() => first.events.some((e) => e.event === 'end'), 'the first worker to end its handler too');
      const lost = () => first.warnings.some((w) => w.includes('lease lost'));
      const changed = async () => JSON.stringify(await rows()) !== JSON.stringify(second);
      await until(async () => lost() || (await changed()), 'the first worker to find its lease lost');
      assert.deepEqual(second, [{ state: 'done', attempts: 2, worker: null }]);
      assert.deepEqual(await rows(), second, "the row is the second run's end, not the first one's");
      assert.ok(lost());
    });

    // Only PostgreSQL is a server that can be away while a worker runs (SQLite is a file the worker opens itself).
    if (engine === 'postgres')
      it('runs a job again when its lone worker could not record its end (PostgreSQL away), and records it once', async () => {
        await fresh();
        const worker = startProcess({ location, mode: 'work', leaseMs: 1000 });
        await until(() => said([worker], 'ready').length === 1, 'the worker');
        // 5 s: PostgreSQL's fast stop takes well under a second, even here.
        await enqueue([{ name: 'long', group: 'A', holdMs: 5000 }]);
        await until(() => said([worker], 'start').length === 1, 'the job to start');
        // Away before the job's end, back only once the worker has failed to record it.
        await postgres!.shutDown();
        try {
          await until(
            () => worker.warnings.some((w) => w.includes('could not record its end')),
            'the worker to find it cannot record the end',
          );
        } finally {
          await postgres!.startAgain();
        }
        await until(allDone, 'the job run again, after its lease, and recorded');
        assert.deepEqual(
          said([worker], 'start').map((e) => e.name),
          ['long', 'long'],
        );
        assert.deepEqual(await rows(), [{ state: 'done', attempts: 2, worker: null }]);
      });

    it('keeps each organization to its limit across both processes, and takes turns between organizations', async () => {
      await fresh();
      const procs = await twoWorkers({ concurrency: 1, perGroup: 1 });
      const jobs = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2'];
      await enqueue(jobs.map((name) => ({ name, group: name[0]!, holdMs: 400 })));
      await until(allDone, 'every job done');
      const starts = new Map(said(procs, 'start').map((e) => [e.name!, e.at]));
      const ends = new Map(said(procs, 'end').map((e) => [e.name!, e.at]));
      for (const a of jobs)
        for (const b of jobs)
          if (a < b && a[0] === b[0])
            assert.ok(
              ends.get(a)! <= starts.get(b)! || ends.get(b)! <= starts.get(a)!,
              `${a} and ${b} of one organization ran at once, in two processes`,
            );
      assert.ok(starts.get('B2')! < starts.get('A3')!, "B's second job does not wait behind A's backlog");
    });

    it('ends with one signing secret when both start at once', async () => {
      await fresh();
      const procs = [0, 1].map(() => startProcess({ location, mode: 'secret' }));
      await until(() => said(procs, 'ready').length === 2, 'both processes');
      for (const proc of procs) proc.child.stdin!.write('go\n');
      await until(() => said(procs, 'secret').length === 2, 'both secrets');
      const [a, b] = said(procs, 'secret').map((e) => JSON.parse(e.value!) as string[]);
      assert.deepEqual(a, b, 'both processes use the same settings');
      const stored = await db.selectFrom('settings').select('value').where('name', '=', 'signing_secret').execute();
      assert.deepEqual(stored, [{ value: a![0] }]);
    });
  });
}
