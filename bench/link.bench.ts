/**
 * Upload speed over emulated links (bench/link/emulator.ts), headless Chromium at one end and the servers at the
 * other, side by side with the published peers. Prints figures; asserts nothing.
 *
 * The same file (256 MiB; 64 MiB with BENCH_QUICK=1) over each link, every contender in the same run on the same link:
 * a raw single `fetch` PUT (what one TCP stream gets), six raw `fetch` PUTs at once, a sixth of the file each, to six
 * single links on one host (what Chromium's pool of six connections per host allows), the widget by single link, the
 * widget multipart with its defaults, with `parallel-uploads="1"`, `"6"` (the default before it adapted) and `"12"`
 * (its adaptive ceiling from the start), @uppy/aws-s3 5.x (this package's own, bench/uppy5-page.ts) with its defaults
 * (six requests at once, 5 MiB parts) to the service, on the same links as the widget, Uppy 6 (@uppy/core and
 * @uppy/aws-s3 6.x, as published) multipart to s3rver, and UpChunk (@mux/upchunk, as published) to a resumable
 * Content-Range endpoint. MB/s, the share of the link, and each row's ratio to the widget's default; `bench/link.svg`
 * draws the MB/s (a run over some links only draws into the temporary folder).
 *
 * The service in the server's namespace hands out storage links on two hosts (`--storage-hosts 2`: two ports of
 * 198.18.0.2, each a pool of its own in Chromium), warmed up first (`warmService`); each contender starts once the
 * service is idle, its last videos processed. On the first two links, the widget's default, its fixed six and twelve, and the two rows of where the
 * limits are run again in S3 mode ("… (S3 store)"), once the others are done, on a store warmed up the same way: Ceph's
 * radosgw in the server's namespace (test/helpers/engines/ceph.ts, 21–28 s to start here), the service on it by its
 * address, the browser's links on `store.bench` (path style) and `bench.store.bench` (virtual-hosted), names Chromium
 * is told are 198.18.0.2.
 *
 * The link is checked first: for each rate and round trip, a plain TCP transfer on it without loss reaches 90 %
 * of the rate and the round trip is within 10 %; every lossy link's round trip is checked too, and the loss the
 * forwarder applied is printed. Only root can make namespaces: as another user, it says so and skips.
 *
 *   BENCH_QUICK=1          64 MiB instead of 256 MiB
 *   BENCH_LINKS=0,2        only these links (indexes of LINKS)
 *   BENCH_LINK_DEADLINE=s  a contender still uploading after s seconds (default 1800) is stopped and reported
 *   BENCH_CONTENDERS=text  only the contenders whose label contains text (or one of texts, `a|b`)
 *   BENCH_STORE=disk|s3    only the rows on the service's own storage, or only the S3 rows (default: both)
 *   BENCH_TIMELINE=1       each run's requests (Resource Timing) on standard error
 *
 * `node --import tsx bench/link.bench.ts chart <log>...` draws bench/link.svg from the output of runs over some
 * links each.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCeph } from '../test/helpers/engines/ceph.js';
import { startService } from '../test/helpers/service.js';
import { tempDir } from '../test/helpers/temp.js';
import { barChart } from './link/chart.js';
import type { ClientConfig, Contender } from './link/client.js';
import {
  cannotEmulate,
  checkLink,
  describeLink,
  firstLine,
  lossOf,
  openLink,
  raceInBrowser,
  TSX,
  type Link,
  type LinkSpec,
} from './link/emulator.js';
import { table } from './stats.js';
import { buildPages, sourceFile } from './widget.bench.js';
import { MiB } from '../src/api/limits.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEERS = join(ROOT, 'bench/peers');
const SIZE = (process.env.BENCH_QUICK === '1' ? 64 : 256) * MiB;
const DEADLINE_SECONDS = Number(process.env.BENCH_LINK_DEADLINE ?? 1800);

export const LINKS: LinkSpec[] = [
  { mbit: 100, rttMs: 40, lossPct: 0 },
  { mbit: 100, rttMs: 40, lossPct: 0.1 },
  { mbit: 100, rttMs: 40, lossPct: 1 },
  { mbit: 20, rttMs: 150, lossPct: 0.5 },
];

/** The store the S3 rows run against: Ceph's radosgw in the server's namespace, under this name and its bucket's. */
const STORE_NAME = 'store.bench';
const STORE_BUCKET = 'bench';
/** Which rows run: the service's own storage (`disk`), the S3 store (`s3`), or both (unset). */
const STORES = { disk: process.env.BENCH_STORE !== 's3', s3: process.env.BENCH_STORE !== 'disk' };
/** The S3 rows run on the first two links: the issue's targets in S3 mode are for those. */
const STORE_LINKS = 2;

const SIX_RAW = 'six raw fetch PUTs in parallel to one host';
const FIXED_SIX = 'widget, multipart, parallel-uploads="6"';
const FIXED_TWELVE = 'widget, multipart, parallel-uploads="12"';
type Package = { version: string };
/** The version the page is built from (the root node_modules: this package's own dependency). */
const UPPY5 = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@uppy/aws-s3/package.json'), 'utf8')) as Package)
  .version;
const UPPY5_LABEL = `@uppy/aws-s3 ${UPPY5} defaults (limit 6), links on the service's hosts`;
/** The rows run again against the S3 store: the widget's default, fixed six and twelve, and where the limits are. */
const ON_STORE = ['widget, multipart, its defaults', FIXED_SIX, FIXED_TWELVE, SIX_RAW, UPPY5_LABEL];
// No ": " in a label: `chart` reads a log's rows as `label: figure`.
const storeLabel = (label: string) => `${label} (S3 store)`;
const wanted = (label: string) =>
  !process.env.BENCH_CONTENDERS || process.env.BENCH_CONTENDERS.split('|').some((text) => label.includes(text));

/**
 * The contenders, the widget's default first: every ratio is to it. Each starts with the service idle: the
 * processing of the last one's videos would share the cores with it.
 */
function contenders(service: { api: string; token: string }, peers: { s3: string; upchunk: string }): Contender[] {
  const idle = `${service.api}/__test__/jobs/idle`;
  const widget = (label: string, mode: string, attributes: Record<string, string> = {}): Contender => ({
    label,
    page: 'bench/page.html',
    call: 'bench',
    args: [mode, service.api, service.token, 0, attributes],
    idle,
  });
  return [
    widget('widget, multipart, its defaults', 'multipart'),
    widget('widget, multipart, parallel-uploads="1"', 'multipart', { 'parallel-uploads': '1' }),
    // What the adaptive default could reach at most: its ceiling from the first chunk on, six to each host.
    widget(FIXED_TWELVE, 'multipart', { 'parallel-uploads': '12' }),
    // The default before it adapted (issue 32): six at once from first to last.
    widget(FIXED_SIX, 'multipart', { 'parallel-uploads': '6' }),
    widget('widget, single link', 'single'),
    widget('raw fetch PUT, one stream', 'raw'),
    widget(SIX_RAW, 'raw6'),
    { label: UPPY5_LABEL, page: 'bench/uppy5-page.html', call: 'uppy5', args: [service.api, service.token], idle },
    {
      label: 'Uppy 6 (@uppy/aws-s3 6.3.1) to s3rver',
      page: 'bench/peers/page.html',
      call: 'peer',
      args: ['uppy6', peers.s3],
    },
    {
      label: 'UpChunk 3.5.0 to Content-Range',
      page: 'bench/peers/page.html',
      call: 'peer',
      args: ['upchunk', peers.upchunk],
    },
  ];
}

/** The same uploads to the service on the S3 store: the rows of ON_STORE. */
function storeContenders(service: { api: string; token: string }): Contender[] {
  return contenders(service, { s3: '', upchunk: '' })
    .filter((c) => ON_STORE.includes(c.label))
    .map((c) => ({ ...c, label: storeLabel(c.label) }));
}

/** The peers as published, in bench/peers/node_modules (installed from its own lock file). */
async function installPeers(): Promise<void> {
  if (existsSync(join(PEERS, 'node_modules/@uppy/aws-s3'))) return;
  await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS });
}

interface Result {
  label: string;
  ms?: number;
  error?: string;
  /** Its requests to the storage at once: the most, and as its last one started (bench/link/client.ts). */
  connections?: { most: number; atLast: number };
}

/**
 * Every contender over one link, one after another: those on the service's own storage, then (`store`) those on the
 * S3 store, started for them once the others are done.
 */
async function race(
  spec: LinkSpec,
  pages: string,
  file: string,
  store: boolean,
): Promise<{ results: Result[]; notes: string[] }> {
  const link = await openLink(spec);
  const dir = await tempDir('link-bench-'); // removed after the link, or at exit if a run is stopped
  const notes: string[] = [];
  try {
    const check = await checkLink(link);
    notes.push(`round trip ${check.rttMs.toFixed(1)} ms, the sender's congestion control ${check.congestion}`);
    if (check.problems.length) throw new Error(`the link is not what it should be: ${check.problems.join('; ')}`);
    const results: Result[] = [];
    if (STORES.disk) results.push(...(await onDisk(link, dir, pages, file, notes)));
    if (store && ON_STORE.some((label) => wanted(storeLabel(label))))
      results.push(...(await onStore(link, dir, pages, file, notes)));
    return { results, notes };
  } finally {
    const counts = await link.close();
    notes.push(`loss applied ${lossOf(counts.up).toFixed(3)} % up, ${lossOf(counts.down).toFixed(3)} % down`);
    await rm(dir, { recursive: true, force: true });
  }
}

/** The service in the server's namespace on its own storage, with the peers' servers beside it. */
async function onDisk(link: Link, dir: string, pages: string, file: string, notes: string[]): Promise<Result[]> {
  const service = await startService({
    data: join(dir, 'service'),
    netns: link.namespaces.server,
    host: link.serverAddress,
    // Links on two hosts of the storage: two ports of 198.18.0.2 (Chromium pools six connections per host and port).
    args: ['--storage-hosts', '2'],
  });
  try {
    notes.push(`the storage on ${service.storageOrigins.join(' and ')}`);
    const token = await service.token('bench');
    const [node, ...tsx] = TSX;
    const servers = link.server(node, [...tsx, join(PEERS, 'servers.ts'), link.serverAddress, join(dir, 'peers')], {
      cwd: PEERS,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const peers = JSON.parse(await firstLine(servers, 'the peers’ servers')) as { s3: string; upchunk: string };
      const chosen = contenders({ api: service.api, token }, peers).filter((c) => wanted(c.label));
      await warmService(link, service.api, token);
      return await runContenders(link, { dist: pages, api: service.api, file, contenders: chosen });
    } finally {
      servers.kill();
    }
  } finally {
    await service.stop();
  }
}

/**
 * Ceph's radosgw in the server's namespace on 198.18.0.2, and the service in S3 mode on it: its own calls to the
 * store's address, the browser's links on the store's names (path style and virtual-hosted), which Chromium is told
 * resolve to that address (`--host-resolver-rules`: no DNS here knows them).
 */
async function onStore(link: Link, dir: string, pages: string, file: string, notes: string[]): Promise<Result[]> {
  const started = Date.now();
  const store = await startCeph({ netns: link.namespaces.server, address: link.serverAddress, dnsName: STORE_NAME });
  try {
    const port = new URL(store.endpoint).port;
    const hosts = [`http://${STORE_NAME}:${port}`, `http://{bucket}.${STORE_NAME}:${port}`];
    const service = await startService({
      data: join(dir, 'store-service'),
      netns: link.namespaces.server,
      host: link.serverAddress,
      args: [
        ...['--storage', `s3://${STORE_BUCKET}`, '--s3-endpoint', store.endpoint, '--s3-path-style'],
        ...['--storage-hosts', hosts.join(',')],
      ],
      env: { AWS_ACCESS_KEY_ID: store.accessKeyId, AWS_SECRET_ACCESS_KEY: store.secretAccessKey },
    });
    try {
      notes.push(
        `the S3 store (Ceph ${store.endpoint}, started in ${((Date.now() - started) / 1000).toFixed(0)} s), links on ${hosts.join(' and ')}`,
      );
      const token = await service.token('bench');
      await warmService(link, service.api, token);
      const chosen = storeContenders({ api: service.api, token });
      return await runContenders(link, {
        dist: pages,
        api: service.api,
        file,
        contenders: chosen.filter((c) => wanted(c.label)),
        hostRules: `MAP *.${STORE_NAME} ${link.serverAddress}, MAP ${STORE_NAME} ${link.serverAddress}`,
      });
    } finally {
      await service.stop();
    }
  } finally {
    await store.stop();
  }
}

/**
 * One multipart session begun (#1, #3), a chunk of it sent (#4, #5) and the session aborted (#7), from the server's
 * namespace, before any contender: the first contender no longer pays for what a service in use has long done. A
 * service's first #1 took 44 ms against 7 after it, its first #3 28 against 9 (the database's first writes, on this
 * machine); and radosgw makes the pool that holds multipart uploads' metadata at the first one it is asked for, which
 * took 1.2 s of the first contender's #3 (the next took 0.13 s).
 */
async function warmService(link: Link, api: string, token: string): Promise<void> {
  const script = `
    const [api, token, address] = process.argv.slice(1);
    const call = async (path, body) => {
      const res = await fetch(api + path, {
        method: 'POST',
        headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      if (!res.ok) throw new Error(path + ': ' + res.status + ' ' + (await res.text()));
      return res.json();
    };
    const video = await call('/videos');
    const { key } = await call('/videos/' + video._id + '/multipart-upload/begin');
    const { url } = await call('/videos/' + video._id + '/multipart-upload/get-chunk-upload-url', { key, chunkId: 1 });
    // The link may name the store's host (store.bench), which only the browser is told is the server's address.
    const { request } = await import('node:http');
    const lookup = (_host, options, done) =>
      options.all ? done(null, [{ address, family: 4 }]) : done(null, address, 4);
    const body = new Uint8Array(1 << 20);
    const status = await new Promise((resolve, reject) => {
      const headers = { 'content-type': 'video/mp4', 'content-length': body.length };
      const answered = (res) => res.resume().on('end', () => resolve(res.statusCode));
      request(url, { method: 'PUT', headers, lookup }, answered).on('error', reject).end(body);
    });
    if (status !== 200) throw new Error('chunk PUT: ' + status);
    await call('/videos/multipart-upload/abort', { key });`;
  const child = link.server(process.execPath, ['--input-type=module', '-e', script, api, token, link.serverAddress], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('exit', resolve);
    child.once('error', reject);
  });
  if (code !== 0) throw new Error(`warming the service up failed (exit ${code})`);
}

/** Runs the contenders in the browser at the link's far end, printing each one's speed as it comes. */
async function runContenders(link: Link, config: Omit<ClientConfig, 'deadlineSeconds'>): Promise<Result[]> {
  const results: Result[] = [];
  type Line = { label: string; result?: number; error?: string; connections?: Result['connections'] };
  for await (const { label, result: ms, error, connections } of raceInBrowser<Line>(link, {
    ...config,
    deadlineSeconds: DEADLINE_SECONDS,
  })) {
    const result: Result = { label, ms, error, connections };
    results.push(result);
    console.log(`  ${result.label}: ${result.ms ? `${mbps(result.ms).toFixed(2)} MB/s` : result.error}`);
  }
  return results;
}

const mbps = (ms: number) => SIZE / 1e6 / (ms / 1000);

export async function main(): Promise<void> {
  const skip = cannotEmulate();
  if (skip) {
    console.log(`\nUploads over emulated links: skipped (${skip}).`);
    return;
  }
  const only = process.env.BENCH_LINKS?.split(',').map(Number);
  const links = LINKS.filter((_, i) => !only || only.includes(i));
  await installPeers();
  const [pages, file] = await Promise.all([
    buildPages(['bench/page.html', 'bench/uppy5-page.html', 'bench/peers/page.html']),
    sourceFile(SIZE),
  ]);
  console.log(`\nUploads of ${SIZE / MiB} MiB from headless Chromium over emulated links (CUBIC sender)`);

  // The link is checked first: each rate and round trip without loss.
  const lossless = [...new Map(links.map((s) => [`${s.mbit}/${s.rttMs}`, { ...s, lossPct: 0 }])).values()];
  for (const spec of lossless) {
    const link = await openLink(spec);
    const check = await checkLink(link).finally(() => link.close());
    console.log(
      `link check, ${describeLink(spec)}: TCP ${check.mbit!.toFixed(1)} Mbit/s (${((100 * check.mbit!) / spec.mbit).toFixed(1)} %), round trip ${check.rttMs.toFixed(1)} ms, ${check.congestion}` +
        (check.problems.length ? ` — FAILED: ${check.problems.join('; ')}` : ''),
    );
    if (check.problems.length) throw new Error('the link emulator does not give the link asked for');
  }

  const figures: { link: string; rows: { label: string; mbps?: number }[] }[] = [];
  for (const spec of links) {
    console.log(`\n${describeLink(spec)} loss:`);
    const { results, notes } = await race(spec, pages, file, STORES.s3 && LINKS.indexOf(spec) < STORE_LINKS);
    const base = results[0]?.ms;
    const rows = results.map((r) => [
      r.label,
      r.ms ? `${mbps(r.ms).toFixed(2)} MB/s` : (r.error ?? ''),
      r.ms ? `${((100 * mbps(r.ms) * 8) / spec.mbit).toFixed(0)} %` : '',
      r.ms && base ? (base / r.ms).toFixed(2) : '',
      r.connections ? `${r.connections.most}, ${r.connections.atLast}` : '',
    ]);
    const head = ['upload', 'speed', 'of the link', 'ratio to the widget’s default', 'at once: most, at the last'];
    console.log(table([head, ...rows]));
    console.log(`  (${notes.join('; ')})`);
    figures.push({
      link: describeLink(spec),
      rows: results.map((r) => ({ label: r.label, mbps: r.ms && mbps(r.ms) })),
    });
  }
  // docs/benchmarks.md's chart is the run over every link; a run over some of them draws beside the temporary files.
  const svg = links.length === LINKS.length ? join(ROOT, 'bench/link.svg') : join(tmpdir(), 'link-bench.svg');
  await writeFile(svg, barChart(`Upload of ${SIZE / MiB} MiB from Chromium, MB/s`, figures));
  console.log(`\nchart: ${svg}`);
}

/**
 * `chart <log>...`: bench/link.svg from what runs over some of the links printed (a run over all four takes about
 * four hours at 256 MiB, so it can be run as several). Every log must be of the same file size; every link once.
 */
async function chart(logs: string[]): Promise<void> {
  const found = new Map<string, { label: string; mbps?: number }[]>();
  let size = '';
  for (const log of logs) {
    let link: string | undefined;
    for (const line of (await readFile(log, 'utf8')).split('\n')) {
      const head = /^Uploads of (\d+) MiB/.exec(line)?.[1];
      if (head && size && head !== size) throw new Error(`${log} uploaded ${head} MiB, another log ${size} MiB`);
      size ||= head ?? '';
      const row = /^ {2}(.+?): (?:([\d.]+) MB\/s|.+)$/.exec(line);
      if (link && row) found.get(link)!.push({ label: row[1]!, mbps: row[2] ? Number(row[2]) : undefined });
      else link = /^(.+) loss:$/.exec(line)?.[1];
      if (link && !found.has(link)) found.set(link, []);
    }
  }
  const missing = LINKS.map(describeLink).filter((l) => !found.get(l)?.length);
  if (missing.length) throw new Error(`no figures for ${missing.join('; ')}`);
  const figures = LINKS.map(describeLink).map((link) => ({ link, rows: found.get(link)! }));
  await writeFile(join(ROOT, 'bench/link.svg'), barChart(`Upload of ${size} MiB from Chromium, MB/s`, figures));
  console.log(`chart: ${join(ROOT, 'bench/link.svg')}, from ${logs.join(', ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === 'chart') await chart(process.argv.slice(3));
  else await main();
}
