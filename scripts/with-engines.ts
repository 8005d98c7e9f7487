/**
 * Runs a command with the scale suite's engines up: a throwaway PostgreSQL cluster and a Ceph S3 store (with a
 * bucket), started once for the whole run, their addresses and credentials in the command's environment
 * (test/helpers/engines/environment.ts names the variables). nginx is not started here: each test puts it in
 * front of the processes it starts (test/helpers/engines/nginx.ts).
 *
 *   tsx scripts/with-engines.ts -- node --import tsx --test --test-concurrency=1 test/scale/*.test.ts
 *
 * The engines are stopped however the run ends: the command exits, the run is interrupted (SIGINT, SIGTERM,
 * SIGHUP: passed on to the command, whose end is waited for), or starting them failed. It exits with the command's
 * status (128 + the signal's number when a signal ended it). Killed with SIGKILL, it leaves them running: the
 * next start stops the PostgreSQL server and the store of a run that is gone (test/helpers/engines/processes.ts).
 *
 * SCALE_ENGINES=reuse keeps the Ceph store (the slow one: about 20 s to start here) running after the run, for the
 * next run with SCALE_ENGINES=reuse to use at once; a run without it stops a kept store first. PostgreSQL (about
 * 2 s) is a fresh one each run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { constants } from 'node:os';
import { keptCeph, startCeph, type CephStore } from '../test/helpers/engines/ceph.js';
import { engineVariables } from '../test/helpers/engines/environment.js';
import { startPostgres } from '../test/helpers/engines/postgres.js';

/** The bucket every test may use; a test that changes a bucket's settings (CORS, say) makes its own. */
const BUCKET = 'scale';

const separator = process.argv.indexOf('--');
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command.length === 0) {
  console.error('usage: tsx scripts/with-engines.ts -- <command> [arguments…]');
  process.exit(2);
}

/** What is running, stopped in reverse order at the end. */
const running: { name: string; stop(): Promise<void> }[] = [];
let starting: Promise<unknown> = Promise.resolve();
let child: ChildProcess | undefined;
let ending: Promise<never> | undefined;

/** Stops the command (if it still runs), then the engines, then exits with `status`; the first call wins. */
function end(status: number, signal?: NodeJS.Signals): Promise<never> {
  ending ??= (async () => {
    // An engine still starting is waited for, so that it is stopped too rather than left behind.
    await starting;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill(signal ?? 'SIGTERM');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    const stopping = Date.now();
    for (const engine of running.reverse()) {
      await engine.stop().catch((error) => console.error(`with-engines: stopping ${engine.name} failed:`, error));
    }
    console.error(`with-engines: engines stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
    process.exit(status);
  })();
  return ending;
}

// The terminal's Ctrl-C reaches the command too (it is in our process group): it is passed on anyway, for a
// `kill` aimed at this process alone. A second signal while stopping does not cut the stopping short.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void end(128 + constants.signals[signal], signal));
}
for (const failure of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(failure, (error) => {
    console.error('with-engines:', error);
    void end(1);
  });
}

try {
  const startedAt = Date.now();
  const started = <T extends { stop(): Promise<void> }>(name: string, engine: T) => {
    running.push({ name, stop: () => engine.stop() });
    return engine;
  };
  const postgres = startPostgres().then((engine) => started('PostgreSQL', engine));
  const store = process.env.SCALE_ENGINES === 'reuse' ? reuseCeph() : startOwnCeph();
  starting = Promise.allSettled([postgres, store]);
  await starting;
  // A signal that came meanwhile: the engines are being stopped, the command must not start.
  if (ending) await ending;
  const [{ url: databaseUrl }, { endpoint, region, accessKeyId, secretAccessKey, log }] = await Promise.all([
    postgres,
    store,
  ]);
  await createBucket({ endpoint, region, accessKeyId, secretAccessKey });
  console.error(
    `with-engines: PostgreSQL and the Ceph store ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  );

  const environment = engineVariables({
    databaseUrl,
    s3: { endpoint, region, bucket: BUCKET, credentials: { accessKeyId, secretAccessKey } },
    storeLog: log,
  });
  child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', env: { ...process.env, ...environment } });
  child.once('error', (error) => {
    console.error(`with-engines: ${command[0]}:`, error.message);
    void end(127);
  });
  child.once('exit', (code, signal) => void end(code ?? 128 + constants.signals[signal!]));
} catch (error) {
  console.error('with-engines: the engines did not start:', error);
  await end(1);
}

/** A store kept by an earlier run, or a new one kept for the next: neither is stopped at the end of this run. */
async function reuseCeph(): Promise<CephStore> {
  const kept = await keptCeph();
  if (kept) console.error(`with-engines: SCALE_ENGINES=reuse: the Ceph store kept in ${kept.dir}`);
  return kept ?? startCeph({ keep: true });
}

async function startOwnCeph(): Promise<CephStore> {
  await (await keptCeph())?.stop();
  const store = await startCeph();
  running.push({ name: 'the Ceph store', stop: () => store.stop() });
  return store;
}

async function createBucket(store: Pick<CephStore, 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey'>) {
  const { endpoint, region, accessKeyId, secretAccessKey } = store;
  const s3 = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  try {
    // A kept store has it from an earlier run.
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET })).catch((error: Error) => {
      if (error.name !== 'BucketAlreadyOwnedByYou') throw error;
    });
  } finally {
    s3.destroy();
  }
}
