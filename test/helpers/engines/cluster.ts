/**
 * The service as an integrator runs it on more than one machine, for one test: two `api` processes behind nginx,
 * two `worker` processes and one `ingest` process, all sharing a fresh database on the run's PostgreSQL and a fresh
 * prefix in the run's bucket of the Ceph store (scripts/with-engines.ts starts both once per run; ./environment.ts).
 *
 * The processes run as in production: no `--test-hooks`. The hooks would give each process a clock of its own to
 * move and counters of its own to read, which is the hidden state the scale suite checks there is none of; the
 * tests watch the cluster from outside instead: the store's log, the balancer's log, the database's rows, the
 * browser's requests. Each process may be SIGKILLed and started again (an API process on its own port, which
 * nginx keeps in its list), in a PID namespace of its own if asked (as in a container), and everything is stopped
 * however the test ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { checkedOrigins } from '../contract.js';
import { runService, serviceCommand } from '../service.js';
import { tempDir } from '../temp.js';
import type { StoreRequest } from './ceph.js';
import { scaleEngines } from './environment.js';
import { startNginx, type Balancer } from './nginx.js';
import { freePort } from './processes.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * A process of the service starting on two busy cores takes a few seconds, and a cluster starts five at once;
 * on a machine shared with other runs (a load of 30 on 2 cores was seen) a minute was not always enough.
 */
const READY_TIMEOUT_MS = 180_000;
/** After SIGTERM a process closes its servers and queue within a second or two; one still there is SIGKILLed. */
const STOP_TIMEOUT_MS = 15_000;

export type Role = 'api' | 'worker' | 'ingest';

/** The processes of a cluster, by name: the roles and how many of each the issue names. */
export const CLUSTER = {
  api1: 'api',
  api2: 'api',
  worker1: 'worker',
  worker2: 'worker',
  ingest: 'ingest',
} as const satisfies Record<string, Role>;
export type ProcessName = keyof typeof CLUSTER;

/** What a process said when it was ready: its role and the addresses it listens on. */
export interface ReadyLine {
  role?: string;
  /** Every address the line names, by the word before it, lower case: `api`, `storage`, `rtmp`, `health`… */
  addresses: Record<string, string>;
  /** `storage-hosts a,b`: the storage origin on each of its hosts (`--storage-hosts`); empty when the line has none. */
  storageOrigins: string[];
}

/**
 * The one place that reads a process's ready line (docs/scale.md, Roles): `all` prints
 * `Video service ready: API http://… storage http://… rtmp rtmp://…/live data DIR`, another role
 * `Video service ready (role worker): health http://… data DIR`. It takes the first line that says the service is
 * ready and reads from it every `word URL` pair and the role; a JSON log record (`{"msg": "… ready …", "role": …,
 * "api": …}`) and the spellings `role=api`, `(api)`, `api role` are read too, so that a change of words in the
 * line does not stop the suite from finding the addresses.
 */
export function parseReadyLine(line: string): ReadyLine | undefined {
  const record = jsonRecord(line);
  if (record) {
    const message = String(record.msg ?? record.message ?? '');
    if (!/\bready\b/i.test(message)) return undefined;
    const addresses: Record<string, string> = {};
    for (const [key, value] of Object.entries(record)) {
      if (typeof value === 'string' && /^(https?|rtmp):\/\//.test(value)) addresses[key.toLowerCase()] = value;
    }
    Object.assign(addresses, pairs(message));
    const role = typeof record.role === 'string' ? record.role : roleIn(message);
    return { role, addresses, storageOrigins: storageOriginsIn(message) };
  }
  if (!/\bready\b/i.test(line)) return undefined;
  return { role: roleIn(line), addresses: pairs(line), storageOrigins: storageOriginsIn(line) };
}

const storageOriginsIn = (text: string) => /\bstorage-hosts[:=]?\s+(\S+)/.exec(text)?.[1]?.split(',') ?? [];

function jsonRecord(line: string): Record<string, unknown> | undefined {
  if (!line.trimStart().startsWith('{')) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `API http://…`, `storage: http://…`, `rtmp=rtmp://…`: each URL by the word before it. */
function pairs(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z][\w-]*)[:=]?\s+((?:https?|rtmp):\/\/[^\s,;)]+)/g)) {
    found[match[1]!.toLowerCase()] ??= match[2]!;
  }
  for (const match of text.matchAll(/([A-Za-z][\w-]*)=((?:https?|rtmp):\/\/[^\s,;)]+)/g)) {
    found[match[1]!.toLowerCase()] ??= match[2]!;
  }
  return found;
}

function roleIn(text: string): string | undefined {
  return (
    /\brole[:=]?\s*"?(api|worker|ingest|all)\b/i.exec(text)?.[1] ??
    /\((api|worker|ingest|all)\b[^)]*\)/i.exec(text)?.[1] ??
    /\b(api|worker|ingest|all) (?:role|process)\b/i.exec(text)?.[1]
  )?.toLowerCase();
}

/** How a process is started, besides what every process of the cluster is given. */
export interface ProcessOptions {
  /** More flags, for this start only: a restart without them starts the process as the cluster did. */
  args?: string[];
  /**
   * In a PID namespace of its own (`unshare --pid --fork`), as in a container: it is PID 1 there and sees no other
   * process, and no process of this machine can tell from its PID whether it still runs, though they share a host
   * name. A job it held when it died is then taken again only after its lease.
   */
  pidNamespace?: boolean;
}

export interface ClusterProcess {
  name: ProcessName;
  role: Role;
  /** The service's process id on this machine, the one to signal (in a namespace of its own it calls itself 1). */
  pid: number;
  ready: ReadyLine;
  /** The API's own address (`http://127.0.0.1:PORT`), as its ready line names it; an API process always has one. */
  api?: string;
  /** The ingest's RTMP address (`rtmp://127.0.0.1:PORT/live`). */
  rtmp?: string;
  /** What the process printed so far, standard output and error together. */
  output(): string;
}

export interface Cluster {
  /** nginx in front of the two API processes: the one address clients use. */
  url: string;
  balancer: Balancer;
  /** The cluster's own database on the run's PostgreSQL. */
  database: string;
  /** `s3://BUCKET/PREFIX`: where every key of this cluster is written. */
  storage: string;
  s3: ReturnType<typeof scaleEngines>['s3'];
  /** The process of that name as it runs now (a restart makes a new one). */
  process(name: ProcessName): ClusterProcess;
  /** SIGKILL: no cleanup at all, as a machine that lost power. Resolves once it is gone. */
  kill(name: ProcessName): Promise<void>;
  /**
   * SIGKILLs the process if it runs and starts it again as the cluster started it, with `options` for this start
   * (an API process on its port, which nginx knows).
   */
  restart(name: ProcessName, options?: ProcessOptions): Promise<ClusterProcess>;
  /** A token of organization `org`, made by the service's own command line against the cluster's database. */
  token(org: string): Promise<string>;
  /** The store's requests under this cluster's prefix, from the store's own log. */
  storeRequests(): Promise<StoreRequest[]>;
  waitForStoreRequests(match: (requests: StoreRequest[]) => boolean, timeoutMs?: number): Promise<StoreRequest[]>;
  /** A query on the cluster's database, to read what the service recorded (jobs, deliveries). */
  query<T extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** Stops every process (SIGTERM, then SIGKILL), nginx, and the database's connections. */
  stop(): Promise<void>;
}

interface Running {
  /** What was spawned: the service, or `unshare` running it in a PID namespace. */
  child: ChildProcess;
  process: ClusterProcess;
  exited: Promise<void>;
}

/** Starts a cluster: the five processes at once, then nginx in front of the two API processes. */
export async function startCluster(options: { args?: string[] } = {}): Promise<Cluster> {
  const engines = scaleEngines();
  const database = await freshDatabase(engines.databaseUrl);
  const prefix = `cluster-${randomBytes(6).toString('hex')}`;
  const storage = `s3://${engines.s3.bucket}/${prefix}`;
  const running = new Map<ProcessName, Running>();
  /** An API process keeps its port across restarts: nginx's list of origins is written once. */
  const ports = new Map<ProcessName, string>();
  const pool = new pg.Pool({ connectionString: database, max: 2 });
  // The run's PostgreSQL restarts under some tests: an idle client of the pool losing its connection is no failure.
  pool.on('error', () => undefined);
  let balancer: Balancer | undefined;
  // The balancer's address is chosen first: every process names it as the API's (--public-url), as behind a real one.
  const balancerPort = await freePort();
  const publicUrl = `http://127.0.0.1:${balancerPort}`;

  const argsOf = async (name: ProcessName, extra: string[] = []) => [
    ...['--role', CLUSTER[name], '--database', database, '--storage', storage],
    ...['--s3-endpoint', engines.s3.endpoint, '--s3-path-style'],
    // The tests' webhook receivers listen on 127.0.0.1.
    '--allow-private-network',
    ...['--public-url', publicUrl],
    ...['--port', ports.get(name) ?? '0', '--storage-port', '0', '--rtmp-port', '0'],
    // Local scratch only (a worker's copy of a source for ffmpeg): every process its own, as on its own machine.
    ...['--data', await tempDir(`cluster-${name}-`)],
    ...(options.args ?? []),
    ...extra,
  ];

  const start = async (name: ProcessName, { args, pidNamespace = false }: ProcessOptions = {}): Promise<Running> => {
    const started = await startProcess(name, await argsOf(name, args), pidNamespace);
    running.set(name, started);
    if (started.process.api) {
      ports.set(name, new URL(started.process.api).port);
      // Every JSON answer the test gets from this process is checked against its /openapi.json.
      checkedOrigins.add(started.process.api);
    }
    return started;
  };

  const stopOne = async (name: ProcessName, signal: NodeJS.Signals) => {
    const one = running.get(name);
    if (!one || one.child.exitCode !== null || one.child.signalCode !== null) return;
    signalProcess(one.process.pid, signal);
    const timer = setTimeout(() => signalProcess(one.process.pid, 'SIGKILL'), STOP_TIMEOUT_MS);
    await one.exited;
    clearTimeout(timer);
  };

  const stop = async () => {
    await Promise.all([...running.keys()].map((name) => stopOne(name, 'SIGTERM')));
    await balancer?.stop();
    await pool.end().catch(() => undefined);
  };
  // A test process that ends without stopping the cluster (an uncaught error) takes the processes with it.
  const killAll = () =>
    running.forEach((one) => one.child.exitCode === null && signalProcess(one.process.pid, 'SIGKILL'));
  process.once('exit', killAll);

  try {
    // Every start is waited for, failed or not, so that none is left running behind a failure.
    const starts = await Promise.allSettled((Object.keys(CLUSTER) as ProcessName[]).map((name) => start(name)));
    const failed = starts.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const apis = (['api1', 'api2'] as const).map((name) => running.get(name)!.process.api!);
    balancer = await startNginx(apis, { port: balancerPort });
    checkedOrigins.add(balancer.url);
  } catch (error) {
    await stop();
    process.removeListener('exit', killAll);
    throw error;
  }

  const ours = (requests: StoreRequest[]) =>
    requests.filter((request) => request.path.startsWith(`/${engines.s3.bucket}/${prefix}/`));
  return {
    url: balancer.url,
    balancer,
    database,
    storage,
    s3: engines.s3,
    process: (name) => running.get(name)!.process,
    kill: (name) => stopOne(name, 'SIGKILL'),
    async restart(name, options) {
      await stopOne(name, 'SIGKILL');
      return (await start(name, options)).process;
    },
    async token(org) {
      const { code, stdout, stderr } = await runService(['token', '--org', org, '--database', database]);
      if (code !== 0) throw new Error(`token exited ${code}: ${stderr}`);
      return stdout.trim();
    },
    storeRequests: async () => ours(await engines.storeRequests()),
    waitForStoreRequests: async (match, timeoutMs) =>
      ours(await engines.waitForStoreRequests((requests) => match(ours(requests)), timeoutMs)),
    async query(text, values) {
      return (await pool.query(text, values)).rows;
    },
    async stop() {
      process.removeListener('exit', killAll);
      await stop();
    },
  };
}

/** Sends `signal` to a process that may have ended meanwhile (then there is nothing to do). */
function signalProcess(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** A new database on the run's PostgreSQL, named for its user (`cluster_…`): no test sees another's rows. */
export async function freshDatabase(serverUrl: string, prefix = 'cluster'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** Starts one process of the service and resolves once its ready line came; fails with its output otherwise. */
async function startProcess(name: ProcessName, args: string[], pidNamespace: boolean): Promise<Running> {
  const service = [...(await serviceCommand()), ...args];
  // --kill-child: unshare killed (by killAll, say), the service goes too; a SIGKILL the service gets ends its
  // namespace, ffmpeg included, and then unshare. Not root: a user namespace of its own lets it make one.
  const unshare = [
    'unshare',
    '--pid',
    '--fork',
    '--kill-child',
    ...(process.getuid?.() === 0 ? [] : ['--map-root-user']),
  ];
  const [command, ...commandArgs] = pidNamespace ? [...unshare, ...service] : service;
  const child = spawn(command!, commandArgs, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit').then(() => undefined);
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} was not ready after ${READY_TIMEOUT_MS} ms:\n${output}`));
    }, READY_TIMEOUT_MS);
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        output += `${line}\n`;
        if (process.env.SERVICE_LOG) process.stderr.write(`[${name}] ${line}\n`);
        const parsed = stream === child.stdout ? parseReadyLine(line) : undefined;
        if (parsed) {
          clearTimeout(timer);
          resolve(parsed);
        }
      });
    }
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`));
    });
  });
  const role = CLUSTER[name];
  const api = ready.addresses.api;
  if (role === 'api' && !api) throw new Error(`${name}'s ready line names no API address: ${output}`);
  return {
    child,
    exited,
    process: {
      name,
      role,
      // unshare's one child, which has printed its ready line by now.
      pid: pidNamespace
        ? Number((await readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')).trim())
        : child.pid!,
      ready,
      api,
      rtmp: ready.addresses.rtmp,
      output: () => output,
    },
  };
}
