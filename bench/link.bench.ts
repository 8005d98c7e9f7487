/**
 * Upload speed over emulated links (bench/link/emulator.ts), headless Chromium at one end and the servers at the
 * other, side by side with the published peers. Prints figures; asserts nothing.
 *
 * The same file (256 MiB; 64 MiB with BENCH_QUICK=1) over each link, every contender in the same run on the same
 * link: a raw single `fetch` PUT (what one TCP stream gets), the widget by single link, the widget multipart with
 * its defaults and with `parallel-uploads="1"`, Uppy 6 (@uppy/core and @uppy/aws-s3 6.x, as published) multipart to
 * s3rver, and UpChunk (@mux/upchunk, as published) to a resumable Content-Range endpoint. MB/s, the share of the
 * link, and each row's ratio to the widget's default; `bench/link.svg` draws the MB/s
 * (a run over some links only draws into the temporary folder).
 *
 * The link is checked first: for each rate and round trip, a plain TCP transfer on it without loss reaches 90 %
 * of the rate and the round trip is within 10 %; every lossy link's round trip is checked too, and the loss the
 * forwarder applied is printed. Only root can make namespaces: as another user, it says so and skips.
 *
 *   BENCH_QUICK=1          64 MiB instead of 256 MiB
 *   BENCH_LINKS=0,2        only these links (indexes of LINKS)
 *   BENCH_LINK_DEADLINE=s  a contender still uploading after s seconds (default 1800) is stopped and reported
 *   BENCH_CONTENDERS=text  only the contenders whose label contains text
 *   BENCH_TIMELINE=1       each run's requests (Resource Timing) on standard error
 *
 * `node --import tsx bench/link.bench.ts chart <log>...` draws bench/link.svg from the output of runs over some
 * links each.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

/** The contenders, the widget's default first: every ratio is to it. */
function contenders(service: { api: string; token: string }, peers: { s3: string; upchunk: string }): Contender[] {
  const widget = (label: string, mode: string, attributes: Record<string, string> = {}): Contender => ({
    label,
    page: 'bench/page.html',
    call: 'bench',
    args: [mode, service.api, service.token, 0, attributes],
  });
  const only = process.env.BENCH_CONTENDERS;
  const all: Contender[] = [
    widget('widget, multipart, its defaults', 'multipart'),
    widget('widget, multipart, parallel-uploads="1"', 'multipart', { 'parallel-uploads': '1' }),
    widget('widget, single link', 'single'),
    widget('raw fetch PUT, one stream', 'raw'),
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
  return all.filter((c) => !only || c.label.includes(only));
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
}

/** Every contender over one link, one after another. */
async function race(spec: LinkSpec, pages: string, file: string): Promise<{ results: Result[]; notes: string[] }> {
  const link = await openLink(spec);
  const dir = await tempDir('link-bench-'); // removed after the link, or at exit if a run is stopped
  const notes: string[] = [];
  try {
    const check = await checkLink(link);
    notes.push(`round trip ${check.rttMs.toFixed(1)} ms, the sender's congestion control ${check.congestion}`);
    if (check.problems.length) throw new Error(`the link is not what it should be: ${check.problems.join('; ')}`);
    const service = await startService({
      data: join(dir, 'service'),
      netns: link.namespaces.server,
      host: link.serverAddress,
    });
    try {
      const token = await service.token('bench');
      const [node, ...tsx] = TSX;
      const servers = link.server(node, [...tsx, join(PEERS, 'servers.ts'), link.serverAddress, join(dir, 'peers')], {
        cwd: PEERS,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const peers = JSON.parse(await firstLine(servers, 'the peers’ servers')) as { s3: string; upchunk: string };
      const config: ClientConfig = {
        dist: pages,
        api: service.api,
        file,
        contenders: contenders({ api: service.api, token }, peers),
        deadlineSeconds: DEADLINE_SECONDS,
      };
      const results: Result[] = [];
      type Line = { label: string; result?: number; error?: string };
      for await (const { label, result: ms, error } of raceInBrowser<Line>(link, config)) {
        const result: Result = { label, ms, error };
        results.push(result);
        console.log(`  ${result.label}: ${result.ms ? `${mbps(result.ms).toFixed(2)} MB/s` : result.error}`);
      }
      servers.kill();
      return { results, notes };
    } finally {
      await service.stop();
    }
  } finally {
    const counts = await link.close();
    notes.push(`loss applied ${lossOf(counts.up).toFixed(3)} % up, ${lossOf(counts.down).toFixed(3)} % down`);
    await rm(dir, { recursive: true, force: true });
  }
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
  const [pages, file] = await Promise.all([buildPages(['bench/page.html', 'bench/peers/page.html']), sourceFile(SIZE)]);
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
    const { results, notes } = await race(spec, pages, file);
    const base = results[0]?.ms;
    const rows = results.map((r) => [
      r.label,
      r.ms ? `${mbps(r.ms).toFixed(2)} MB/s` : (r.error ?? ''),
      r.ms ? `${((100 * mbps(r.ms) * 8) / spec.mbit).toFixed(0)} %` : '',
      r.ms && base ? (base / r.ms).toFixed(2) : '',
    ]);
    console.log(table([['upload', 'speed', 'of the link', 'ratio to the widget’s default'], ...rows]));
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
