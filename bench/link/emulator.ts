/**
 * A link emulator for benchmarks: the browser's end and the server's end in network namespaces of their own,
 * joined by a TUN device in each, and `forward.c` carrying packets between the two devices in user space with a
 * rate, a one-way delay, random loss and a drop-tail queue in each direction. This kernel has no `netem`; TUN
 * devices and `ip netns` work, as root.
 *
 * Addresses are 198.18.0.1 (client) and 198.18.0.2 (server), from 198.18.0.0/15, the range set aside for
 * benchmarking network devices (RFC 2544): nothing else is there, and no packet leaves the two namespaces.
 *
 * The sender's congestion control is set per socket by `cubic.c` (LD_PRELOAD), as most clients' is; the
 * machine's default (BBR here, which hides loss) is never changed.
 *
 * Clean-up, whatever happens: the forwarder exits when its standard input closes (this process ended) and its
 * devices vanish with it; a detached watchdog kills what runs in the namespaces and deletes them once this
 * process is gone, even after a SIGKILL; `close()` does the same at once.
 */
import { execFile, execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ClientConfig } from './client.js';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Node with TypeScript, for a script run inside a namespace. */
export const TSX = [process.execPath, '--import', 'tsx'] as const;

export interface LinkSpec {
  /** Bit/s each way. */
  mbit: number;
  /** Round trip, ms: half of it is each direction's delay. */
  rttMs: number;
  /** Random loss each way, percent. */
  lossPct: number;
}

export const describeLink = (s: LinkSpec) => `${s.mbit} Mbit/s, ${s.rttMs} ms, ${s.lossPct} %`;
/** A drop-tail queue of about one bandwidth-delay product. */
export const queueBytes = (s: LinkSpec) => Math.round((s.mbit * 1e6 * s.rttMs) / 1000 / 8);

/** Why the link cannot be emulated here, or undefined when it can. */
export function cannotEmulate(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces can only be created by root; this run is not root';
  if (!existsSync('/dev/net/tun')) return '/dev/net/tun is missing';
  return undefined;
}

/**
 * forward.c and cubic.c, compiled (cc is on every machine of this project's kind) into node_modules/.cache under a
 * hash of their sources: built once, and nothing is left in the temporary folder however a run ends.
 */
let built: Promise<{ forward: string; cubic: string }> | undefined;
function buildTools(): Promise<{ forward: string; cubic: string }> {
  built ??= (async () => {
    const hash = createHash('sha256');
    for (const source of ['forward.c', 'cubic.c']) hash.update(await readFile(join(HERE, source)));
    const dir = join(ROOT, 'node_modules/.cache/link-emulator', hash.digest('hex').slice(0, 16));
    const forward = join(dir, 'forward');
    const cubic = join(dir, 'cubic.so');
    if (existsSync(forward) && existsSync(cubic)) return { forward, cubic };
    await mkdir(dir, { recursive: true });
    // Built under this process's own names, then renamed: a run building at the same time never sees half a file.
    const own = (path: string) => `${path}.${process.pid}`;
    await run('cc', ['-O2', '-Wall', '-o', own(forward), join(HERE, 'forward.c')]);
    await run('cc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', own(cubic), join(HERE, 'cubic.c'), '-ldl']);
    await Promise.all([rename(own(forward), forward), rename(own(cubic), cubic)]);
    return { forward, cubic };
  })();
  return built;
}

export interface Link {
  spec: LinkSpec;
  clientAddress: string;
  serverAddress: string;
  /** The namespaces' names, for `ip netns exec`. */
  namespaces: { client: string; server: string };
  /** Spawns a command in the client's namespace; its TCP connections use CUBIC. */
  client(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** Spawns a command in the server's namespace. */
  server(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** Environment that makes a process's TCP sockets CUBIC (for a browser launched in the client's namespace). */
  cubicEnv: Record<string, string>;
  /** Ends the link; resolves with what the forwarder counted. */
  close(): Promise<LinkCounts>;
}

/** Packets each way: delivered, lost at random, dropped by a full queue. */
export interface LinkCounts {
  up: DirectionCounts;
  down: DirectionCounts;
}
interface DirectionCounts {
  packets: number;
  bytes: number;
  lost: number;
  dropped: number;
  overflow: number;
}

/** The share of packets the link lost at random, percent. */
export const lossOf = (d: DirectionCounts) => (100 * d.lost) / Math.max(1, d.packets + d.lost + d.dropped);

let serial = 0;

/** Makes the two namespaces and the link between them. */
export async function openLink(spec: LinkSpec): Promise<Link> {
  const tools = await buildTools();
  const id = `${process.pid}x${++serial}`;
  const ns = { client: `vu-link-${id}-client`, server: `vu-link-${id}-server` };
  const dev = { client: `vulc${id}`.slice(0, 15), server: `vuls${id}`.slice(0, 15) };
  const clientAddress = '198.18.0.1';
  const serverAddress = '198.18.0.2';
  const children = new Set<ChildProcess>();
  const cleanup = () => {
    for (const child of children) child.kill('SIGKILL');
    for (const name of Object.values(ns)) {
      try {
        const pids = execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).split('\n').filter(Boolean);
        for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
        execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      } catch {
        /* already gone */
      }
    }
  };
  // The watchdog outlives this process: it cleans up after a crash or a SIGKILL too.
  const watchdog = spawn(
    'bash',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done
       for ns in ${ns.client} ${ns.server}; do ip netns pids "$ns" 2>/dev/null | xargs -r kill -9; ip netns del "$ns" 2>/dev/null; done`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  process.once('exit', cleanup);

  let forward: ChildProcess | undefined;
  let counts = '';
  try {
    await run('ip', ['netns', 'add', ns.client]);
    await run('ip', ['netns', 'add', ns.server]);
    forward = spawn(
      tools.forward,
      [
        dev.client,
        dev.server,
        String(spec.mbit * 1e6),
        String((spec.rttMs / 2) * 1000),
        String(Math.round(spec.lossPct * 1e4)),
        String(queueBytes(spec)),
        String(Date.now()),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    children.add(forward);
    const lines = createInterface({ input: forward.stdout! });
    lines.on('line', (line) => (counts = line));
    await new Promise<void>((resolve, reject) => {
      lines.once('line', (line) => (line === 'ready' ? resolve() : reject(new Error(`forward: ${line}`))));
      forward!.once('exit', (code) => reject(new Error(`the link's forwarder exited with ${code}`)));
    });
    for (const [end, local, peer] of [
      ['client', clientAddress, serverAddress],
      ['server', serverAddress, clientAddress],
    ] as const) {
      await run('ip', ['link', 'set', dev[end], 'netns', ns[end]]);
      await run('ip', ['-n', ns[end], 'addr', 'add', local, 'peer', peer, 'dev', dev[end]]);
      await run('ip', ['-n', ns[end], 'link', 'set', dev[end], 'up']);
      await run('ip', ['-n', ns[end], 'link', 'set', 'lo', 'up']);
    }
  } catch (err) {
    cleanup();
    throw err;
  }
  const cubicEnv = { LD_PRELOAD: tools.cubic, LINK_CONGESTION: 'cubic' };
  const inNamespace =
    (name: string, env: Record<string, string> = {}) =>
    (command: string, args: string[], options: SpawnOptions = {}) => {
      const child = spawn('ip', ['netns', 'exec', name, command, ...args], {
        ...options,
        env: { ...process.env, ...options.env, ...env },
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    };
  return {
    spec,
    clientAddress,
    serverAddress,
    namespaces: ns,
    client: inNamespace(ns.client, cubicEnv),
    server: inNamespace(ns.server),
    cubicEnv,
    async close() {
      process.removeListener('exit', cleanup);
      forward!.stdin!.end();
      await new Promise((resolve) => (forward!.exitCode === null ? forward!.once('close', resolve) : resolve(null)));
      cleanup();
      watchdog.kill();
      const { ab, ba } = JSON.parse(counts) as { ab: DirectionCounts; ba: DirectionCounts };
      return { up: ab, down: ba };
    },
  };
}

/**
 * The browser's end of a race: bench/link/client.ts in the client's namespace, running `config`'s contenders one
 * after another; each contender's line (`{label, result | error, memory?}`) as it comes.
 */
export async function* raceInBrowser<Line>(link: Link, config: ClientConfig): AsyncGenerator<Line> {
  const [node, ...tsx] = TSX;
  const client = link.client(node, [...tsx, join(HERE, 'client.ts'), JSON.stringify(config)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: client.stdout! })) yield JSON.parse(line) as Line;
}

/** The first line a process in a namespace prints (a port, a JSON answer); rejects if it exits first. */
export function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/**
 * What the self-check measured: the median round trip of one-byte echoes and, on a lossless link, a plain TCP
 * transfer's rate past slow start (with loss, the loss decides the rate: see `LinkCounts` for the loss itself).
 */
export interface LinkCheck {
  mbit?: number;
  rttMs: number;
  congestion: string;
  /** Empty when the link is what it claims: ≥ 90 % of the rate (at 0 % loss), round trip within 10 %. */
  problems: string[];
}

/**
 * A plain TCP transfer from the client's namespace to a sink in the server's (the client's socket CUBIC, as
 * the browser's), then 20 one-byte echoes on the same connection.
 */
export async function checkLink(link: Link, seconds = 8): Promise<LinkCheck> {
  const bytes = link.spec.lossPct === 0 ? Math.round((link.spec.mbit * 1e6 * seconds) / 8) : 0;
  const [node, ...tsx] = TSX;
  const sink = link.server(node, [...tsx, join(HERE, 'tcp-check.ts'), 'sink', link.serverAddress], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = (await firstLine(sink, "the link check's sink")).trim();
  const sender = link.client(
    node,
    [...tsx, join(HERE, 'tcp-check.ts'), 'send', link.serverAddress, port, String(bytes)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await firstLine(sender, "the link check's sender");
  sink.kill();
  const measured = JSON.parse(line) as { mbit: number; rttMs: number; congestion: string };
  if (!bytes) delete (measured as Partial<typeof measured>).mbit;
  const problems: string[] = [];
  if (bytes && measured.mbit < 0.9 * link.spec.mbit)
    problems.push(`TCP reached ${measured.mbit.toFixed(1)} Mbit/s, under 90 % of ${link.spec.mbit}`);
  if (Math.abs(measured.rttMs - link.spec.rttMs) > 0.1 * link.spec.rttMs)
    problems.push(`the round trip was ${measured.rttMs.toFixed(1)} ms, not within 10 % of ${link.spec.rttMs}`);
  if (measured.congestion !== 'cubic') problems.push(`the sender's congestion control was ${measured.congestion}`);
  return { ...measured, problems };
}
