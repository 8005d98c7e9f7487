/**
 * A real S3 store for the scale suite: Ceph's RADOS Gateway on a one-monitor, one-OSD cluster (Debian's
 * `ceph-mon`, `ceph-osd`, `radosgw`, `ceph-common`; `scripts/system-deps.sh --engines`), in a folder of its own.
 * Pacific's radosgw cannot run without RADOS, so the cluster is as small as Ceph allows: no manager, no cephx,
 * the OSD's BlueStore on a sparse file. The facts behind each setting were measured here:
 * /work/shared/notes/ceph-rgw.md.
 *
 * Each daemon runs in the foreground as a child of its own process group (a Ctrl-C in the terminal reaches the
 * caller, which stops them in order), its stdio in a log file and no other descriptor inherited (Node opens
 * every descriptor close-on-exec). Their PIDs are written into the folder: a run that was killed before it could
 * stop them leaves a stale cluster, which the next start stops and removes (see `removeStaleClusters`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Every engine folder of the scale suite lives here, so the next start can find what a killed run left. */
export const ENGINES_ROOT = join(tmpdir(), 'video-uploader-engines');

/** From an empty folder to S3 answering takes about 15 s here (2 busy cores); a busier machine gets 8 times that. */
const START_TIMEOUT_MS = 120_000;
/** A daemon that does not end within this after SIGTERM is SIGKILLed (each takes about 2 s here). */
const STOP_TIMEOUT_MS = 20_000;
/** The OSD's block file: sparse, so only what is stored takes disk. */
const BLOCK_BYTES = 32 * 1024 ** 3;

/** One request radosgw answered, from its access log. */
export interface StoreRequest {
  method: string;
  /** The path and query as the client sent them (percent-encoded), e.g. `/bucket/key?partNumber=1&uploadId=…`. */
  path: string;
  status: number;
  /** The S3 user that signed it, or `anonymous` (a preflight, an unsigned request). */
  user: string;
}

export interface CephStore {
  /** `http://127.0.0.1:PORT`: use it path-style (`forcePathStyle: true`). */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The cluster's folder: configuration, data, logs (`log/`). */
  dir: string;
  /** Every request radosgw has answered and logged so far, oldest first. */
  requests(): Promise<StoreRequest[]>;
  /**
   * Resolves with the requests logged once `match` holds for them. radosgw writes its log from a thread of its
   * own, a moment after it answered: a test waits for what it expects rather than reading at once.
   */
  waitForRequests(match: (requests: StoreRequest[]) => boolean, timeoutMs?: number): Promise<StoreRequest[]>;
  /** Stops radosgw, the OSD and the monitor, in that order, and removes the folder. */
  stop(): Promise<void>;
}

/** Daemons in the order they start; they stop in the reverse order. */
const DAEMONS = ['mon', 'osd', 'rgw'] as const;
type Daemon = (typeof DAEMONS)[number];

export async function startCeph(): Promise<CephStore> {
  await removeStaleClusters();
  await mkdir(ENGINES_ROOT, { recursive: true });
  const dir = await mkdtemp(join(ENGINES_ROOT, 'ceph-'));
  await writeFile(join(dir, 'owner'), await processIdentity(process.pid));
  const children = new Map<Daemon, ChildProcess>();
  const stop = () => stopCluster(dir, children);
  try {
    const started = Date.now();
    const deadline = started + START_TIMEOUT_MS;
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const fsid = randomUUID();
    const conf = join(dir, 'ceph.conf');
    await Promise.all(['log', 'run', 'mon', 'osd', 'rgw', 'pids'].map((sub) => mkdir(join(dir, sub))));
    await writeFile(conf, config({ dir, fsid, monPort, rgwPort }));
    const ceph = (...args: string[]) => run('ceph', ['-c', conf, '--connect-timeout', '30', ...args]);

    await run('monmaptool', [
      '--create',
      '--fsid',
      fsid,
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      join(dir, 'monmap'),
    ]);
    await run('ceph-mon', ['-c', conf, '-i', 'a', '--mkfs', '--monmap', join(dir, 'monmap')]);
    children.set('mon', await daemon(dir, 'mon', 'ceph-mon', ['-c', conf, '-i', 'a', '-f']));

    // `osd new` waits for the monitor to answer, and gives the new OSD its id (0, the only one).
    const osdUuid = randomUUID();
    await ceph('osd', 'new', osdUuid);
    await run('ceph-osd', ['-c', conf, '-i', '0', '--mkfs', '--osd-uuid', osdUuid]);
    children.set('osd', await daemon(dir, 'osd', 'ceph-osd', ['-c', conf, '-i', '0', '-f']));
    // radosgw creates its pools at its first start: their placement groups need the OSD up.
    await until(deadline, children, 'the OSD to be up', async () => {
      const { stdout } = await ceph('osd', 'dump', '--format', 'json');
      return JSON.parse(stdout).osds.some((osd: { osd: number; up: number }) => osd.osd === 0 && osd.up === 1);
    });

    children.set('rgw', await daemon(dir, 'rgw', 'radosgw', ['-c', conf, '-n', 'client.rgw', '-f']));
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await until(deadline, children, 'radosgw to answer', async () => (await fetch(endpoint)).ok);

    const accessKeyId = `SCALE${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    await run('radosgw-admin', [
      '-c',
      conf,
      'user',
      'create',
      '--uid',
      'scale',
      '--display-name',
      'scale suite',
      '--access-key',
      accessKeyId,
      '--secret',
      secretAccessKey,
    ]);

    const requests = () => readRequests(join(dir, 'log', 'client.rgw.log'));
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      dir,
      requests,
      async waitForRequests(match, timeoutMs = 10_000) {
        const giveUpAt = Date.now() + timeoutMs;
        for (;;) {
          const seen = await requests();
          if (match(seen)) return seen;
          if (Date.now() > giveUpAt)
            throw new Error(
              `radosgw's log never showed the requests expected; it shows:\n${seen.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}`,
            );
          await sleep(100);
        }
      },
      stop,
    };
  } catch (error) {
    const logs = await logTails(dir);
    await stop();
    throw new Error(`the Ceph store did not start: ${(error as Error).message}\n${logs}`, { cause: error });
  }
}

/**
 * The whole configuration, one file for the four programs. Sections: `[mon.a]`, `[osd.0]`, `[client.rgw]`
 * (radosgw), `[client.admin]` (the `ceph` and `radosgw-admin` commands).
 */
function config({ dir, fsid, monPort, rgwPort }: { dir: string; fsid: string; monPort: number; rgwPort: number }) {
  return `[global]
fsid = ${fsid}
mon_host = v2:127.0.0.1:${monPort}
# No cephx between the daemons of one machine; without the crc modes radosgw loops on
# "get_initial_auth_request returned -13".
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc secure
ms_client_mode = crc secure
# One OSD holds every copy.
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
osd_crush_chooseleaf_type = 0
# radosgw makes about eight pools; few placement groups each start faster and stay under the per-OSD limit.
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
# The monitor would stop below 5 % free disk; a developer's disk may be fuller than that.
mon_data_avail_crit = 1
mon_data_avail_warn = 2
run_dir = ${dir}/run
admin_socket = ${dir}/run/$name.asok
log_file = ${dir}/log/$name.log

[mon.a]
mon_data = ${dir}/mon

[osd.0]
osd_data = ${dir}/osd
osd_objectstore = bluestore
# Not named "block" inside osd_data: that name is BlueStore's own link to it.
bluestore_block_path = ${dir}/osd-block
bluestore_block_size = ${BLOCK_BYTES}
bluestore_block_create = true

[client.rgw]
rgw_frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw_data = ${dir}/rgw
# At level 1 beast writes one access line per request into the log ("beast: … "PUT /bucket/key?… HTTP/1.1" 200 …"):
# the store's own record of what reached it, which requests() reads.
debug_rgw = 1
`;
}

/** Starts one daemon in the foreground, its output in log/<name>.out, and records its PID. */
async function daemon(dir: string, name: Daemon, command: string, args: string[]): Promise<ChildProcess> {
  const out = openSync(join(dir, 'log', `${name}.out`), 'a');
  try {
    const child = spawn(command, args, { stdio: ['ignore', out, out], detached: true });
    await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
    await writeFile(join(dir, 'pids', `${name}.pid`), String(child.pid));
    return child;
  } finally {
    closeSync(out);
  }
}

/** Waits for `ready` to hold, failing at once if a daemon ended meanwhile. */
async function until(
  deadline: number,
  children: Map<Daemon, ChildProcess>,
  what: string,
  ready: () => Promise<boolean>,
) {
  for (;;) {
    for (const [name, child] of children) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) while waiting for ${what}`);
    }
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** Stops the daemons by the PIDs recorded in `dir`, rgw first, and removes the folder. */
async function stopCluster(dir: string, children = new Map<Daemon, ChildProcess>()) {
  for (const name of [...DAEMONS].reverse()) {
    const pid = Number(await readFile(join(dir, 'pids', `${name}.pid`), 'utf8').catch(() => ''));
    if (pid && (children.has(name) || (await runsIn(pid, dir)))) await stopProcess(pid);
  }
  await rm(dir, { recursive: true, force: true });
}

/** SIGTERM, then SIGKILL if the process is still there after STOP_TIMEOUT_MS. */
async function stopProcess(pid: number) {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (alive() && Date.now() < deadline) await sleep(50);
  if (alive()) process.kill(pid, 'SIGKILL');
  while (alive()) await sleep(50);
}

/**
 * Stops and removes each cluster under ENGINES_ROOT whose owner process is gone (a run killed with SIGKILL, or
 * a machine that lost power): its daemons would hold memory and ports forever. A cluster whose owner still runs
 * (another run on this machine) is left alone, as is one kept on purpose (a `keep` file: `SCALE_ENGINES=reuse`).
 */
export async function removeStaleClusters() {
  const entries = await readdir(ENGINES_ROOT).catch(() => [] as string[]);
  for (const entry of entries.filter((name) => name.startsWith('ceph-'))) {
    const dir = join(ENGINES_ROOT, entry);
    const owner = await readFile(join(dir, 'owner'), 'utf8').catch(() => null);
    const kept = await readFile(join(dir, 'keep'), 'utf8').then(
      () => true,
      () => false,
    );
    if (kept || (owner && owner === (await processIdentity(Number(owner.split(' ')[0]))))) continue;
    await stopCluster(dir);
  }
}

/** A process's PID and start time: a PID alone may have been given to another process since. */
async function processIdentity(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The fields after the command name, which is in parentheses and may contain anything; start time is field 22.
  const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return `${pid} ${startTime ?? 'gone'}`;
}

/** Whether `pid` is still one of this cluster's daemons (its command line names the cluster's folder). */
async function runsIn(pid: number, dir: string): Promise<boolean> {
  const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return commandLine.includes(dir);
}

/** beast's access lines: `… beast: 0x…: 127.0.0.1 - USER [DATE] "METHOD PATH HTTP/1.1" STATUS BYTES - "AGENT" …`. */
const ACCESS_LINE = / beast: \S+ \S+ - (\S+) \[[^\]]*\] "(\S+) (\S+) [^"]*" (\d{3}) /;

async function readRequests(log: string): Promise<StoreRequest[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => {
    const match = ACCESS_LINE.exec(line);
    return match ? [{ user: match[1], method: match[2], path: match[3], status: Number(match[4]) }] : [];
  });
}

/** The last lines of each daemon's log, for a start that failed. */
async function logTails(dir: string): Promise<string> {
  const logs = await readdir(join(dir, 'log')).catch(() => [] as string[]);
  const tails = await Promise.all(
    logs.map(async (name) => {
      const lines = (await readFile(join(dir, 'log', name), 'utf8').catch(() => '')).trimEnd().split('\n');
      return `--- ${name}\n${lines.slice(-15).join('\n')}`;
    }),
  );
  return tails.join('\n');
}

/**
 * A port free on 127.0.0.1 right now. The daemon binds it a moment later: another program could take it in between,
 * which makes the start fail with the daemon's log saying so, never a test talk to the wrong server.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
