import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';

/**
 * Named leases in the database: of all the processes sharing one database, one holds a lease at a time, for a
 * while it renews by taking it again. What must be done by one process of a fleet at a time (the sweeper of
 * app.ts) does it only while it holds its lease; a holder that dies stops renewing, and another process takes the
 * lease once it has run out.
 *
 * As for the job queue's leases (jobs.ts): a holder on this machine whose process is gone (signal 0 finds no such
 * pid) lets its lease go at once, so a process restarted on one machine does not wait for its predecessor's lease.
 * Times are wall-clock: a lease says a process is alive, which the service clock a test moves does not.
 */
export class Leases {
  /** This process's name in the leases it holds: host and pid to tell a dead holder, random to be unique. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

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
    // Held by someone else: free only if that someone is a process of this machine that no longer exists.
    const row = await this.db.selectFrom('leases').select('holder').where('name', '=', name).executeTakeFirst();
    if (!row || !deadHereAndNow(row.holder)) return false;
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

/** A holder named for this machine whose process is gone. */
function deadHereAndNow(holder: string): boolean {
  const [host, pid] = holder.split(':');
  if (host !== hostname() || !pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
