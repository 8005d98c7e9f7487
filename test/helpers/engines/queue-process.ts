/**
 * One service process's share of the database, for the tests that run two at once (test/unit/processes.test.ts):
 * opens the database named in its argument and either works the queue's 'work' jobs, saying on standard output
 * (one JSON line each) when each starts and ends, or, with `secret`, asks for the signing secret (and more settings)
 * once told to on standard input, and says them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../../../service/clock.js';
import { openDatabase, setting } from '../../../service/db/index.js';
import { Jobs } from '../../../service/jobs.js';
import '../job-kinds.js';

export interface QueueProcessOptions {
  location: string;
  mode: 'work' | 'secret';
  concurrency?: number;
  perGroup?: number;
  leaseMs?: number;
  /** The machine this process stands for: each its own, so that one finds the other's death only by its lease. */
  machine?: string;
}

const options = JSON.parse(process.argv[2]!) as QueueProcessOptions;
const say = (event: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ ...event, pid: process.pid, at: Date.now() })}\n`);

const db = await openDatabase(options.location);
if (options.mode === 'secret') {
  // Both processes are told to go at the same moment, and race for twenty settings in a row, the signing secret
  // first: a race lost by luck in one round is lost in another.
  say({ event: 'ready' });
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const names = ['signing_secret', ...Array.from({ length: 19 }, (_, i) => `race_${i}`)];
  const values: string[] = [];
  for (const name of names) values.push(await setting(db, name, () => `made by ${process.pid}`));
  say({ event: 'secret', value: JSON.stringify(values) });
  await db.destroy();
} else {
  const jobs = new Jobs(db, systemClock(), { leaseMs: options.leaseMs, pollMs: 50, machine: options.machine });
  jobs.register(
    'work',
    async (payload) => {
      say({ event: 'start', name: payload.name });
      // Not cut short by the signal: a worker that lost its lease may well finish its handler; what it must not
      // do is record the end.
      await sleep(payload.holdMs ?? 0);
      say({ event: 'end', name: payload.name });
    },
    { concurrency: options.concurrency ?? 1, perGroup: options.perGroup },
  );
  await jobs.start();
  say({ event: 'ready' });
  process.once('SIGTERM', () => void jobs.stop().then(() => db.destroy()));
}
