import BetterSqlite from 'better-sqlite3';
import { sql } from 'kysely';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, setting, shownLocation } from '../../service/db/index.js';
import { startPostgres, type Postgres } from '../helpers/engines/postgres.js';
import { makeLegacyDatabase } from '../helpers/legacy-database.js';
import { tempDir } from '../helpers/temp.js';

/** Everything SQLite knows of a file's schema: each table's columns, keys and foreign keys, and each index. */
function schemaOf(path: string) {
  const db = new BetterSqlite(path, { readonly: true });
  try {
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      tables.map((table) => [
        table,
        {
          columns: (
            db.pragma(`table_info(${table})`) as {
              name: string;
              type: string;
              notnull: number;
              dflt_value: string | null;
              pk: number;
            }[]
          ).map(
            (c) =>
              `${c.name} ${c.type.toUpperCase()}${c.notnull ? ' NOT NULL' : ''}${c.dflt_value === null ? '' : ` DEFAULT ${c.dflt_value}`}${c.pk ? ` PK${c.pk}` : ''}`,
          ),
          foreignKeys: (db.pragma(`foreign_key_list(${table})`) as { from: string; table: string; to: string }[]).map(
            (k) => `${k.from} -> ${k.table}(${k.to})`,
          ),
          indexes: (db.pragma(`index_list(${table})`) as { name: string; unique: number; partial: number }[])
            .map((i) => {
              const columns = (db.pragma(`index_info(${i.name})`) as { name: string }[]).map((c) => c.name);
              const where = i.partial
                ? (db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(i.name) as string)
                    .replace(/.*WHERE/is, 'WHERE')
                    .replace(/["\s]+/g, ' ')
                    .trim()
                : '';
              return `${i.name.startsWith('sqlite_autoindex') ? '(key)' : i.name} ${i.unique ? 'UNIQUE ' : ''}(${columns.join(', ')}) ${where}`.trim();
            })
            .sort(),
        },
      ]),
    );
  } finally {
    db.close();
  }
}

describe('the database (service/db)', () => {
  it('makes on SQLite the schema the service had before Kysely, column for column, and then its own steps', async () => {
    const dir = await tempDir('schema-');
    const legacy = join(dir, 'legacy.db');
    makeLegacyDatabase(legacy).close();
    const made = join(dir, 'made.db');
    await (await openDatabase(made)).destroy();
    // What came after the service moved onto Kysely: #6's claim on a video (0005-completing), the conversions'
    // order (0006-export-order), the ingest nodes and what a part keeps for other processes (0008-ingest-nodes), the
    // segments a part has in the store (0009-recording-segments).
    const withoutLater = schemaOf(made);
    withoutLater.videos!.columns = withoutLater.videos!.columns.filter((c) => !c.startsWith('completing_until'));
    withoutLater.exports!.columns = withoutLater.exports!.columns.filter((c) => !c.startsWith('seq'));
    withoutLater.recording_parts!.columns = withoutLater.recording_parts!.columns.filter(
      (c) => !/^(ingest_node|first_frame_at|stored_bytes) /.test(c),
    );
    delete withoutLater.ingest_nodes;
    delete withoutLater.recording_segments;
    assert.deepEqual(withoutLater, schemaOf(legacy));
    const version = (path: string) => new BetterSqlite(path).pragma('user_version', { simple: true });
    assert.equal(version(made), 17, 'user_version counts every step, as the older code did');
  });

  it('shows a PostgreSQL URL (the ready line) without its user, password or parameters', () => {
    assert.equal(
      shownLocation('postgres://videos:s3cret@db.example:5432/videos?sslmode=require&password=again'),
      'postgres://db.example:5432/videos',
    );
    assert.equal(shownLocation('/var/lib/videos/service.db'), '/var/lib/videos/service.db');
  });

  it('adopts a data directory of the service before it, without running its migrations again, keeping its rows', async () => {
    const dir = await tempDir('adopt-');
    const path = join(dir, 'service.db');
    // The file as the service made it before the queue's leases (user_version 9).
    const todays = makeLegacyDatabase(path, 9);
    todays.exec(`
      INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'acme', 1000);
      INSERT INTO settings (name, value) VALUES ('signing_secret', 'kept');`);
    todays.close();

    const db = await openDatabase(path);
    try {
      assert.deepEqual(await db.selectFrom('organizations').select(['id', 'name', 'created_at']).execute(), [
        { id: 'org_1', name: 'acme', created_at: 1000 },
      ]);
      assert.equal(await setting(db, 'signing_secret', () => 'new'), 'kept');
      // Kysely's own record of the migrations run: the baseline among them, though nothing of it ran.
      const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
      assert.deepEqual(
        rows.map((m) => m.name),
        [
          '0001-baseline',
          '0002-job-leases',
          '0003-shared-limits',
          '0004-store-uploads',
          '0005-completing',
          '0006-export-order',
          '0008-ingest-nodes',
          '0009-recording-segments',
        ],
      );
    } finally {
      await db.destroy();
    }
    const fresh = join(dir, 'fresh.db');
    await (await openDatabase(fresh)).destroy();
    assert.deepEqual(schemaOf(path), schemaOf(fresh), 'the adopted file has the schema of a new one');
  });

  it('on SQLite, never refuses a transaction that read, then writes, because another process wrote in between', async () => {
    const path = join(await tempDir('db-'), 'service.db');
    const db = await openDatabase(path);
    // Another process's connection to the file (a worker's), which does not wait for a lock: where it would wait,
    // it is refused.
    const other = new BetterSqlite(path);
    other.pragma('busy_timeout = 0');
    let otherWrite = 'written';
    try {
      await db.transaction().execute(async (trx) => {
        await trx.selectFrom('settings').selectAll().execute();
        try {
          other.prepare(`INSERT INTO settings (name, value) VALUES ('other', 'x')`).run();
        } catch (err) {
          otherWrite = (err as { code?: string }).code ?? String(err);
        }
        await trx.insertInto('settings').values({ name: 'mine', value: 'y' }).execute();
      });
      assert.equal(otherWrite, 'SQLITE_BUSY', 'the transaction held the write lock from its start');
      const names = await db.selectFrom('settings').select('name').where('name', 'in', ['mine', 'other']).execute();
      assert.deepEqual(
        names.map((r) => r.name),
        ['mine'],
      );
    } finally {
      other.close();
      await db.destroy();
    }
  });

  describe('on PostgreSQL', () => {
    let postgres: Postgres;
    before(async () => (postgres = await startPostgres()));
    after(() => postgres.stop());

    it('keeps times as 64-bit integers read back as numbers, and numbers the jobs itself', async () => {
      const db = await openDatabase(await postgres.freshDatabase());
      try {
        const later = 2 ** 40; // past a 32-bit integer: a BIGINT column, parsed to a number
        await db
          .insertInto('organizations')
          .values({ id: 'org_1', name: 'acme', created_at: later, quota_minutes: 1.5 })
          .execute();
        assert.deepEqual(
          await db.selectFrom('organizations').select(['created_at', 'quota_minutes']).executeTakeFirst(),
          { created_at: later, quota_minutes: 1.5 },
        );
        const job = { kind: 'k', payload: '{}', state: 'queued', run_at: later, created_at: later, updated_at: later };
        const ids = await db.insertInto('jobs').values([job, job]).returning('id').execute();
        assert.deepEqual(ids, [{ id: 1 }, { id: 2 }]);
      } finally {
        await db.destroy();
      }
    });

    it('migrates a database once, however many processes open it (the second finds nothing to do)', async () => {
      const url = await postgres.freshDatabase();
      const [a, b] = await Promise.all([openDatabase(url), openDatabase(url)]);
      try {
        assert.deepEqual(await a.selectFrom('jobs').selectAll().execute(), []);
        assert.equal(await setting(a, 'signing_secret', () => 'first'), 'first');
        assert.equal(await setting(b, 'signing_secret', () => 'second'), 'first');
      } finally {
        await Promise.all([a.destroy(), b.destroy()]);
      }
    });
  });
});
