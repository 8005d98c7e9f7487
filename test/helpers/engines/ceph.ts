/**
 * A real S3 store for the scale suite: Ceph's RADOS Gateway on a one-monitor, one-OSD cluster (Debian's
 * `ceph-mon`, `ceph-osd`, `radosgw`, `ceph-common`; `scripts/system-deps.sh --engines`), in a folder of its own.
 * Pacific's radosgw cannot run without RADOS, so the cluster is as small as Ceph allows: no manager, no cephx,
 * the OSD's BlueStore on a sparse file. The facts behind each setting were measured here:
 * /work/shared/notes/ceph-rgw.md.
 *
 * Each daemon runs in the foreground, stopped by its recorded PID; a run killed before it could stop them leaves a
 * stale cluster, which the next start stops and removes (./processes.ts).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ENGINES_ROOT,
  checkRunning,
  engineFolder,
  freePort,
  keep,
  logTails,
  sleep,
  spawnDaemon,
  stopDaemons,
} from './processes.js';

const run = promisify(execFile);

/** From an empty folder to S3 answering takes about 15 s here (2 busy cores); a busier machine gets 8 times that. */
const START_TIMEOUT_MS = 120_000;
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
  /**
   * `http://127.0.0.1:PORT`: use it path-style (`forcePathStyle: true`). `http://BUCKET.localhost:PORT` is the same
   * store virtual-hosted (a browser resolves *.localhost itself; Node needs a `lookup`).
   */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** radosgw's log, whose access lines `storeRequests` reads. */
  log: string;
  /** The cluster's folder: configuration, data, logs. */
  dir: string;
  /** Stops radosgw, the OSD and the monitor, in that order, and removes the folder. */
  stop(): Promise<void>;
}

/** The details of a store kept between runs (`SCALE_ENGINES=reuse`), written into its folder. */
type KeptStore = Omit<CephStore, 'stop'>;

/**
 * Starts a store; `keep` leaves it to later runs (see `keptCeph`): no later start takes it for stale.
 * `netns` starts the whole cluster inside that network namespace (bench/link's server end), radosgw on `address`
 * there rather than 127.0.0.1 (the `endpoint` names it) and, with `dnsName`, taking `BUCKET.dnsName` for a bucket
 * (virtual-hosted).
 */
export async function startCeph(
  options: { keep?: boolean; netns?: string; address?: string; dnsName?: string } = {},
): Promise<CephStore> {
  const dir = await engineFolder('ceph', stopCluster);
  const children = new Map<string, ChildProcess>();
  // Every command of the cluster runs in the namespace, when there is one: the daemons reach each other on its
  // own 127.0.0.1, and radosgw's address is there only.
  const inNetns = (command: string, args: string[]): [string, string[]] =>
    options.netns ? ['ip', ['netns', 'exec', options.netns, command, ...args]] : [command, args];
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const fsid = randomUUID();
    const conf = join(dir, 'ceph.conf');
    await Promise.all(['run', 'mon', 'osd', 'rgw'].map((sub) => mkdir(join(dir, sub))));
    await writeFile(conf, config({ dir, fsid, monPort, rgwPort }));
    const ceph = (...args: string[]) => run(...inNetns('ceph', ['-c', conf, '--connect-timeout', '30', ...args]));
    const until = async (what: string, ready: () => Promise<boolean>) => {
      while (!(await ready().catch(() => false))) {
        checkRunning(children);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(250);
      }
    };

    const monmap = join(dir, 'monmap');
    await run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, monmap]);
    await run(...inNetns('ceph-mon', ['-c', conf, '-i', 'a', '--mkfs', '--monmap', monmap]));
    children.set('mon', await spawnDaemon(dir, 'mon', ...inNetns('ceph-mon', ['-c', conf, '-i', 'a', '-f'])));

    // `osd new` waits for the monitor to answer, and gives the new OSD its id (0, the only one).
    const osdUuid = randomUUID();
    await ceph('osd', 'new', osdUuid);
    await run(...inNetns('ceph-osd', ['-c', conf, '-i', '0', '--mkfs', '--osd-uuid', osdUuid]));
    children.set('osd', await spawnDaemon(dir, 'osd', ...inNetns('ceph-osd', ['-c', conf, '-i', '0', '-f'])));
    // radosgw creates its pools at its first start: their placement groups need the OSD up.
    await until('the OSD to be up', async () => {
      const { stdout } = await ceph('osd', 'dump', '--format', 'json');
      return JSON.parse(stdout).osds.some((osd: { osd: number; up: number }) => osd.osd === 0 && osd.up === 1);
    });

    // An address and a name on the command line, where they override the configuration file's.
    const address = options.address ?? '127.0.0.1';
    const rgwFlags = [
      ...(options.address ? ['--rgw_frontends', `beast endpoint=${address}:${rgwPort}`] : []),
      ...(options.dnsName ? ['--rgw_dns_name', options.dnsName] : []),
    ];
    const rgwArgs = ['-c', conf, '-n', 'client.rgw', '-f', ...rgwFlags];
    children.set('rgw', await spawnDaemon(dir, 'rgw', ...inNetns('radosgw', rgwArgs)));
    const endpoint = `http://${address}:${rgwPort}`;
    // Asked from inside the namespace when there is one: its addresses are reachable from there only.
    const answers = options.netns
      ? async () => {
          const script = `fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
          await run(...inNetns(process.execPath, ['-e', script, endpoint]));
          return true;
        }
      : async () => (await fetch(endpoint)).ok;
    await until('radosgw to answer', answers);

    const accessKeyId = `SCALE${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    const user = ['user', 'create', '--uid', 'scale', '--display-name', 'scale suite'];
    await run(
      ...inNetns('radosgw-admin', ['-c', conf, ...user, '--access-key', accessKeyId, '--secret', secretAccessKey]),
    );

    const store: KeptStore = {
      endpoint,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      log: join(dir, 'log', 'client.rgw.log'),
      dir,
    };
    if (options.keep) {
      await writeFile(join(dir, 'store.json'), JSON.stringify(store));
      await keep(dir);
    }
    return { ...store, stop: () => stopCluster(dir) };
  } catch (error) {
    const logs = await logTails(dir);
    await stopCluster(dir);
    throw new Error(`the Ceph store did not start: ${(error as Error).message}\n${logs}`, { cause: error });
  }
}

/**
 * A store a run with `SCALE_ENGINES=reuse` left running, if one still answers (one that does not, after a reboot
 * say, is removed). Its `stop` stops it for good.
 */
export async function keptCeph(): Promise<CephStore | undefined> {
  const entries = await readdir(ENGINES_ROOT).catch(() => [] as string[]);
  for (const entry of entries.filter((name) => name.startsWith('ceph-'))) {
    const dir = join(ENGINES_ROOT, entry);
    const kept = await readFile(join(dir, 'store.json'), 'utf8').then(
      (text) => JSON.parse(text) as KeptStore,
      () => undefined,
    );
    if (
      !kept ||
      !(await readFile(join(dir, 'keep')).then(
        () => true,
        () => false,
      ))
    )
      continue;
    if (
      await fetch(kept.endpoint).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { ...kept, stop: () => stopCluster(dir) };
    await stopCluster(dir);
  }
  return undefined;
}

/** Stops the daemons in the order rgw, osd, mon (each needs the next to shut down cleanly) and removes the folder. */
async function stopCluster(dir: string) {
  await stopDaemons(dir, ['rgw', 'osd', 'mon']);
  await rm(dir, { recursive: true, force: true });
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
# BUCKET.localhost:PORT is virtual-hosted (radosgw drops the port before it matches the name); 127.0.0.1:PORT stays
# path style: a second host name of one store for the links on several hosts (issue 32).
rgw_dns_name = localhost
# At level 1 beast writes one access line per request into the log ("beast: … "PUT /bucket/key?… HTTP/1.1" 200 …"):
# the store's own record of what reached it, which requests() reads.
debug_rgw = 1
`;
}

/** beast's access lines: `… beast: 0x…: 127.0.0.1 - USER [DATE] "METHOD PATH HTTP/1.1" STATUS BYTES - "AGENT" …`. */
const ACCESS_LINE = / beast: \S+ \S+ - (\S+) \[[^\]]*\] "(\S+) (\S+) [^"]*" (\d{3}) /;

/** Every request radosgw has answered and logged so far, oldest first, read from its log. */
export async function storeRequests(log: string): Promise<StoreRequest[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => {
    const match = ACCESS_LINE.exec(line);
    return match ? [{ user: match[1]!, method: match[2]!, path: match[3]!, status: Number(match[4]) }] : [];
  });
}

/**
 * Resolves with the requests logged once `match` holds for them. radosgw writes its log from a thread of its own,
 * a moment after it answered: a test waits for what it expects rather than reading at once.
 */
export async function waitForStoreRequests(
  log: string,
  match: (requests: StoreRequest[]) => boolean,
  timeoutMs = 10_000,
): Promise<StoreRequest[]> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const seen = await storeRequests(log);
    if (match(seen)) return seen;
    if (Date.now() > giveUpAt) {
      const lines = seen.map((request) => `${request.method} ${request.path} ${request.status}`);
      throw new Error(`radosgw's log never showed the requests expected; it shows:\n${lines.join('\n')}`);
    }
    await sleep(100);
  }
}
