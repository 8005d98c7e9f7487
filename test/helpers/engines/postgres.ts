import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

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
 * A throwaway PostgreSQL cluster (Debian's `postgresql`: initdb, then pg_ctl), on 127.0.0.1 at a free port, its
 * data and socket in a temporary folder; stopped and removed by `stop()`, or when the test process exits however
 * it does. PostgreSQL refuses to run as root: as root the cluster belongs to `nobody`.
 */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'postgres-'));
  const data = join(dir, 'data');
  const owner = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
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
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=50`;
  const start = () => pgCtl('start', '-w', '-l', join(dir, 'log'), '-o', options);
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
 * whose owner runs pg_ctl; its log stays the one `startPostgres` made beside that folder.
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
  const log = join(dirname(data), 'log');
  await run(join(postgresBin(), 'pg_ctl'), ['-D', data, 'restart', '-m', 'fast', '-w', '-l', log], {
    cwd: dirname(data),
    uid,
    gid,
  });
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
