import type { Generated } from 'kysely';

/**
 * Every table and column of the service's database, as both engines hold it (migrations.ts makes them). Times are
 * integer milliseconds of the service clock (PostgreSQL BIGINT, read back as numbers); `null` where the column may
 * be NULL; `Generated` where the database fills the value in (an identity or a default).
 */
export interface Database {
  settings: SettingsTable;
  organizations: OrganizationsTable;
  users: UsersTable;
  tokens: TokensTable;
  videos: VideosTable;
  upload_links: UploadLinksTable;
  upload_sessions: UploadSessionsTable;
  chunks: ChunksTable;
  imports: ImportsTable;
  jobs: JobsTable;
  job_kinds: JobKindsTable;
  job_groups: JobGroupsTable;
  live_streams: LiveStreamsTable;
  recordings: RecordingsTable;
  recording_parts: RecordingPartsTable;
  recording_segments: RecordingSegmentsTable;
  ingest_nodes: IngestNodesTable;
  exports: ExportsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  rate_limits: RateLimitsTable;
  leases: LeasesTable;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: number;
  plan_end_at: number | null;
  quota_minutes: number | null;
  purged_at: number | null;
  quota_bytes: number | null;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  created_at: number;
}

export interface TokensTable {
  hash: string;
  user_id: string;
  organization_id: string;
  environment: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  parent_hash: string | null;
  scope: string | null;
  end_user: string | null;
  live_stream_id: string | null;
}

export interface VideosTable {
  id: string;
  organization_id: string;
  user_id: string;
  environment: string;
  status: string;
  failure_reason: string | null;
  file_name: string | null;
  upload_method: string | null;
  size: number | null;
  duration: number | null;
  /** 0 or 1 (SQLite has no boolean; both engines keep the integer). */
  has_video: number | null;
  mediainfo: string | null;
  created_at: number;
  updated_at: number;
  ready_at: number | null;
  live_stream_id: string | null;
  end_user: string | null;
  token_hash: string | null;
  /** While #6 completes the video's multipart upload: until when that claim holds (domain/uploads.ts). */
  completing_until: number | null;
}

export interface UploadLinksTable {
  id: string;
  video_id: string;
  created_at: number;
  expires_at: number;
  organization_id: string | null;
  end_user: string | null;
  closed_at: number | null;
  token_hash: string | null;
}

export interface UploadSessionsTable {
  key: string;
  video_id: string;
  created_at: number;
  expires_at: number;
  state: string;
  closed_at: number | null;
  organization_id: string | null;
  end_user: string | null;
  token_hash: string | null;
  /** The store's multipart upload id (an S3 store); null on disk. */
  upload_id: string | null;
}

export interface ChunksTable {
  session_key: string;
  chunk_id: number;
  etag: string;
  size: number;
  file: string;
  updated_at: number;
}

export interface ImportsTable {
  video_id: string;
  url: string;
  bytes: number;
  total: number | null;
  created_at: number;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** JSON of the kind's payload (jobs.ts JobPayloads). */
  payload: string;
  /** 'queued', 'running', 'done' or 'failed'. */
  state: string;
  attempts: Generated<number>;
  run_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The group (an organization) the job counts against in the fair pick; NULL is the group of its own. */
  grp: string | null;
  /** While running: the worker that holds the job, and until when, unless it renews. */
  worker: string | null;
  lease_until: number | null;
}

/** One row per job kind: locked while a worker claims jobs of the kind, and the round robin's pick counter. */
export interface JobKindsTable {
  kind: string;
  picks: Generated<number>;
}

/** When each group last started a job of a kind (the `picks` number of that start): whose turn it is. */
export interface JobGroupsTable {
  kind: string;
  /** The job's grp, '' for jobs without one (organization ids are never empty). */
  grp: string;
  last_pick: number;
}

export interface LiveStreamsTable {
  id: string;
  organization_id: string;
  environment: string;
  user_id: string;
  name: string | null;
  stream_key: string;
  created_at: number;
}

export interface RecordingsTable {
  id: string;
  live_stream_id: string;
  organization_id: string;
  state: string;
  start_at: number;
  stopped_at: number | null;
  end_at: number | null;
  duration: number | null;
  size: number | null;
}

export interface RecordingPartsTable {
  recording_id: string;
  seq: number;
  started_at: number;
  stopped_at: number | null;
  /** The ingest node recording it (NULL: recorded before nodes were named). */
  ingest_node: string | null;
  /** Seconds from the start of its media to its first frame, once known (domain/recordings.ts, firstFrameAt). */
  first_frame_at: number | null;
  /** Bytes of its segments the ingest node put in the S3 store (0 on the local disk). */
  stored_bytes: Generated<number>;
}

/** A segment of a part that the ingest node put in the S3 store, as its recorder's playlist listed it. */
export interface RecordingSegmentsTable {
  recording_id: string;
  part_seq: number;
  /** Its place in the part, from 0 (the playlist's order). */
  seq: number;
  /** Its file name in the part's folder (`seg00000.ts`). */
  file: string;
  /** Seconds, as the recorder's #EXTINF gives it. */
  duration: number;
  bytes: number;
}

/** Each ingest node's heartbeat: alive until then (wall-clock ms), renewed while it runs. */
export interface IngestNodesTable {
  id: string;
  alive_until: number;
}

export interface ExportsTable {
  id: string;
  recording_id: string;
  live_stream_id: string;
  video_id: string;
  from_at: number;
  offset: number;
  duration: number;
  status: string;
  bytes: Generated<number>;
  created_at: number;
  token_hash: string | null;
  /** The conversion's number among its recording's, from 1 (NULL: made before it was kept). */
  seq: number | null;
}

export interface WebhooksTable {
  id: string;
  organization_id: string;
  environment: string;
  url: string;
  events: string;
  secret: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event: string;
  body: string;
  state: string;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: number;
}

export interface LeasesTable {
  name: string;
  holder: string;
  until: number;
}
