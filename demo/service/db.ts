import Database from 'better-sqlite3';
import { join } from 'node:path';

export type Db = Database.Database;

/**
 * Schema, one migration per entry; `user_version` says how many have run. Times are milliseconds
 * of the service clock. Chunk bytes and media live on disk under the data directory; this holds
 * what they are.
 */
const MIGRATIONS = [
  `
  CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
  CREATE TABLE users (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL REFERENCES organizations(id),
    created_at INTEGER NOT NULL);
  CREATE TABLE tokens (hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
    organization_id TEXT NOT NULL REFERENCES organizations(id), environment TEXT NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER);
  CREATE TABLE videos (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, user_id TEXT NOT NULL,
    environment TEXT NOT NULL, status TEXT NOT NULL, failure_reason TEXT, file_name TEXT,
    upload_method TEXT, size INTEGER, duration REAL, has_video INTEGER, mediainfo TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, ready_at INTEGER);
  CREATE TABLE upload_links (id TEXT PRIMARY KEY, video_id TEXT NOT NULL REFERENCES videos(id),
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
  CREATE TABLE upload_sessions (key TEXT PRIMARY KEY, video_id TEXT NOT NULL REFERENCES videos(id),
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, state TEXT NOT NULL, closed_at INTEGER);
  CREATE TABLE chunks (session_key TEXT NOT NULL REFERENCES upload_sessions(key), chunk_id INTEGER NOT NULL,
    etag TEXT NOT NULL, size INTEGER NOT NULL, file TEXT NOT NULL, updated_at INTEGER NOT NULL,
    PRIMARY KEY (session_key, chunk_id));
  CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, payload TEXT NOT NULL,
    state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, run_at INTEGER NOT NULL, last_error TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE INDEX jobs_due ON jobs (state, run_at);
  `,
  // Short-lived tokens made by POST /tokens name the token that made them; they cannot make more.
  `ALTER TABLE tokens ADD COLUMN parent_hash TEXT;`,
];

export function openDb(dataDir: string): Db {
  const db = new Database(join(dataDir, 'service.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const done = db.pragma('user_version', { simple: true }) as number;
  for (let i = done; i < MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[i]!);
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
  return db;
}
