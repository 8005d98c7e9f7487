import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { builtService } from '../../scripts/service-build.js';
import { openDatabase, type Db } from '../../service/db/index.js';
import { checkedOrigins } from './contract.js';
import { startPostgres, type Postgres } from './engines/postgres.js';
import { sha256 } from './media.js';
import { tempDir } from './temp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

export interface RunningService {
  /** The API origin, or the health port of a role without the API (worker, ingest). */
  api: string;
  /** The storage origin (its first host: where a single link goes); empty for a role without one (worker, ingest). */
  storage: string;
  /** The storage origin on each of its hosts (`--storage-hosts`): chunk N's link names host N-1, round them. */
  storageOrigins: string[];
  /** rtmp://127.0.0.1:PORT/live; empty for a role without the ingest (api, worker). */
  rtmp: string;
  data: string;
  /** `--data` and, on PostgreSQL, `--database`: what a command of the service run by hand needs to act on this one's. */
  dataArgs: string[];
  process: ChildProcess;
  /** Creates an organization's token with the service's own command line. */
  token(org: string, environment?: string): Promise<string>;
  /** Runs the service's command line on this service's data (`plan --org …`, say); resolves with its output. */
  cli(...args: string[]): Promise<string>;
  /** `revoke-token` of the service's command line, the token on its standard input, as it must be. */
  revoke(token: string): Promise<void>;
  /** Calls the API; `token: null` sends no Authorization header. */
  call<T = any>(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; raw?: string },
  ): Promise<{ status: number; body: T; headers: Headers }>;
  advanceClock(ms: number): Promise<void>;
  /** Resolves when no job is due or running: whatever the clock made due has run. */
  idle(): Promise<void>;
  /** Runs one whole pass of the sweeper and waits for it: what is due was done, what is not was left. */
  sweep(): Promise<void>;
  stop(): Promise<void>;
  /** SIGKILL: no cleanup at all, as a crash. */
  kill(): Promise<void>;
}

/**
 * `SERVICE_DATABASE=postgres`: every service a test starts keeps its metadata and jobs in a PostgreSQL database of
 * its own (`--database`), on a throwaway cluster started once per test file, at its first service, and stopped
 * when the file's process exits. A service started again on the same data folder (a restart) gets its database
 * again. Unset: SQLite in the data folder, the service's default.
 */
const ON_POSTGRES = process.env.SERVICE_DATABASE === 'postgres';
/** The engine the services of this run keep their metadata in, for the few tests whose check is the engine's own. */
export const SERVICE_ENGINE: 'sqlite' | 'postgres' = ON_POSTGRES ? 'postgres' : 'sqlite';
let cluster: Promise<Postgres> | undefined;
const databases = new Map<string, string>();
async function databaseOf(data: string): Promise<string> {
  let url = databases.get(data);
  if (!url) {
    cluster ??= startPostgres();
    url = await (await cluster).freshDatabase();
    databases.set(data, url);
  }
  return url;
}

/**
 * The database of a service started by `startService` (a running one, or one stopped or killed), through the
 * service's own query layer: for what a test checks behind the API (rows it does not show, a job's state after a
 * crash). SQLite in its data folder, or its PostgreSQL database under `SERVICE_DATABASE=postgres`. The caller
 * closes it (`destroy()`).
 */
export function serviceDatabase(service: { data: string }): Promise<Db> {
  return openDatabase(databases.get(service.data) ?? join(service.data, 'service.db'));
}

/**
 * The command that runs the service (then its flags, or a command such as `token`): node on the build `npm run
 * service` runs (scripts/service-build.ts), or `main`, the source of another checkout (bench/contract.bench.ts), through
 * tsx.
 */
export async function serviceCommand(main?: string): Promise<string[]> {
  return main ? [process.execPath, '--import', 'tsx', main] : [process.execPath, await builtService()];
}

/**
 * Runs the service's command line to its end: a command (`token`, `revoke-token` with the token as `input`) or flags
 * it refuses; resolves with its exit code and what it printed. Not execFileSync: a command of a second or two would
 * block the test's process, its sockets to a service with it.
 */
export async function runService(
  args: string[],
  { input = '', main, timeoutMs = 90_000 }: { input?: string; main?: string; timeoutMs?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [node, ...command] = await serviceCommand(main);
  return new Promise((resolve) => {
    const child = execFile(node!, [...command, ...args], { cwd: ROOT, timeout: timeoutMs }, (err, stdout, stderr) =>
      // Killed (past `timeoutMs`): no exit code, and not a success.
      resolve({ code: typeof err?.code === 'number' ? err.code : err ? 1 : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

/** Receivers of the tests listen on 127.0.0.1, which the service refuses to reach unless told it may. */
export const LOCAL_RECEIVERS = { args: ['--allow-private-network'] };

/** A new, empty data folder for a service, removed when the test process exits (a restart reuses one). */
export const tempData = (): Promise<string> => tempDir('video-service-');

/**
 * Starts the real service as its own process with test hooks, on free ports: on 127.0.0.1, or on `host` inside
 * the network namespace `netns` (bench/link: the far end of an emulated link).
 */
export async function startService(
  options: {
    data?: string;
    /** The ports (and the storage origin's hosts) of a service started before: a restart keeps its links good. */
    ports?: { api: string; storage: string; storageOrigins?: string[] };
    args?: string[];
    main?: string;
    host?: string;
    netns?: string;
    /** `--role` (service/roles.ts); default the service's own, `all`. */
    role?: 'all' | 'api' | 'worker' | 'ingest';
    /** Added to this process's environment (an S3 store's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY). */
    env?: Record<string, string>;
  } = {},
): Promise<RunningService> {
  const port = (origin?: string) => (origin ? new URL(origin).port : '0');
  const data = options.data ?? (await tempData());
  // A test that names its own database (two processes on one, concurrency.test.ts) keeps it.
  const database = ON_POSTGRES && !options.args?.includes('--database') ? ['--database', await databaseOf(data)] : [];
  const args = [
    ...database,
    '--port',
    port(options.ports?.api),
    '--storage-port',
    port(options.ports?.storage),
    ...(options.ports?.storageOrigins?.length
      ? ['--storage-hosts', options.ports.storageOrigins.map((origin) => new URL(origin).host).join(',')]
      : []),
    '--rtmp-port',
    '0',
    '--data',
    data,
    '--test-hooks',
    ...(options.role ? ['--role', options.role] : []),
    ...(options.host ? ['--host', options.host] : []),
  ];
  const command = [...(await serviceCommand(options.main)), ...args, ...(options.args ?? [])];
  // `ip netns exec` execs the command: the child's pid is the service's.
  if (options.netns) command.unshift('ip', 'netns', 'exec', options.netns);
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (process.env.SERVICE_LOG) process.stderr.write(d);
  });
  const line = await new Promise<string>((resolve, reject) => {
    // A service that never says it is ready fails the suite instead of hanging it.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service was not ready after ${READY_TIMEOUT_MS} ms:\n${stderr}`));
    }, READY_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (l) => l.startsWith('Video service ready') && (clearTimeout(timer), resolve(l)));
    child.once(
      'exit',
      (code) => (clearTimeout(timer), reject(new Error(`service exited with ${code} before it was ready:\n${stderr}`))),
    );
  });
  // Each role's line names what it serves (service/app.ts): `all` all three, another role its own.
  const address = (name: string) => new RegExp(`${name} (\\S+)`).exec(line)?.[1] ?? '';
  const [api, storage, rtmp] = [address('API') || address('health'), address('storage'), address('rtmp')];
  const storageOrigins = address('storage-hosts').split(',').filter(Boolean);
  // Every JSON answer of this service's API that a test receives is checked against its /openapi.json.
  if (address('API')) checkedOrigins.add(api);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  /** A command of the service's command line on this service's data; its output, or its failure with what it said. */
  const runCli = async (cliArgs: string[], input?: string) => {
    const { code, stdout, stderr } = await runService([...cliArgs, ...service.dataArgs], { input, main: options.main });
    if (code !== 0) throw new Error(`${cliArgs[0]} exited ${code}: ${stderr}`);
    return stdout.trim();
  };
  const service: RunningService = {
    api: api!,
    storage: storage!,
    storageOrigins,
    rtmp: rtmp!,
    data,
    dataArgs: ['--data', data, ...database],
    process: child,
    async token(org, environment = 'production') {
      return service.cli('token', '--org', org, '--environment', environment);
    },
    cli: (...cliArgs) => runCli(cliArgs),
    async revoke(token) {
      await runCli(['revoke-token'], `${token}\n`);
    },
    async call(method, path, { token, body, raw } = {}) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined || raw !== undefined || method === 'POST') headers['content-type'] = 'application/json';
      const res = await fetch(api + path, {
        method,
        headers,
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, body: parsed as any, headers: res.headers };
    },
    async advanceClock(ms) {
      const r = await service.call('POST', '/__test__/clock', { body: { advanceMs: ms } });
      if (r.status !== 200) throw new Error(`clock: ${r.status}`);
    },
    async idle() {
      await service.call('POST', '/__test__/jobs/idle');
    },
    async sweep() {
      const r = await service.call('POST', '/__test__/sweep');
      if (r.status !== 200) throw new Error(`sweep: ${r.status}`);
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  return service;
}

/** A process and its live descendants, from /proc: pid, the fields of /proc/PID/stat after the name, and the command line. */
export async function processTree(root: number): Promise<{ pid: number; stat: string[]; cmdline: string }[]> {
  const all: { pid: number; stat: string[]; cmdline: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [stat, cmdline] = await Promise.all(
      [`/proc/${entry}/stat`, `/proc/${entry}/cmdline`].map((f) => readFile(f, 'utf8').catch(() => '')),
    );
    if (stat) all.push({ pid: Number(entry), stat: stat.replace(/^.*\) /, '').split(' '), cmdline: cmdline! });
  }
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => Number(p.stat[1]) === tree[i]!.pid));
  return tree;
}

/** The service's RTMP ingest process (live/rtmp-worker.ts): its pid, or undefined. */
export async function ingestPid(service: RunningService): Promise<number | undefined> {
  return (await processTree(service.process.pid!)).find((p) => p.cmdline.includes('rtmp-worker'))?.pid;
}

/** The API and the storage origin still serve a user: a video is made, and its bytes are taken. */
export async function stillServes(service: RunningService, token: string): Promise<void> {
  const { body: video } = await service.call('POST', '/videos', { token });
  const { body: link } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
  const { status } = await put(link.url, new Uint8Array(1000));
  if (status !== 200) throw new Error(`the service no longer serves: the storage answered ${status}`);
}

/** A started service and a token of `org` in it: what most suites begin with. */
export async function startWithToken(
  org: string,
  options: Parameters<typeof startService>[0] = {},
): Promise<{ service: RunningService; token: string }> {
  const service = await startService(options);
  return { service, token: await service.token(org) };
}

/** PUTs bytes to a storage URL exactly as a browser uploader would: no Authorization. */
export async function put(url: string, body: Uint8Array | Blob, contentType = 'video/mp4') {
  const res = await fetch(url, { method: 'PUT', body: body as BodyInit, headers: { 'content-type': contentType } });
  return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
}

/**
 * #6: completes the multipart session `key` with chunk N's ETag at `eTags[N - 1]` (null, as `put` gives for an
 * answer without one, is sent as it is); with `video`, on the path that names the video.
 */
export function completeMultipart(
  service: RunningService,
  token: string,
  key: string,
  eTags: readonly (string | null)[],
  { video }: { video?: string } = {},
) {
  const path = video ? `/videos/${video}/multipart-upload/complete` : '/videos/multipart-upload/complete';
  return service.call('POST', path, {
    token,
    body: { key, chunks: eTags.map((eTag, i) => ({ chunkId: i + 1, eTag })) },
  });
}

/** Uploads a file with one signed link (#1, #2, #5) and returns the video's id. */
export async function upload(
  service: RunningService,
  token: string,
  path: string,
  fileName = path.slice(path.lastIndexOf('/') + 1),
): Promise<string> {
  const { body: video } = await service.call('POST', '/videos', { token, body: { file_name: fileName } });
  const { body: link } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
  const { status } = await put(link.url, await readFile(path));
  if (status !== 200) throw new Error(`upload of ${path}: PUT answered ${status}`);
  return video._id as string;
}

/** Polls `check` every 100 ms until it returns something other than undefined; fails after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Where a video's source is stored, once it is there: a multipart source is joined from its chunks when processing
 * starts, just after #6 answers (service/domain/uploads.ts, assemble).
 */
export async function storedSource(data: string, videoId: string): Promise<string> {
  const source = join(data, 'videos', videoId, 'source');
  await until(`the source of ${videoId}`, async () => (existsSync(source) ? true : undefined));
  return source;
}

/** The SHA-256 of a video's stored source, once it is there (`storedSource`). */
export async function storedSha256(data: string, videoId: string): Promise<string> {
  return sha256(await storedSource(data, videoId));
}

/** Waits for #8 to leave `processing`/`waiting`, and returns the video. */
export async function waitForVideo(
  service: RunningService,
  token: string,
  id: string,
  timeoutMs = 120_000,
): Promise<any> {
  return until(
    `video ${id} to be ready or failed`,
    async () => {
      const { body } = await service.call('GET', `/videos/${id}`, { token });
      return body.status === 'ready' || body.status === 'failed' ? body : undefined;
    },
    timeoutMs,
  );
}

/** A series' value in a /metrics text (`name{labels}` as the text writes it), or undefined without it. */
export function metricSample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** How many jobs of `kind` this service's process ended with `outcome` (done, failed, retry, stopped), by its /metrics. */
export async function jobsEnded(service: RunningService, kind: string, outcome: string): Promise<number> {
  const metrics = await (await fetch(`${service.api}/metrics`)).text();
  return metricSample(metrics, `video_job_duration_seconds_count{kind="${kind}",outcome="${outcome}"}`) ?? 0;
}
