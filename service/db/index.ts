import BetterSqlite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
  type Transaction,
} from 'kysely';
import { Migrator } from 'kysely/migration';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATIONS } from './migrations.js';
import type { Database } from './schema.js';
import { log } from '../log.js';

export type { Database } from './schema.js';
export type Db = Kysely<Database>;
/** A database or one of its transactions: what a method that may join its caller's transaction takes. */
export type Executor = Kysely<Database>;
export type Engine = 'sqlite' | 'postgres';

/**
 * The service's database, migrated: PostgreSQL for a `postgres://` (or `postgresql://`) URL, else SQLite at that
 * path (`:memory:` for a rule's unit test). One typed query layer (Kysely) speaks both, so the domain's statements
 * are written once.
 */
export async function openDatabase(location: string): Promise<Db> {
  const db = new Kysely<Database>({ dialect: isPostgresUrl(location) ? postgres(location) : sqlite(location) });
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return db;
}

/**
 * Where `--database` and `--data` put the database: the PostgreSQL server named, else `service.db` in the data
 * directory, which is made and kept the service's alone (0700): it holds the signing secret, token hashes, webhook
 * secrets and every uploaded byte.
 */
export function databaseLocation(options: { database?: string; data: string }): string {
  if (options.database) return options.database;
  mkdirSync(options.data, { recursive: true, mode: 0o700 });
  chmodSync(options.data, 0o700);
  return join(options.data, 'service.db');
}

/** The engine behind a database or a transaction of it. */
export function engineOf(db: { getExecutor(): { readonly adapter: object } }): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Runs the migrations not yet run (Kysely keeps them in `kysely_migration`; on PostgreSQL under a lock, so any number of processes may start at once). */
export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(MIGRATIONS) } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/**
 * A setting of this database, made by `make` the first time it is asked for. Two processes starting at once may
 * both make one: the first insert wins (the name is the primary key, the other insert does nothing), and both read
 * back the one that won.
 */
export async function setting(db: Kysely<Database>, name: string, make: () => string): Promise<string> {
  const read = () => db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  const row = await read();
  if (row) return row.value;
  await db
    .insertInto('settings')
    .values({ name, value: make() })
    .onConflict((c) => c.column('name').doNothing())
    .execute();
  return (await read())!.value;
}

/**
 * The database as a log line or the ready line may show it: a PostgreSQL URL without its password (and user
 * name), a SQLite file by its path.
 */
export function shownLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    const url = new URL(location);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.href;
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

/**
 * Runs `work` in a transaction that no other process's transaction of the same kind interleaves with, a
 * conflict being retried: on PostgreSQL at SERIALIZABLE isolation, tried again (up to five times, after a short
 * random wait) when PostgreSQL aborts it for a conflicting concurrent transaction (40001) or a deadlock (40P01).
 * On SQLite every transaction is already serial (one writer per file, taken at `begin`: `ImmediateSqliteDialect`).
 */
export async function serializable<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (engineOf(db) !== 'postgres') return db.transaction().execute(work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().setIsolationLevel('serializable').execute(work);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 5 || (code !== '40001' && code !== '40P01')) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

function postgres(url: string): PostgresDialect {
  // BIGINT (times in milliseconds, sizes, counts) comes back as a number, not pg's default string: every value
  // the service keeps is far below 2^53.
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, types });
  // An idle connection the server closed (a restart, a failover, an administrator) is an 'error' on the pool; left
  // unheard it ends the process. The pool drops that connection and opens a new one for the next query, so the
  // service goes on: a request or job in flight fails and is retried, nothing else.
  pool.on('error', (err) => log.error(`database: a connection was lost (${err.message}); the next query reconnects`));
  // The pool hears only its idle connections: one lent out (a transaction between its statements, a query about to
  // be sent) and cut is an 'error' on that connection alone, which unheard ends the process too. Its query or
  // transaction fails on its own, and the pool drops it when it comes back.
  pool.on('connect', (connection) => connection.on('error', () => {}));
  return new PostgresDialect({ pool });
}

/**
 * SQLite's plain `begin` is deferred: a transaction that reads before it writes asks for the file's write lock only at
 * its first write, and when another process wrote in between, SQLite refuses that write at once (SQLITE_BUSY, its
 * busy timeout not waited: what the transaction read is out of date). A storage PUT's chunk, recorded while a worker
 * wrote its job's progress, failed with 500 that way. `begin immediate` takes the write lock first, waiting
 * `busy_timeout` for it like any write: every transaction of the service may write, so each is serial from its start.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

function sqlite(path: string): SqliteDialect {
  const database = new BetterSqlite(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Another process writing (a second worker on the same file) is waited for, not an error.
  database.pragma('busy_timeout = 5000');
  return new ImmediateSqliteDialect({ database });
}
