/**
 * The service on more than one process (issue 30, item 6): today's single process on SQLite and the data folder
 * against the service on PostgreSQL and an S3 store, with its roles. Prints figures, each beside a baseline
 * measured in the same run; asserts nothing. Run under the scale suite's engines (PostgreSQL and Ceph's S3 store,
 * scripts/with-engines.ts), as `npm run bench` does:
 *
 *   node --import tsx scripts/with-engines.ts -- node --import tsx bench/scale.bench.ts
 *
 * A section or several by name: `… bench/scale.bench.ts requests,processing` (uploads, requests, processing, latency).
 *
 *   1. Upload throughput in Chromium (BENCH_MIB, 256): the widget's multipart straight to the store, against raw
 *      `fetch` PUTs of the same parts (presigned `UploadPart`, six at a time) to the same store, and against the
 *      widget's multipart to today's storage origin (the data folder). BENCH_ROUNDS (3) interleaved rounds.
 *   2. #1 (POST /videos) and #8 (GET /videos/{id}) requests per second, autocannon (its own process, 10
 *      connections, 5 s): one API process and two behind nginx; nginx in front of one of the two is the baseline
 *      the pair is read against (the balancer's own cost), today's single process the other.
 *   3. Time from #6's answer to the `video-ready` webhook for 8 uploads completed at once, with one and two workers.
 *   4. The p50 and p99 of #8 while 48 single-link uploads run at once, on the data folder (the bytes and their MD5
 *      share the API's event loop) and on the store (the bytes go to the store), each beside #8 at rest; then again
 *      with the machine's cores split between the service (its processes and PostgreSQL) and the rest (the store's
 *      daemons, the uploading client, autocannon), as if those were the other machines they are in a deployment
 *      (on two cores they otherwise take the API's).
 *
 * What the service cannot do yet (no `--role`, `--database` or `--storage s3://` in its `--help`) is said and
 * skipped. On this machine's two cores a second process cannot double anything: the figures say what it does;
 * docs/scale.md, "On more machines", says what it does where cores are not the limit.
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutBucketCorsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { MiB } from '../src/api/limits.js';
import { DEFAULT_PARALLEL_UPLOADS } from '../src/options.js';
import { planUpload, shrinkingRange } from '../src/upload/plan.js';
import { scaleEngines, type ScaleEngines } from '../test/helpers/engines/environment.js';
import { startNginx, type Balancer } from '../test/helpers/engines/nginx.js';
import { media } from '../test/helpers/media.js';
import { LOCAL_RECEIVERS, startService, tempData } from '../test/helpers/service.js';
import { interleaved, median, table } from './stats.js';
import { benchPage } from './widget.bench.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const SIZE = Number(process.env.BENCH_MIB ?? 256) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The bucket of this benchmark: it sets CORS on it, which the run's shared bucket must not get (with-engines.ts). */
const BUCKET = 'scale-bench';
/** It measures processes, not the bounds of the hardening issue: thousands of videos a second from one key pass. */
const UNBOUNDED = ['--rate-limit-per-minute', '1000000000', '--max-open-uploads-per-organization', '1000000000'];

/**
 * What this checkout's service can be started as, from its `--help`: on the store (`--storage s3://…`), and as a
 * cluster (roles on PostgreSQL).
 */
interface Features {
  store: boolean;
  roles: boolean;
  cluster: boolean;
  missing: string[];
}

async function serviceFeatures(): Promise<Features> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'service/main.ts', '--help'], { cwd: ROOT });
  const missing = ['--s3-endpoint', '--role', '--database'].filter((flag) => !stdout.includes(flag));
  const has = (flag: string) => !missing.includes(flag);
  return { store: has('--s3-endpoint'), roles: has('--role'), cluster: missing.length === 0, missing };
}

/** A way the service runs: one address to call, a token of organization `bench`, its processes. */
interface Deployment {
  label: string;
  api: string;
  token: string;
  /** A token of another organization. */
  tokenOf(org: string): Promise<string>;
  apis: RoleProcess[];
  workers: RoleProcess[];
  addWorker(): Promise<RoleProcess>;
  /** Waits for the jobs under way to end (best effort: a role without the test hook answers 404). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** One process (`all`) on SQLite: today's service, or the same with `args` (on the store). */
async function oneProcess(label: string, args: string[] = []): Promise<Deployment> {
  const service = await startService({ args: [...UNBOUNDED, ...LOCAL_RECEIVERS.args, ...args] });
  return {
    label,
    api: service.api,
    token: await service.token('bench'),
    tokenOf: (org) => service.token(org),
    apis: [service],
    workers: [service],
    addWorker: () => Promise.reject(new Error('one process has no second worker')),
    idle: () => service.idle(),
    async stop() {
      await service.stop();
      await rm(service.data, { recursive: true, force: true });
    },
  };
}

const onDisk = () => oneProcess('one process, SQLite + data folder (today)');

/** A process of one role: its API's address (an API process) and how to stop it. */
interface RoleProcess {
  api: string;
  stop(): Promise<void>;
}

/**
 * Starts `main.ts --role ROLE` and waits for its ready line (`Video service ready (role …): API http://…`). Not
 * startService (test/helpers/service.ts): its ready line names an API, a storage origin and an RTMP address,
 * which a worker has none of.
 */
async function startRole(role: string, args: string[]): Promise<RoleProcess> {
  const ports = ['--port', '0', '--storage-port', '0', '--rtmp-port', '0'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'service/main.ts', '--role', role, ...ports, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => {
    output += d;
    // As test/helpers/service.ts does: SERVICE_LOG=1 shows what the processes say while they run.
    if (process.env.SERVICE_LOG) process.stderr.write(`[${role}] ${d}`);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => l.startsWith('Video service ready') && resolve(l));
    void exited.then(() => reject(new Error(`--role ${role} exited before it was ready:\n${output}`)));
  });
  return {
    api: /API (\S+)/.exec(line)?.[1] ?? '',
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `apis` API processes (behind nginx when more than one) and `workers` workers, started with `args`, sharing one
 * database: PostgreSQL with the store, or SQLite in one data folder (roles without --database).
 */
async function fleet(
  label: string,
  args: string[],
  tokenArgs: string[],
  apis: number,
  workers: number,
  cleanUp: () => Promise<void>,
): Promise<Deployment> {
  const common = [...args, ...UNBOUNDED, ...LOCAL_RECEIVERS.args];
  const start = (role: string) => startRole(role, common);
  const apiProcesses = await Promise.all(Array.from({ length: apis }, () => start('api')));
  const workerProcesses = await Promise.all(Array.from({ length: workers }, () => start('worker')));
  const balancer: Balancer | undefined = apis > 1 ? await startNginx(apiProcesses.map((p) => p.api)) : undefined;
  const tokenOf = async (org: string) => {
    const command = ['--import', 'tsx', 'service/main.ts', 'token', '--org', org, '--environment', 'production'];
    return (await run(process.execPath, [...command, ...tokenArgs], { cwd: ROOT })).stdout.trim();
  };
  return {
    label,
    api: balancer?.url ?? apiProcesses[0]!.api,
    token: await tokenOf('bench'),
    tokenOf,
    apis: apiProcesses,
    workers: workerProcesses,
    async addWorker() {
      const worker = await start('worker');
      workerProcesses.push(worker);
      return worker;
    },
    // Roles run without test hooks here, as in production: nothing to wait on but time.
    idle: () => new Promise((r) => setTimeout(r, 2000)),
    async stop() {
      await balancer?.stop();
      await Promise.all([...apiProcesses, ...workerProcesses].map((p) => p.stop()));
      await cleanUp();
    },
  };
}

/**
 * The service on PostgreSQL (a database of its own) and the store (a prefix of its own): `apis` API processes
 * behind nginx when more than one, and `workers` workers. A service without roles runs as one process on SQLite
 * and the store.
 */
async function onEngines(engines: ScaleEngines, features: Features, apis = 1, workers = 1): Promise<Deployment> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const store = ['--storage', `s3://${BUCKET}/${name}`, '--s3-endpoint', engines.s3.endpoint, '--s3-path-style'];
  if (!features.cluster) {
    if (apis !== 1 || workers !== 1) throw new Error('a service without roles is one process');
    return oneProcess('one process, SQLite + store', store);
  }
  const admin = new pg.Client({ connectionString: engines.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const database = new URL(engines.databaseUrl);
  database.pathname = `/${name}`;
  const data = await tempData();
  const label = `${apis} API + ${workers} worker processes, PostgreSQL + store`;
  const args = ['--database', database.href, '--data', data, ...store];
  return fleet(label, args, ['--database', database.href, '--data', data], apis, workers, () =>
    rm(data, { recursive: true, force: true }),
  );
}

/** Roles without PostgreSQL (a service with --role but no --database): the processes share SQLite in one folder. */
async function onSharedFolder(apis: number, workers: number): Promise<Deployment> {
  const data = await tempData();
  const label = `${apis} API + ${workers} worker processes, SQLite + data folder shared`;
  return fleet(label, ['--data', data], ['--data', data], apis, workers, () =>
    rm(data, { recursive: true, force: true }),
  );
}

/** The processes of `apis` API and `workers` worker processes on what this service offers, or undefined. */
function processes(engines: ScaleEngines, features: Features, apis: number, workers: number) {
  if (features.cluster) return onEngines(engines, features, apis, workers);
  if (features.roles) return onSharedFolder(apis, workers);
  return undefined;
}

const call = async (deployment: Deployment, method: string, path: string, body?: unknown, token = deployment.token) => {
  const res = await fetch(deployment.api + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
};

/** autocannon in a process of its own, so that the bench's own work (uploads, say) does not slow the client. */
async function load(
  url: string,
  method: 'GET' | 'POST',
  token: string,
  { connections = 10, seconds = 5, cores = undefined as string | undefined } = {},
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const args = ['node_modules/autocannon/autocannon.js', '--json', '-c', String(connections), '-d', String(seconds)];
  args.push('-m', method, '-H', `authorization=Bearer ${token}`, '-H', 'content-type=application/json');
  if (method === 'POST') args.push('-b', '{"file_name":"bench.mp4"}');
  const [command, ...rest] = onCores(cores, [process.execPath, ...args, url]);
  const { stdout } = await run(command!, rest, { cwd: ROOT, maxBuffer: 16 * MiB });
  const result = JSON.parse(stdout);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

/** The store's bucket of this benchmark, with the CORS a browser's PUTs need (ETag readable). */
async function storeClient(engines: ScaleEngines): Promise<S3Client> {
  const s3 = new S3Client({
    endpoint: engines.s3.endpoint,
    region: engines.s3.region,
    forcePathStyle: true,
    credentials: engines.s3.credentials,
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET })).catch((error: Error) => {
    if (error.name !== 'BucketAlreadyOwnedByYou') throw error;
  });
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: BUCKET,
      CORSConfiguration: {
        CORSRules: [
          { AllowedOrigins: ['*'], AllowedMethods: ['PUT', 'GET'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'] },
        ],
      },
    }),
  );
  return s3;
}

const mbps = (ms: number) => SIZE / 1e6 / (ms / 1000);

/** 1. The file in Chromium: widget to the store, raw parts to the store, widget to the data folder. */
async function uploads(engines: ScaleEngines, features: Features): Promise<string[][]> {
  const s3 = await storeClient(engines);
  const bench = await benchPage(true, SIZE);
  const store = features.store ? await onEngines(engines, features) : undefined;
  // The widget's own plan for the file (its defaults: chunks shrinking with what is left, six at a time), which
  // the raw baseline sends the same way.
  const plan = planUpload(SIZE, 0, null, DEFAULT_PARALLEL_UPLOADS);
  const ranges = Array.from({ length: plan.chunks }, (_, i) =>
    plan.shrink
      ? shrinkingRange(SIZE, plan.shrink, i + 1)
      : { start: i * plan.chunkSize, end: Math.min(SIZE, (i + 1) * plan.chunkSize) },
  );
  const rawParts = async () => {
    const start = performance.now();
    const Key = `raw/${randomBytes(8).toString('hex')}`;
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key }));
    const urls = await Promise.all(
      ranges.map((_, i) =>
        getSignedUrl(s3, new UploadPartCommand({ Bucket: BUCKET, Key, UploadId, PartNumber: i + 1 }), {
          expiresIn: 3600,
        }),
      ),
    );
    const eTags = await bench.page.evaluate(
      async ({ urls, ranges, parallel }) => {
        const file = document.querySelector<HTMLInputElement>('#source')!.files![0]!;
        const tags: string[] = [];
        let next = 0;
        // Inline, not a named function: tsx would wrap a named one in a helper the page does not have.
        await Promise.all(
          Array.from({ length: parallel }, async () => {
            for (let i = next++; i < urls.length; i = next++) {
              const res = await fetch(urls[i]!, { method: 'PUT', body: file.slice(ranges[i]!.start, ranges[i]!.end) });
              if (res.status !== 200) throw new Error(`part ${i + 1}: ${res.status}`);
              tags[i] = res.headers.get('etag')!;
            }
          }),
        );
        return tags;
      },
      { urls, ranges, parallel: DEFAULT_PARALLEL_UPLOADS },
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key,
        UploadId,
        MultipartUpload: { Parts: eTags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    return performance.now() - start;
  };
  const widgetToStore = async () => {
    const ms = (await bench.page.evaluate(([api, token]) => (window as any).bench('multipart', api, token, 0, {}), [
      store!.api,
      store!.token,
    ] as const)) as number;
    await store!.idle();
    return ms;
  };
  const rows: [string, () => Promise<number>][] = [
    [
      `raw fetch PUTs of the ${ranges.length} parts to the store, ${DEFAULT_PARALLEL_UPLOADS} at a time (baseline)`,
      rawParts,
    ],
    ['widget, multipart (its defaults) to the data folder, today', () => bench.run('multipart')],
  ];
  if (store) rows.push(['widget, multipart (its defaults) straight to the store', widgetToStore]);
  try {
    await rawParts(); // warm-up: the first PUTs to a new bucket are slower
    const times = await interleaved(
      ROUNDS,
      rows.map(([, fn]) => fn),
    );
    const ratio = (base: number[], i: number) => median(times[i]!.map((ms, round) => base[round]! / ms));
    const out = rows.map(([label], i) => [
      label,
      `${mbps(median(times[i]!)).toFixed(0)} MB/s`,
      ratio(times[0]!, i).toFixed(2),
      ratio(times[1]!, i).toFixed(2),
    ]);
    if (!store)
      out.push(['widget, multipart straight to the store', 'not measured: the service has no S3 store yet', '', '']);
    return [['upload', 'median', 'to raw parts', 'to today'], ...out];
  } finally {
    await bench.close();
    await store?.stop();
    s3.destroy();
  }
}

/** 2. #1 and #8 per second: today's process, one API process, two behind nginx, one behind nginx. */
async function requests(engines: ScaleEngines, features: Features): Promise<string[][]> {
  const disk = await onDisk();
  const pair = await processes(engines, features, 2, 1);
  const oneBehindNginx = pair ? await startNginx([pair.apis[0]!.api]) : undefined;
  const targets: [string, Deployment, string][] = [['one process, SQLite + data folder (today)', disk, disk.api]];
  if (pair) {
    targets.push(['one API process of the pair, direct', pair, pair.apis[0]!.api]);
    targets.push(['one API process behind nginx (baseline of the pair)', pair, oneBehindNginx!.url]);
    targets.push(['two API processes behind nginx', pair, pair.api]);
  }
  try {
    const videos = await Promise.all(targets.map(([, d]) => call(d, 'POST', '/videos')));
    const cases = targets.flatMap(([, d, url], i) => [
      async () => (await load(`${url}/videos`, 'POST', d.token)).rps,
      async () => (await load(`${url}/videos/${videos[i]._id}`, 'GET', d.token)).rps,
    ]);
    const rps = await interleaved(ROUNDS, cases);
    const at = (i: number, which: 0 | 1) => median(rps[2 * i + which]!);
    const base = targets.length > 2 ? 2 : 0;
    const rows = targets.map(([label], i) => [
      label,
      `${at(i, 0).toFixed(0)}`,
      (at(i, 0) / at(0, 0)).toFixed(2),
      (at(i, 0) / at(base, 0)).toFixed(2),
      `${at(i, 1).toFixed(0)}`,
      (at(i, 1) / at(0, 1)).toFixed(2),
      (at(i, 1) / at(base, 1)).toFixed(2),
    ]);
    if (!pair)
      rows.push(['one and two API processes', 'not measured: the service has no --role yet', '', '', '', '', '']);
    return [
      ['processes', '#1 req/s', 'to today', 'to one behind nginx', '#8 req/s', 'to today', 'to one behind nginx'],
      ...rows,
    ];
  } finally {
    await oneBehindNginx?.stop();
    await pair?.stop();
    await disk.stop();
  }
}

/** A webhook receiver that notes when each video's `video-ready` arrived. */
async function readyTimes(): Promise<{ url: string; at: Map<string, number>; close(): void }> {
  const at = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      const event = JSON.parse(body);
      if (event.event === 'video-ready') at.set(event.payload._id, performance.now());
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, at, close: () => server.close() };
}

/**
 * 8 videos, one of each organization of `tokens`, uploaded as one chunk each (#1, #3, #4, #5), then completed at
 * once (#6): from each #6's answer to its `video-ready`, the median and the last (all 8 ready). Eight
 * organizations, as processing runs one video of an organization at a time across all workers (`perGroup` 1):
 * one organization's 8 would be one after another however many workers there are.
 */
async function completeToReady(
  deployment: Deployment,
  tokens: string[],
  file: Buffer,
  hook: Awaited<ReturnType<typeof readyTimes>>,
) {
  const sessions = await Promise.all(
    tokens.map(async (token) => {
      const post = (path: string, body?: unknown) => call(deployment, 'POST', path, body, token);
      const video = await post('/videos', { file_name: 'bench.mp4' });
      const { key } = await post(`/videos/${video._id}/multipart-upload/begin`);
      const { url } = await post(`/videos/${video._id}/multipart-upload/get-chunk-upload-url`, { key, chunkId: 1 });
      const res = await fetch(url, { method: 'PUT', body: file as BodyInit, headers: { 'content-type': 'video/mp4' } });
      if (res.status !== 200) throw new Error(`chunk PUT: ${res.status}`);
      return { token, id: video._id as string, key: key as string, eTag: res.headers.get('etag')! };
    }),
  );
  const completed = await Promise.all(
    sessions.map(async ({ token, id, key, eTag }) => {
      const chunks = [{ chunkId: 1, eTag }];
      await call(deployment, 'POST', `/videos/${id}/multipart-upload/complete`, { key, chunks }, token);
      return performance.now();
    }),
  );
  const deadline = Date.now() + 300_000;
  while (sessions.some(({ id }) => !hook.at.has(id))) {
    if (Date.now() > deadline) throw new Error('8 videos not ready after 300 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  const waits = sessions.map(({ id }, i) => hook.at.get(id)! - completed[i]!);
  return { median: median(waits), last: Math.max(...waits) };
}

/** 3. Complete → ready for 8 uploads: today's process, then one worker, two, and one again (the noise). */
async function processing(engines: ScaleEngines, features: Features): Promise<string[][]> {
  const file = await readFile(await media('h264-aac-720p-10s.mp4'));
  const hook = await readyTimes();
  const rows: string[][] = [['processes', 'median #6 → video-ready', 'all 8 ready', 'to today']];
  /** Tokens of 8 organizations, each with the webhook. */
  const organizations = async (d: Deployment) => {
    const tokens = await Promise.all(Array.from({ length: 8 }, (_, i) => d.tokenOf(`bench-${i + 1}`)));
    await Promise.all(
      tokens.map((token) => call(d, 'POST', '/webhooks', { url: hook.url, events: ['video-ready'] }, token)),
    );
    return tokens;
  };
  const disk = await onDisk();
  let today = NaN;
  try {
    const tokens = await organizations(disk);
    await completeToReady(disk, tokens, file, hook); // warm-up
    const { median: m, last } = await completeToReady(disk, tokens, file, hook);
    today = last;
    rows.push([disk.label, `${(m / 1000).toFixed(2)} s`, `${(last / 1000).toFixed(2)} s`, '1.00']);
  } finally {
    await disk.stop();
  }
  const measure = async (deployment: Deployment, tokens: string[], label = deployment.label) => {
    const { median: m, last } = await completeToReady(deployment, tokens, file, hook);
    rows.push([label, `${(m / 1000).toFixed(2)} s`, `${(last / 1000).toFixed(2)} s`, (last / today).toFixed(2)]);
  };
  // The one process on the store (a service with the store but no roles): processing reads from it and writes back.
  if (features.store && !features.cluster) {
    const store = await onEngines(engines, features);
    try {
      const tokens = await organizations(store);
      await completeToReady(store, tokens, file, hook); // warm-up
      await measure(store, tokens);
    } finally {
      await store.stop();
    }
  }
  const deployment = await processes(engines, features, 1, 1);
  if (!deployment) {
    rows.push(['one and two workers', 'not measured: the service has no --role yet', '', '']);
    hook.close();
    return rows;
  }
  try {
    const tokens = await organizations(deployment);
    await completeToReady(deployment, tokens, file, hook); // warm-up
    await measure(deployment, tokens);
    const second = await deployment.addWorker();
    await measure(deployment, tokens, '  the same with a second worker');
    await second.stop();
    deployment.workers.pop();
    await measure(deployment, tokens, '  the same with one worker again (the noise)');
  } finally {
    await deployment.stop();
    hook.close();
  }
  return rows;
}

/**
 * The 48 uploads' client: a process of its own (on the other machine's cores when the browsers are to be
 * "elsewhere") that PUTs a 32 MiB body to each link at once and prints `started`, then one status per finished PUT.
 */
const UPLOADER = `
const links = JSON.parse(process.argv[1]);
const body = Buffer.alloc(32 * 1024 * 1024, 1);
console.log('started');
await Promise.all(links.map((link) =>
  fetch(link, { method: 'PUT', body, headers: { 'content-type': 'video/mp4' } })
    .then((res) => res.status, () => 0)
    .then((status) => console.log(status))));
`;

/**
 * "Elsewhere" on one machine: its cores split in two halves, as if they were two machines. The service's processes
 * (every `service/main.ts` and PostgreSQL, part of #8's path) on the first; the store's daemons, the uploading client
 * and autocannon, which in a deployment are other machines (the store, the browsers), on the second. Undefined on a
 * machine of one core.
 */
const SPLIT = (() => {
  const n = availableParallelism();
  if (n < 2) return undefined;
  const half = Math.floor(n / 2);
  return { service: `0-${half - 1}`, others: `${half}-${n - 1}`, all: `0-${n - 1}` };
})();

/** Puts each thread of the processes named (pgrep -f) on `cores` (taskset). */
async function pin(cores: string, ...patterns: string[]): Promise<void> {
  for (const pattern of patterns) {
    const { stdout } = await run('pgrep', ['-f', pattern]).catch(() => ({ stdout: '' }));
    for (const pid of stdout.split('\n').filter(Boolean)) {
      await run('taskset', ['-a', '-p', '-c', cores, pid]).catch(() => undefined); // one that ended meanwhile
    }
  }
}
const SERVICE_PROCESSES = ['service/main.ts', '^postgres'];
/** `command` on `cores` (taskset), or as it is. */
const onCores = (cores: string | undefined, command: string[]) =>
  cores ? ['taskset', '-c', cores, ...command] : command;
const STORE_PROCESSES = ['^(/usr/bin/)?(radosgw|ceph-osd|ceph-mon)'];

/**
 * #8's latency at rest, then while 48 single-link uploads of 32 MiB run at once (#1 and #2 from this process, the
 * PUTs from UPLOADER's; autocannon in its own). The load starts once every PUT is under way and lasts 5 s, well
 * inside the uploads (1.5 GiB at this machine's few hundred MB/s); how many were still running at its end is printed.
 *
 * `elsewhere`: on one machine the store's daemons, the uploading client and autocannon take the cores the API needs,
 * which in a deployment are other machines' (the browsers, the store). For this row the machine's cores are split
 * (SPLIT) for both measures, at rest and under the uploads, so the row shows what the service's own processes do.
 */
async function latencyUnderUploads(deployment: Deployment, elsewhere: boolean): Promise<string[]> {
  const split = elsewhere ? SPLIT : undefined;
  const { _id } = await call(deployment, 'POST', '/videos');
  const url = `${deployment.api}/videos/${_id}`;
  const links = await Promise.all(
    Array.from({ length: 48 }, async () => {
      const video = await call(deployment, 'POST', '/videos');
      return (await call(deployment, 'POST', `/videos/${video._id}/uploads`)).url as string;
    }),
  );
  if (split) {
    await pin(split.service, ...SERVICE_PROCESSES);
    await pin(split.others, ...STORE_PROCESSES);
  }
  const statuses: number[] = [];
  let rest!: Awaited<ReturnType<typeof load>>;
  let loaded!: Awaited<ReturnType<typeof load>>;
  let left!: number;
  try {
    rest = await load(url, 'GET', deployment.token, { connections: 4, cores: split?.others });
    const uploading = [process.execPath, '--input-type=module', '-e', UPLOADER, JSON.stringify(links)];
    const [command, ...args] = onCores(split?.others, uploading);
    const uploader = spawn(command!, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let started!: () => void;
    const underWay = new Promise<void>((resolve) => (started = resolve));
    const finished = new Promise<void>((resolve) => uploader.once('exit', () => resolve()));
    createInterface({ input: uploader.stdout! }).on('line', (line) =>
      line === 'started' ? started() : statuses.push(Number(line)),
    );
    await underWay;
    await new Promise((r) => setTimeout(r, 500));
    loaded = await load(url, 'GET', deployment.token, { connections: 4, cores: split?.others });
    left = links.length - statuses.length;
    await finished;
  } finally {
    if (split) await pin(split.all, ...SERVICE_PROCESSES, ...STORE_PROCESSES);
  }
  return [
    `${deployment.label}${split ? `, on ${split.service === '0-0' ? 'a core' : 'cores'} of its own` : ''}`,
    `${rest.p50} / ${rest.p99} ms`,
    `${loaded.p50} / ${loaded.p99} ms`,
    (loaded.p99 / rest.p99).toFixed(1),
    `${left} of 48${statuses.every((s) => s === 200) ? '' : ` (answers ${[...new Set(statuses)].join(', ')})`}`,
  ];
}

/** 4. #8 under 48 uploads: on the data folder, on the store; each as measured, then as if the rest were elsewhere. */
async function latency(engines: ScaleEngines, features: Features): Promise<string[][]> {
  const rows = [
    [
      'where the bytes go',
      '#8 p50 / p99 at rest',
      'during 48 uploads',
      'p99 to at rest',
      'uploads still running at the end',
    ],
  ];
  for (const elsewhere of [false, true]) {
    const disk = await onDisk();
    try {
      rows.push(await latencyUnderUploads(disk, elsewhere));
    } finally {
      await disk.stop();
    }
    if (!features.store) {
      rows.push(['the store', 'not measured: the service has no S3 store yet', '', '', '']);
      continue;
    }
    const store = await onEngines(engines, features);
    try {
      rows.push(await latencyUnderUploads(store, elsewhere));
    } finally {
      await store.stop();
    }
  }
  return rows;
}

export async function main(): Promise<void> {
  const engines = scaleEngines();
  const features = await serviceFeatures();
  // `uploads,latency`, say: some sections only.
  const only = process.argv[2]?.split(',');
  const git = async (...args: string[]) => (await run('git', args, { cwd: ROOT }).catch(() => ({ stdout: '' }))).stdout;
  const commit = (await git('rev-parse', '--short', 'HEAD')).trim();
  // A trial tree with branches merged but not committed says so: the figures are not of HEAD alone.
  const merging = (await git('rev-parse', '--short', '-q', '--verify', 'MERGE_HEAD')).trim();
  const dirty = (await git('status', '--porcelain', '--untracked-files=no')).trim() ? ', with uncommitted changes' : '';
  console.log(
    `Scale figures at ${commit}${merging ? ` with ${merging} merged` : ''}${dirty}, ${new Date().toISOString().slice(0, 10)}`,
  );
  if (features.missing.length > 0)
    console.log(`This service lacks ${features.missing.join(', ')}: what needs them is skipped.`);
  const sections: [string, string, () => Promise<string[][]>][] = [
    [
      'uploads',
      `\n1. A ${SIZE / MiB} MiB file from Chromium, medians of ${ROUNDS} interleaved rounds`,
      () => uploads(engines, features),
    ],
    [
      'requests',
      `\n2. #1 and #8 per second (autocannon, 10 connections, 5 s), medians of ${ROUNDS} interleaved samples`,
      () => requests(engines, features),
    ],
    [
      'processing',
      '\n3. 8 uploads of 8 organizations (10 s 720p H.264/AAC, one chunk each) completed at once: #6 → video-ready',
      () => processing(engines, features),
    ],
    [
      'latency',
      '\n4. #8 (4 connections, 5 s) at rest and while 48 uploads of 32 MiB run at once',
      () => latency(engines, features),
    ],
  ];
  for (const [name, title, measure] of sections) {
    if (only && !only.includes(name)) continue;
    console.log(title);
    const before = loadavg()[0]!;
    console.log(table(await measure()));
    // The machine is shared: a figure read with the load it was measured under.
    console.log(`load average (1 min) ${before.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
