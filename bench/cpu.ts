/**
 * Where the CPU goes during a run: user + system time of every process under this one (Chromium's, by their
 * `--type`; the service's, its JavaScript thread apart from its other threads, where file writes and fsync run),
 * and of the whole machine, from /proc. On two cores shared by the browser and the service, an upload that needs
 * more CPU per byte cannot go as fast, whatever else it does.
 */
import { readdir, readFile } from 'node:fs/promises';
import { processTree } from '../test/helpers/service.js';

const TICK_MS = 10; // CLK_TCK is 100 on Linux

/** What a process is, by its command line. */
export function role(cmdline: string): string | undefined {
  // Chromium's zygote children rewrite their command line with spaces, not NULs, between arguments.
  const args = cmdline.split(/[\0 ]/);
  const type = args.find((a) => a.startsWith('--type='))?.slice(7);
  if (args[0]?.includes('chrom')) {
    if (!type) return 'browser';
    if (type === 'renderer') return 'renderer';
    if (type === 'gpu-process') return 'gpu';
    if (args.some((a) => a.includes('NetworkService'))) return 'network';
    return 'other';
  }
  // The service from source (tsx) or as built (scripts/service-build.ts, what startService runs).
  if (args.some((a) => /service\/main\.[jt]s$/.test(a))) return 'service';
  return undefined;
}

/** utime + stime in ms, from a /proc stat line. */
const ms = (stat: string) => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};

/** Milliseconds by key: `role:pid` (the service as `service js:pid` and `service io:pid`), and `machine`. */
export type CpuSample = Map<string, number>;

export async function cpuSample(): Promise<CpuSample> {
  const sample: CpuSample = new Map();
  for (const p of await processTree(process.pid)) {
    const r = role(p.cmdline);
    if (r !== 'service') {
      if (r) sample.set(`${r}:${p.pid}`, (Number(p.stat[11]) + Number(p.stat[12])) * TICK_MS);
      continue;
    }
    for (const tid of await readdir(`/proc/${p.pid}/task`).catch(() => [])) {
      const stat = await readFile(`/proc/${p.pid}/task/${tid}/stat`, 'utf8').catch(() => '');
      const key = `${Number(tid) === p.pid ? 'service js' : 'service io'}:${p.pid}`;
      if (stat) sample.set(key, (sample.get(key) ?? 0) + ms(stat));
    }
  }
  // user nice system idle iowait irq softirq steal: all but idle and iowait is busy.
  const cpu = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.split(/\s+/).slice(1, 9).map(Number);
  sample.set('machine', (cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!) * TICK_MS);
  return sample;
}

/**
 * CPU milliseconds by role between two samples (a process that began between them counts from 0), and
 * `kernel, other`: the machine's busy time that no role accounts for (loopback TCP, writeback, anything else).
 */
export function cpuBetween(before: CpuSample, after: CpuSample): Record<string, number> {
  const byRole: Record<string, number> = {};
  for (const [key, value] of after) {
    if (key === 'machine') continue;
    const r = key.slice(0, key.lastIndexOf(':'));
    byRole[r] = (byRole[r] ?? 0) + value - (before.get(key) ?? 0);
  }
  const roles = Object.values(byRole).reduce((a, b) => a + b, 0);
  byRole['kernel, other'] = after.get('machine')! - before.get('machine')! - roles;
  return byRole;
}
