import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';

/**
 * Named leases in the database: of all the processes sharing one database, one holds a lease at a time, for a
 * while it renews by taking it again. What must be done by one process of a fleet at a time (the sweeper of
 * app.ts) does it only while it holds its lease; a holder that dies stops renewing, and another process takes the
 * lease once it has run out.
 *
 * As for the job queue's leases (jobs.ts): a holder whose process is known gone (`holderGone`) lets its lease go at
 * once, so a process restarted on one machine does not wait for its predecessor's lease. Times are wall-clock: a
 * lease says a process is alive, which the service clock a test moves does not.
 */
export class Leases {
  /** This process's name in the leases it holds (`holderName`). */
  readonly holder = holderName();

  constructor(private readonly db: Kysely<Database>) {}

  /** Takes or renews `name` for `ms`; true when this process holds it now. */
  async take(name: string, ms: number): Promise<boolean> {
    const now = Date.now();
    const holder = this.holder;
    const taken = await this.db
      .insertInto('leases')
      .values({ name, holder, until: now + ms })
      .onConflict((c) =>
        c
          .column('name')
          .doUpdateSet({ holder, until: now + ms })
          .where((eb) => eb.or([eb('leases.holder', '=', holder), eb('leases.until', '<', now)])),
      )
      .returning('holder')
      .executeTakeFirst();
    if (taken) return true;
    // Held by someone else: free only if that someone is known to be gone.
    const row = await this.db.selectFrom('leases').select('holder').where('name', '=', name).executeTakeFirst();
    if (!row || !holderGone(row.holder)) return false;
    const freed = await this.db
      .updateTable('leases')
      .set({ holder, until: now + ms })
      .where('name', '=', name)
      .where('holder', '=', row.holder)
      .executeTakeFirst();
    return freed.numUpdatedRows > 0n;
  }

  /** Lets `name` go if this process holds it (a clean stop): the next process takes it without waiting. */
  async release(name: string): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', name).where('holder', '=', this.holder).execute();
  }
}

/**
 * Where a pid names one process: this kernel's boot (its boot_id: shared by every container of a machine, another on
 * every other machine and after each reboot) and this process's pid namespace (the inode of /proc/self/ns/pid). A
 * host name is not enough: containers may share one while each has its own pid namespace, where pid 7 is another
 * process or none. Undefined where /proc does not say (not Linux): no holder is then known gone, and each lease is
 * waited out.
 */
export const PID_SPACE: string | undefined = (() => {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return boot && namespace ? `${boot}.${namespace}` : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * This process's name in the rows it holds (a lease, a running job): `<pid space>:<host>:<pid>:<random>`. The pid
 * space and pid tell a dead holder (`holderGone`), the host is for a person reading the rows, the random part makes
 * each name unique (a pid is reused). `space`: tests name a machine of their own.
 */
export function holderName(space = PID_SPACE): string {
  return `${space ?? 'unknown'}:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * Whether the process `holder` names is known gone: it lived in this pid space (`holderName`) and signal 0 finds no
 * such pid. False when unsure (another pid space, an unknown one, a name of another shape, a live pid that may be
 * another process now): that holder's lease then runs out as any other's.
 */
export function holderGone(holder: string, space = PID_SPACE): boolean {
  const [holderSpace, , pid, ...rest] = holder.split(':');
  if (space === undefined || holderSpace !== space || rest.length !== 1 || !/^[1-9]\d*$/.test(pid ?? '')) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
