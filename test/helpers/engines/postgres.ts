import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { engineFolder, runsIn } from './processes.js';

const run = promisify(execFile);

export interface Postgres {
  /** The server's own database, to make others in. */
  url: string;
  /** A new, empty database on the server: one per test, so none sees another's rows. */
  freshDatabase(): Promise<string>;
  /** Stops the server as an operator would (`pg_ctl stop -m fast`: every connection is cut), keeping its data. */
  shutDown(): Promise<void>;
  /** Starts it again after `shutDown()`, on the same port with the same options and data. */
  startAgain(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Connections the server takes. A cluster (cluster.ts) is 5 service processes, each with a pool of up to 10 (pg's
 * default, which the tests keep: they run the service as it runs in production),
 * 50 at most at the busiest (PostgreSQL restarted under load: every process reconnects at once), plus the test's
 * own pool and an account command's (`token`, a process with a pool of its own). 200 leaves room for twice that;
 * each slot costs a few kB of shared memory.
 */
const MAX_CONNECTIONS = 200;

/**
 * A throwaway PostgreSQL cluster (Debian's `postgresql`: initdb, then pg_ctl), on 127.0.0.1 at a free port, its
 * data, socket and log in a folder named after this process under the engines' root (./processes.ts); stopped and
 * removed by `stop()`, or when the test process exits. pg_ctl detaches the server from this process: a run killed
 * with SIGKILL leaves it running, and the next start stops it (`stopFolder`). PostgreSQL refuses to run as root:
 * as root the cluster belongs to `nobody`.
 */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const dir = await engineFolder('postgres', stopFolder);
  const data = join(dir, 'data');
  const owner = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  if (owner) for (const path of [dir, join(dir, 'log')]) chownSync(path, owner.uid, owner.gid);
  const as = { cwd: dir, ...owner };
  const port = await freePort();
  const pgCtl = (...args: string[]) => run(join(bin, 'pg_ctl'), ['-D', data, ...args], as);
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'immediate', '-w'], as);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  // fsync off: a test's cluster need not survive a power cut, and every commit is then as fast as the CPU.
  // fsync off: a test's cluster need not survive a power cut, and every commit is then as fast as the CPU.
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=${MAX_CONNECTIONS}`;
  const start = () => pgCtl('start', '-w', '-l', logFile(dir), '-o', options);
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], as);
    await start();
  } catch (err) {
    stopNow();
    throw err;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    async freshDatabase() {
      const name = `test${++databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async shutDown() {
      await pgCtl('stop', '-m', 'fast', '-w');
    },
    async startAgain() {
      await start();
    },
    async stop() {
      if (stopped) return;
      process.removeListener('exit', stopNow);
      await pgCtl('stop', '-m', 'fast', '-w').catch(() => undefined);
      stopNow();
    },
  };
}

/**
 * Restarts the server at `url` as an operator would (`pg_ctl restart -m fast`: every connection is cut, then the
 * server comes back on the same port with the options it had). The server is found by asking it: its data folder,
 * whose owner runs pg_ctl; its log stays the one `startPostgres` made in the folder around it.
 */
export async function restartPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let data: string;
  try {
    data = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
  } finally {
    await client.end();
  }
  const { uid, gid } = statSync(data);
  await run(join(postgresBin(), 'pg_ctl'), ['-D', data, 'restart', '-m', 'fast', '-w', '-l', logFile(dirname(data))], {
    cwd: dirname(data),
    uid,
    gid,
  });
}

const logFile = (dir: string) => join(dir, 'log', 'postgres.log');

/**
 * Stops the server of a folder whose owner is gone (`pg_ctl stop -m immediate`, as its owner: nothing in it is to
 * be kept) and removes the folder. The PID in `postmaster.pid` is taken for the server only if that process names
 * the folder on its command line (`postgres -D DIR/data`): after a reboot it may be anyone's.
 */
async function stopFolder(dir: string) {
  const data = join(dir, 'data');
  const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (pid && (await runsIn(pid, dir))) {
    const { uid, gid } = statSync(data);
    await run(join(postgresBin(), 'pg_ctl'), ['-D', data, 'stop', '-m', 'immediate', '-w'], { cwd: dir, uid, gid });
  }
  await rm(dir, { recursive: true, force: true });
}

/** The newest PostgreSQL installed (Debian keeps each major version apart). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`PostgreSQL is not installed (no ${root}/*/bin/initdb): apt-get install postgresql`);
  return join(root, newest, 'bin');
}

function unprivilegedUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
