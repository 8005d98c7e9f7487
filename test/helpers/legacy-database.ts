import Database from 'better-sqlite3';

/**
 * A data directory's database as the service made it before its statements moved onto Kysely (service/db): its ten
 * migrations, counted in SQLite's `user_version`. The service no longer has this code; the tests keep it to make
 * such a file and show that service/db adopts it (test/unit/database.test.ts).
 */
const LEGACY_MIGRATIONS = [
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
  // The live half: streams, their temporary recordings (one row per recording, one per publish in it),
  // conversions into permanent videos, webhooks and their deliveries, and each organization's plan.
  `
  ALTER TABLE organizations ADD COLUMN plan_end_at INTEGER;
  ALTER TABLE organizations ADD COLUMN quota_minutes REAL;
  ALTER TABLE organizations ADD COLUMN purged_at INTEGER;
  ALTER TABLE videos ADD COLUMN live_stream_id TEXT;
  CREATE TABLE live_streams (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, environment TEXT NOT NULL,
    user_id TEXT NOT NULL, name TEXT, stream_key TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
  CREATE TABLE recordings (id TEXT PRIMARY KEY, live_stream_id TEXT NOT NULL, organization_id TEXT NOT NULL,
    state TEXT NOT NULL, start_at INTEGER NOT NULL, stopped_at INTEGER, end_at INTEGER, duration REAL, size INTEGER);
  CREATE INDEX recordings_stream ON recordings (live_stream_id, start_at);
  CREATE TABLE recording_parts (recording_id TEXT NOT NULL, seq INTEGER NOT NULL, started_at INTEGER NOT NULL,
    stopped_at INTEGER, PRIMARY KEY (recording_id, seq));
  CREATE TABLE exports (id TEXT PRIMARY KEY, recording_id TEXT NOT NULL, live_stream_id TEXT NOT NULL,
    video_id TEXT NOT NULL, from_at INTEGER NOT NULL, offset REAL NOT NULL, duration INTEGER NOT NULL,
    status TEXT NOT NULL, bytes INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
  CREATE INDEX exports_recording ON exports (recording_id, created_at);
  CREATE TABLE webhooks (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, environment TEXT NOT NULL,
    url TEXT NOT NULL, events TEXT NOT NULL, secret TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE webhook_deliveries (id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL, event TEXT NOT NULL,
    body TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_status INTEGER,
    last_error TEXT, created_at INTEGER NOT NULL, delivered_at INTEGER);
  `,
  // Jobs of one group (an organization) are limited in how many run at once, so no one crowds out the rest.
  `ALTER TABLE jobs ADD COLUMN grp TEXT;`,
  // Browser tokens are scoped: 'upload' (for an end user the integrator names) or 'clip' (one live stream).
  `
  ALTER TABLE tokens ADD COLUMN scope TEXT;
  ALTER TABLE tokens ADD COLUMN end_user TEXT;
  ALTER TABLE tokens ADD COLUMN live_stream_id TEXT;
  ALTER TABLE videos ADD COLUMN end_user TEXT;
  `,
  // Imports from a URL: one row while the file is on its way (its progress for #8), gone once processing starts.
  `CREATE TABLE imports (video_id TEXT PRIMARY KEY REFERENCES videos(id), url TEXT NOT NULL,
    bytes INTEGER NOT NULL, total INTEGER, created_at INTEGER NOT NULL);`,
  // The fair pick (jobs.ts) seeks each group's oldest due job of a kind; the queued-work caps count processing videos.
  `
  CREATE INDEX jobs_pick ON jobs (kind, state, grp, run_at);
  CREATE INDEX videos_processing ON videos (organization_id, end_user) WHERE status = 'processing';
  `,
  // Every token's work is bounded (issue 28): conversions name the token that asked (its cap); links and sessions
  // name the organization and end user they count against (their caps), a link when its video took its file;
  // and an index for every query the
  // sweeper, #11, the quota, the caps and the pruning make, so none scans a table that grows with use.
  `
  ALTER TABLE exports ADD COLUMN token_hash TEXT;
  ALTER TABLE upload_links ADD COLUMN organization_id TEXT;
  ALTER TABLE upload_links ADD COLUMN end_user TEXT;
  ALTER TABLE upload_links ADD COLUMN closed_at INTEGER;
  ALTER TABLE upload_sessions ADD COLUMN organization_id TEXT;
  ALTER TABLE upload_sessions ADD COLUMN end_user TEXT;
  CREATE INDEX upload_sessions_due ON upload_sessions (state, expires_at);
  CREATE INDEX upload_sessions_video ON upload_sessions (video_id);
  CREATE INDEX upload_sessions_organization ON upload_sessions (organization_id, state, expires_at);
  CREATE INDEX upload_sessions_owner ON upload_sessions (organization_id, end_user, state, expires_at);
  CREATE INDEX upload_links_video ON upload_links (video_id);
  CREATE INDEX upload_links_expiry ON upload_links (expires_at);
  CREATE INDEX upload_links_owner ON upload_links (organization_id, end_user, expires_at);
  CREATE INDEX videos_stream ON videos (live_stream_id, created_at);
  CREATE INDEX videos_status ON videos (organization_id, status, created_at);
  CREATE INDEX videos_end_user ON videos (organization_id, end_user, status, created_at);
  CREATE INDEX exports_video ON exports (video_id);
  CREATE INDEX exports_status ON exports (status, video_id);
  CREATE INDEX exports_stream ON exports (live_stream_id, status);
  CREATE INDEX exports_token ON exports (token_hash, status);
  CREATE INDEX tokens_parent ON tokens (parent_hash);
  CREATE INDEX tokens_expiry ON tokens (expires_at);
  CREATE INDEX tokens_revoked ON tokens (revoked_at);
  CREATE INDEX jobs_finished ON jobs (state, updated_at);
  CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
  CREATE INDEX webhooks_owner ON webhooks (organization_id, environment);
  CREATE INDEX live_streams_owner ON live_streams (organization_id, environment, created_at);
  CREATE INDEX recordings_state ON recordings (state, stopped_at);
  CREATE INDEX recordings_retention ON recordings (state, end_at);
  CREATE INDEX recordings_owner ON recordings (organization_id);
  CREATE INDEX organizations_plan_end ON organizations (plan_end_at);
  `,
  // Capabilities end with their source: each link, session and video names the token that made it (an upload
  // token without a user sees only its own videos). Each organization may have a storage quota in bytes.
  `
  ALTER TABLE upload_links ADD COLUMN token_hash TEXT;
  ALTER TABLE upload_sessions ADD COLUMN token_hash TEXT;
  ALTER TABLE videos ADD COLUMN token_hash TEXT;
  ALTER TABLE organizations ADD COLUMN quota_bytes INTEGER;
  `,
  // The queue's leases and its fair pick's state (jobs.ts): service/db/migrations.ts's '0002-job-leases'.
  `
  ALTER TABLE jobs ADD COLUMN worker TEXT;
  ALTER TABLE jobs ADD COLUMN lease_until INTEGER;
  CREATE TABLE job_kinds (kind TEXT PRIMARY KEY, picks INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE job_groups (kind TEXT NOT NULL, grp TEXT NOT NULL, last_pick INTEGER NOT NULL,
    PRIMARY KEY (kind, grp));
  `,
  // Rate-limit counts and leases shared by the processes of one service: service/db/migrations.ts's
  // '0003-shared-limits', written twice for the same reason as the step before.
  `
  CREATE TABLE rate_limits (key TEXT PRIMARY KEY, count INTEGER NOT NULL, reset_at INTEGER NOT NULL);
  CREATE INDEX rate_limits_reset ON rate_limits (reset_at);
  CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL);
  `,
  // Media on an S3 store (storage/s3.ts): a multipart session keeps the store's upload id. The same step as
  // service/db/migrations.ts's '0004-store-uploads'.
  `ALTER TABLE upload_sessions ADD COLUMN upload_id TEXT;`,
];

/** Makes the file at `path` as the service before Kysely did, with its first `steps` migrations (default: all of them). */
export function makeLegacyDatabase(path: string, steps = LEGACY_MIGRATIONS.length): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (let i = 0; i < steps; i++) {
    db.exec(LEGACY_MIGRATIONS[i]!);
    db.pragma(`user_version = ${i + 1}`);
  }
  return db;
}
