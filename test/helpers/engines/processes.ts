/**
 * What the engines of the scale suite (Ceph, nginx, PostgreSQL) share: a folder of their own under one root, daemons
 * started in the foreground with their PIDs recorded there, stopped by those PIDs, and the leftovers of a run
 * that was killed before it could stop them cleaned up at the next start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every engine folder of the scale suite lives here, so the next start can find what a killed run left. */
export const ENGINES_ROOT = join(tmpdir(), 'video-uploader-scale');

/** A daemon that does not end within this after SIGTERM is SIGKILLed (Ceph's take about 2 s each here). */
const STOP_TIMEOUT_MS = 20_000;

/**
 * A new folder `ENGINES_ROOT/<kind>-<owner>-XXXXXX` with `log/` and `pids/`, named after this process (its PID
 * and start time: a PID alone may have been given to another process since). Folders of the same kind whose
 * owner is gone are stopped and removed first. The owner is in the name, not in a file written a moment later, so
 * that a start running at the same time never takes a folder being made for one that has just been made.
 */
export async function engineFolder(kind: string, stop: (dir: string) => Promise<void>): Promise<string> {
  await removeStale(kind, stop);
  await mkdir(ENGINES_ROOT, { recursive: true });
  const dir = await mkdtemp(join(ENGINES_ROOT, `${kind}-${await processIdentity(process.pid)}-`));
  await Promise.all(['log', 'pids'].map((sub) => mkdir(join(dir, sub))));
  return dir;
}

/** Marks a folder as kept on purpose after its owner ends (`SCALE_ENGINES=reuse`): no later start removes it. */
export const keep = (dir: string) => writeFile(join(dir, 'keep'), '');

/**
 * Stops and removes each folder of `kind` whose owner process is gone (a run killed with SIGKILL, a machine that
 * lost power): its daemons would hold memory and ports forever. A folder whose owner still runs (another run on
 * this machine) is left alone, as is one kept on purpose.
 */
async function removeStale(kind: string, stop: (dir: string) => Promise<void>) {
  const entries = await readdir(ENGINES_ROOT).catch(() => [] as string[]);
  for (const entry of entries) {
    const owner = new RegExp(`^${kind}-(\\d+)\\.(\\d+)-`).exec(entry);
    if (!owner) continue;
    const dir = join(ENGINES_ROOT, entry);
    const kept = await readFile(join(dir, 'keep'), 'utf8').then(
      () => true,
      () => false,
    );
    if (kept || `${owner[1]}.${owner[2]}` === (await processIdentity(Number(owner[1])))) continue;
    await stop(dir);
  }
}

/** `PID.STARTTIME` of a process (start time in clock ticks since boot), or `PID.0` when there is none. */
async function processIdentity(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The fields after the command name, which is in parentheses and may contain anything; start time is field 22.
  const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return `${pid}.${startTime ?? 0}`;
}

/**
 * Starts one daemon in the foreground, its output in `log/<name>.out`, its PID in `pids/<name>.pid`. It gets a
 * process group of its own, so that a Ctrl-C in the terminal reaches only the caller, which stops the daemons in
 * their order; and no descriptor but its stdio (Node opens every descriptor close-on-exec), so that nobody waiting
 * for the caller's output, or for a lock it holds, waits for the daemon too.
 */
export async function spawnDaemon(dir: string, name: string, command: string, args: string[]): Promise<ChildProcess> {
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

/**
 * Stops the daemons recorded in `dir`, in the order given: SIGTERM, then SIGKILL if one is still there after
 * STOP_TIMEOUT_MS. A recorded PID whose process no longer names `dir` on its command line belongs to someone else
 * by now and is left alone.
 */
export async function stopDaemons(dir: string, names: string[]) {
  for (const name of names) {
    const pid = Number(await readFile(join(dir, 'pids', `${name}.pid`), 'utf8').catch(() => ''));
    if (!pid || !(await runsIn(pid, dir))) continue;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (alive(pid) && Date.now() < deadline) await sleep(50);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(50);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether process `pid` names `dir` on its command line: a daemon of that folder, not a later owner of its PID. */
export async function runsIn(pid: number, dir: string): Promise<boolean> {
  const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return commandLine.includes(dir);
}

/** Fails if a daemon ended: a start waiting for it to be ready would otherwise wait until its deadline. */
export function checkRunning(children: Map<string, ChildProcess>) {
  for (const [name, child] of children) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode})`);
    }
  }
}

/** The last lines of each log in `dir/log`, for a start that failed. */
export async function logTails(dir: string): Promise<string> {
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
 * A port free on 127.0.0.1 right now. The daemon binds it a moment later: another program could take it in
 * between, which makes the start fail with the daemon's log saying so, never a test talk to the wrong server.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
