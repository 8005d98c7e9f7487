import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The schema, one migration per step, for both engines through Kysely's schema builder. Where the engines differ
 * it is said where it happens: a 64-bit integer is SQLite's INTEGER and PostgreSQL's BIGINT (times in
 * milliseconds, sizes in bytes), a float SQLite's REAL and PostgreSQL's DOUBLE PRECISION, and the jobs' id
 * SQLite's rowid (INTEGER PRIMARY KEY AUTOINCREMENT) and a PostgreSQL identity column.
 *
 * Data directories made before Kysely (service/db.ts until the domain moves here) count their migrations in
 * SQLite's `PRAGMA user_version`: 9 is the whole baseline, 10 the queue's leases. A migration whose step such a
 * file has already taken records itself as done and changes nothing; one that runs on SQLite sets the count, so
 * that the older code opening the same file finds nothing to do either.
 */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-baseline': { up: (db) => upTo(db, 9, baseline) },
  '0002-job-leases': { up: (db) => upTo(db, 10, jobLeases) },
  '0003-shared-limits': { up: (db) => upTo(db, 11, sharedLimits) },
  '0004-store-uploads': { up: (db) => upTo(db, 12, storeUploads) },
  '0005-completing': { up: (db) => upTo(db, 13, completing) },
  '0006-export-order': { up: (db) => upTo(db, 14, exportOrder) },
  '0008-ingest-nodes': { up: (db) => upTo(db, 16, ingestNodes) },
  '0009-recording-segments': { up: (db) => upTo(db, 17, recordingSegments) },
};

// Kysely's schema builder takes data types as SQL; these two are the ones the engines spell differently.
type Db = Kysely<unknown>;
const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
const int64 = (db: Db) => (isPostgres(db) ? 'bigint' : 'integer');
const float = (db: Db) => (isPostgres(db) ? 'double precision' : 'real');

async function upTo(db: Db, version: number, step: (db: Db) => Promise<void>): Promise<void> {
  if (isPostgres(db)) return step(db);
  const { user_version } = (await sql<{ user_version: number }>`PRAGMA user_version`.execute(db)).rows[0]!;
  if (user_version >= version) return;
  await step(db);
  await sql.raw(`PRAGMA user_version = ${version}`).execute(db);
}

/** Today's schema (service/db.ts's nine migrations), column for column in the order SQLite holds them. */
async function baseline(db: Db): Promise<void> {
  const int = int64(db);
  const real = float(db);
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('plan_end_at', int)
    .addColumn('quota_minutes', real)
    .addColumn('purged_at', int)
    .addColumn('quota_bytes', int)
    .execute();
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('created_at', int, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('tokens')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int)
    .addColumn('revoked_at', int)
    .addColumn('parent_hash', 'text')
    .addColumn('scope', 'text')
    .addColumn('end_user', 'text')
    .addColumn('live_stream_id', 'text')
    .execute();
  await db.schema
    .createTable('videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('file_name', 'text')
    .addColumn('upload_method', 'text')
    .addColumn('size', int)
    .addColumn('duration', real)
    .addColumn('has_video', int)
    .addColumn('mediainfo', 'text')
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('updated_at', int, (c) => c.notNull())
    .addColumn('ready_at', int)
    .addColumn('live_stream_id', 'text')
    .addColumn('end_user', 'text')
    .addColumn('token_hash', 'text')
    .execute();
  await db.schema
    .createTable('upload_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id'))
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int, (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('end_user', 'text')
    .addColumn('closed_at', int)
    .addColumn('token_hash', 'text')
    .execute();
  await db.schema
    .createTable('upload_sessions')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id'))
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int, (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('closed_at', int)
    .addColumn('organization_id', 'text')
    .addColumn('end_user', 'text')
    .addColumn('token_hash', 'text')
    .execute();
  await db.schema
    .createTable('chunks')
    .addColumn('session_key', 'text', (c) => c.notNull().references('upload_sessions.key'))
    .addColumn('chunk_id', int, (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn('size', int, (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('updated_at', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('chunks_pkey', ['session_key', 'chunk_id'])
    .execute();
  await db.schema
    .createTable('jobs')
    // The engines' own ways to number rows: SQLite's rowid (AUTOINCREMENT: never reused), a PostgreSQL identity.
    .addColumn('id', isPostgres(db) ? 'bigint' : 'integer', (c) =>
      isPostgres(db) ? c.generatedByDefaultAsIdentity().primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', int, (c) => c.notNull().defaultTo(0))
    .addColumn('run_at', int, (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('updated_at', int, (c) => c.notNull())
    .addColumn('grp', 'text')
    .execute();
  await db.schema
    .createTable('live_streams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('stream_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', int, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('recordings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('live_stream_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('start_at', int, (c) => c.notNull())
    .addColumn('stopped_at', int)
    .addColumn('end_at', int)
    .addColumn('duration', real)
    .addColumn('size', int)
    .execute();
  await db.schema
    .createTable('recording_parts')
    .addColumn('recording_id', 'text', (c) => c.notNull())
    .addColumn('seq', int, (c) => c.notNull())
    .addColumn('started_at', int, (c) => c.notNull())
    .addColumn('stopped_at', int)
    .addPrimaryKeyConstraint('recording_parts_pkey', ['recording_id', 'seq'])
    .execute();
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('recording_id', 'text', (c) => c.notNull())
    .addColumn('live_stream_id', 'text', (c) => c.notNull())
    .addColumn('video_id', 'text', (c) => c.notNull())
    .addColumn('from_at', int, (c) => c.notNull())
    .addColumn('offset', real, (c) => c.notNull())
    .addColumn('duration', int, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('bytes', int, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('token_hash', 'text')
    .execute();
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', int, (c) => c.notNull().defaultTo(0))
    .addColumn('last_status', int)
    .addColumn('last_error', 'text')
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('delivered_at', int)
    .execute();
  await db.schema
    .createTable('imports')
    .addColumn('video_id', 'text', (c) => c.primaryKey().references('videos.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('bytes', int, (c) => c.notNull())
    .addColumn('total', int)
    .addColumn('created_at', int, (c) => c.notNull())
    .execute();

  // Why each index exists is said in service/db.ts, where each came with the query that needs it.
  const indexes: [name: string, table: string, columns: string[]][] = [
    ['jobs_due', 'jobs', ['state', 'run_at']],
    ['recordings_stream', 'recordings', ['live_stream_id', 'start_at']],
    ['exports_recording', 'exports', ['recording_id', 'created_at']],
    ['jobs_pick', 'jobs', ['kind', 'state', 'grp', 'run_at']],
    ['upload_sessions_due', 'upload_sessions', ['state', 'expires_at']],
    ['upload_sessions_video', 'upload_sessions', ['video_id']],
    ['upload_sessions_organization', 'upload_sessions', ['organization_id', 'state', 'expires_at']],
    ['upload_sessions_owner', 'upload_sessions', ['organization_id', 'end_user', 'state', 'expires_at']],
    ['upload_links_video', 'upload_links', ['video_id']],
    ['upload_links_expiry', 'upload_links', ['expires_at']],
    ['upload_links_owner', 'upload_links', ['organization_id', 'end_user', 'expires_at']],
    ['videos_stream', 'videos', ['live_stream_id', 'created_at']],
    ['videos_status', 'videos', ['organization_id', 'status', 'created_at']],
    ['videos_end_user', 'videos', ['organization_id', 'end_user', 'status', 'created_at']],
    ['exports_video', 'exports', ['video_id']],
    ['exports_status', 'exports', ['status', 'video_id']],
    ['exports_stream', 'exports', ['live_stream_id', 'status']],
    ['exports_token', 'exports', ['token_hash', 'status']],
    ['tokens_parent', 'tokens', ['parent_hash']],
    ['tokens_expiry', 'tokens', ['expires_at']],
    ['tokens_revoked', 'tokens', ['revoked_at']],
    ['jobs_finished', 'jobs', ['state', 'updated_at']],
    ['webhook_deliveries_created', 'webhook_deliveries', ['created_at']],
    ['webhooks_owner', 'webhooks', ['organization_id', 'environment']],
    ['live_streams_owner', 'live_streams', ['organization_id', 'environment', 'created_at']],
    ['recordings_state', 'recordings', ['state', 'stopped_at']],
    ['recordings_retention', 'recordings', ['state', 'end_at']],
    ['recordings_owner', 'recordings', ['organization_id']],
    ['organizations_plan_end', 'organizations', ['plan_end_at']],
  ];
  for (const [name, table, columns] of indexes) await db.schema.createIndex(name).on(table).columns(columns).execute();
  await db.schema
    .createIndex('videos_processing')
    .on('videos')
    .columns(['organization_id', 'end_user'])
    .where(sql.ref('status'), '=', 'processing')
    .execute();
}

/**
 * The queue's leases and its fair pick's state in the database (jobs.ts), so that any number of worker processes
 * share one queue: which worker holds a running job and until when; per kind a row that a claim locks and the
 * round robin's pick counter; per kind and group the pick that group last started.
 */
async function jobLeases(db: Db): Promise<void> {
  const int = int64(db);
  await db.schema.alterTable('jobs').addColumn('worker', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('lease_until', int).execute();
  await db.schema
    .createTable('job_kinds')
    .addColumn('kind', 'text', (c) => c.primaryKey())
    .addColumn('picks', int, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('job_groups')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('grp', 'text', (c) => c.notNull())
    .addColumn('last_pick', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('job_groups_pkey', ['kind', 'grp'])
    .execute();
}

/**
 * What the processes of one service share that each kept in memory while it was one process (issue 30, item 4):
 * the requests each rate-limit key made in its current window (http/rate-limit-store.ts), and named leases that
 * let one process of many do a thing at a time (leases.ts: the sweeper).
 */
async function sharedLimits(db: Db): Promise<void> {
  const int = int64(db);
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', int, (c) => c.notNull())
    .addColumn('reset_at', int, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_reset').on('rate_limits').column('reset_at').execute();
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('until', int, (c) => c.notNull())
    .execute();
}

/** Media on an S3 store (storage/s3.ts): a multipart session keeps the store's upload id (#3's CreateMultipartUpload). */
async function storeUploads(db: Db): Promise<void> {
  await db.schema.alterTable('upload_sessions').addColumn('upload_id', 'text').execute();
}

/**
 * #6 completes one multipart upload of a video at a time, in all processes together (domain/uploads.ts): the
 * video is claimed by a conditional update of this column, until when the claim holds should its process die.
 */
async function completing(db: Db): Promise<void> {
  await db.schema.alterTable('videos').addColumn('completing_until', int64(db)).execute();
}

/**
 * A recording's conversions in the order they were asked for (#9's export_data), on both engines: SQLite's rowid
 * said it, which PostgreSQL has no equal of (a row's ctid moves when it is updated). Each new conversion takes the
 * next number of its recording (domain/exports.ts, under the organization's lock); older rows keep NULL.
 */
async function exportOrder(db: Db): Promise<void> {
  await db.schema.alterTable('exports').addColumn('seq', 'integer').execute();
}

/**
 * Live recordings with several ingest nodes on a store (issue 30, items 3 and 4; domain/recordings.ts): each part
 * names the ingest node that records it, and each node keeps a heartbeat, so that a node that starts ends only its
 * own parts and those of dead nodes; a part keeps where its first frame is (any process cuts on the same timeline)
 * and the bytes of its segments in the store (room checks on a process that does not hold the files).
 */
async function ingestNodes(db: Db): Promise<void> {
  const int = int64(db);
  await db.schema.alterTable('recording_parts').addColumn('ingest_node', 'text').execute();
  await db.schema.alterTable('recording_parts').addColumn('first_frame_at', float(db)).execute();
  await db.schema
    .alterTable('recording_parts')
    .addColumn('stored_bytes', int, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('ingest_nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('alive_until', int, (c) => c.notNull())
    .execute();
}

/**
 * Each segment of a live part the ingest node put in the store (issue 30, item 3; domain/recordings.ts): any process
 * that does not hold the part's files serves its playlist from these rows. The key makes a segment shipped again one row.
 */
async function recordingSegments(db: Db): Promise<void> {
  await db.schema
    .createTable('recording_segments')
    .addColumn('recording_id', 'text', (c) => c.notNull())
    .addColumn('part_seq', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('duration', float(db), (c) => c.notNull())
    .addColumn('bytes', int64(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('recording_segments_pkey', ['recording_id', 'part_seq', 'seq'])
    .execute();
}
