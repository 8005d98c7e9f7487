import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { databaseLocation, openDatabase, setting, shownLocation, type Db } from './db/index.js';
import { Accounts } from './domain/accounts.js';
import { EXPORT_RECORDING, Exports, type ConversionLimits } from './domain/exports.js';
import { LiveStreams } from './domain/live-streams.js';
import { FINISH_RECORDING, Recordings } from './domain/recordings.js';
import { processVideo } from './domain/ready.js';
import { Usage } from './domain/usage.js';
import { DELIVER_WEBHOOK, Webhooks } from './domain/webhooks.js';
import { Uploads } from './domain/uploads.js';
import { PROCESS_VIDEO, Videos, type QueueCaps, type VideoRow } from './domain/videos.js';
import { IMPORT_VIDEO, Imports, type ImportLimits } from './domain/imports.js';
import type { OpenUploadCaps } from './domain/open-uploads.js';
import { createApi, type Api, type RateLimits } from './http/api.js';
import { Faults } from './faults.js';
import {
  cachedCheck,
  databaseCheck,
  dataDirectoryCheck,
  Health,
  healthRoutes,
  jobLoopCheck,
  listensCheck,
} from './http/health.js';
import { RateLimitCounts } from './http/rate-limit-store.js';
import { Leases } from './leases.js';
import { RUNS, type Role } from './roles.js';
import type { LogLevel } from './log.js';
import { Metrics } from './metrics.js';
import { Jobs } from './jobs.js';
import { Ingest, type IngestLimits } from './live/ingest.js';
import type { OutboundPolicy } from './net/outbound.js';
import type { CutStrategy } from './processing/cut.js';
import type { ProcessingLimits } from './processing/pipeline.js';
import { RecordingMedia } from './processing/recording-media.js';
import { accountRoutes } from './routes/account.js';
import { liveRoutes } from './routes/live.js';
import { mediaRoutes } from './routes/media.js';
import { testHookRoutes } from './routes/test-hooks.js';
import { videoRoutes } from './routes/videos.js';
import { Files } from './storage/files.js';
import { LocalStore } from './storage/local.js';
import { storageHandler, UploadOrigin, type StorageRequest } from './storage/server.js';
import { UrlSigner } from './storage/signing.js';
import type { StorageOptions } from './storage/options.js';
import { S3Store } from './storage/s3.js';
import { S3Media } from './storage/s3-media.js';
import { S3RecordingMedia, S3Recordings } from './storage/s3-recordings.js';
import { S3Uploads } from './storage/s3-uploads.js';
import { settings, type Settings } from './settings.js';
import { DEFAULT_HOST, DEFAULT_STORAGE_HOSTS, httpOrigin, storageListens, type HostPort } from './ports.js';
import { log as processLog } from './log.js';

/** How to start a service; a tunable left out takes its default (settings.ts, DEFAULTS). */
export interface ServiceOptions {
  dataDir: string;
  /** What this process runs (roles.ts); default `all`, the one process that does everything. */
  role?: Role;
  /** `--database`: a PostgreSQL URL (`postgres://…`) shared by every process; default SQLite in `dataDir`. */
  database?: string;
  /**
   * `--public-url`: where clients reach the API (a load balancer's origin). The URLs answers and webhooks carry start
   * with it, whichever process made them (a worker's video-ready too); default: this process's own API address.
   */
  publicUrl?: string;
  host?: string;
  /** API port ({base_url}), or the health port of a role without the API; 0 picks a free one. */
  port?: number;
  /** Storage port ({upload_url}); 0 picks a free one. How many hosts use it: `storage.hosts` (ports.ts, storageListens). */
  storagePort?: number;
  /** RTMP ingest port; 0 picks a free one. */
  rtmpPort?: number;
  /** A publisher that comes back within this many ms continues its recording (spec, timed rule 3: 1 minute). */
  mergeWindowMs?: number;
  /** How parts of recordings are cut (processing/cut.ts). */
  cutStrategy?: CutStrategy;
  /** Adds the /__test__ routes (clock, counters). Never on by default. */
  testHooks?: boolean;
  /** `--allow-private-network`: webhooks (and anything else the service fetches) may reach internal addresses. Local development only. */
  allowPrivateNetwork?: boolean;
  /** `--allow-any-port`: webhooks and imports may reach any port, not only 80 and 443. */
  allowAnyPort?: boolean;
  /** A PUT whose body sends nothing for this long is cut (storage origin). */
  stallTimeoutMs?: number;
  /** How long a worker's claim on a job holds unrenewed: a dead worker's job runs again after it (jobs.ts). */
  jobLeaseMs?: number;
  /** Bytes the data volume keeps free: new bytes (bodies, imports, recordings, processing) that would leave less get 507. */
  minFreeBytes?: number;
  /** Stored bytes an organization may have unless its plan says otherwise (`plan --quota-bytes`); default unlimited. */
  storageQuotaBytes?: number | null;
  /** What an upload may be and how long its processing may take (processing/pipeline.ts, DEFAULT_LIMITS). */
  limits?: Partial<ProcessingLimits>;
  /** Imports from a URL: the largest file, the longest download, header and idle timeouts (domain/imports.ts). */
  importLimits?: Partial<ImportLimits>;
  /** Videos processing per organization and per end user before new uploads get 429 (domain/videos.ts). */
  queueCaps?: Partial<QueueCaps>;
  /** How the RTMP ingest holds against strangers (live/ingest.ts, DEFAULT_INGEST_LIMITS). */
  ingestLimits?: Partial<IngestLimits>;
  /** Conversions under way per live stream and per token (domain/exports.ts, DEFAULT_CONVERSION_LIMITS). */
  conversionLimits?: Partial<ConversionLimits>;
  /** Videos waiting, links and sessions open per end user and per organization (domain/open-uploads.ts). */
  openUploadCaps?: Partial<OpenUploadCaps>;
  /** Requests a minute per token (http/api.ts, DEFAULT_RATE_LIMITS). */
  rateLimits?: Partial<RateLimits>;
  clock?: Clock;
  /** JSON log lines on stderr from this level up (log.ts); default `warn`: a service started inside another program (npm start, a test) writes only what goes wrong. The command line's `--log-level` defaults to `info`. */
  logLevel?: LogLevel;
  /** With it, GET /metrics takes it as a bearer token (http/health.ts). */
  metricsToken?: string;
  /** Where media lives: the data directory (the default) or an S3 store (storage/options.ts). */
  storage?: StorageOptions;
}

export interface Service {
  /** The line `npm run service` and `npm start` print when ready; tests and the e2e setup read the origins from it. */
  readyLine(dataDir: string): string;
  apiOrigin: string;
  /** The storage origin on each of its hosts (`--storage-hosts`), the first the one a single link (#2) names. */
  storageOrigins: string[];
  rtmpOrigin: string;
  db: Db;
  accounts: Accounts;
  api: Api;
  /** What /readyz checks: a role adds its own (`health.addCheck(name, check)`). */
  health: Health;
  close(): Promise<void>;
}

const PRUNE_EVERY_MS = 5 * 60_000;
/** The sweeper's lease (leases.ts): renewed at every pass (4 a second), so it runs out only when its holder is gone. */
const SWEEPER_LEASE = 'sweeper';
const SWEEPER_LEASE_MS = 30_000;
/** /readyz asks the object store at most this often per process (http/health.ts, cachedCheck). */
const STORE_CHECK_MS = 5_000;

/** The database's own signing secret, so signed URLs outlive a restart and every process signs alike. */
const signingSecret = async (db: Db) =>
  Buffer.from(await setting(db, 'signing_secret', () => randomBytes(32).toString('base64')), 'base64');

/** Where the service answers, known once its servers listen (modules read them through functions, called later). */
export interface Origins {
  api: string;
  /** The storage origin on each host it listens on (ports.ts, storageListens); empty in a process without it. */
  storage: string[];
  rtmp: string;
  /** Where clients reach the API (`--public-url`), when not at `api`. */
  public?: string;
}

/** The service's modules: one typed context, each module built after what it needs (buildContext). */
export interface Context {
  clock: Clock;
  db: Db;
  /** The SQLite file the database is (its readiness check watches it); undefined for PostgreSQL or in memory. */
  databaseFile?: string;
  settings: Settings;
  files: Files;
  /** Prometheus metrics of this service (its own registry): /metrics. */
  metrics: Metrics;
  jobs: Jobs;
  accounts: Accounts;
  signer: UrlSigner;
  /** Where upload bytes are kept: the local disk, taken by the storage origin (storage/local.ts). */
  store: LocalStore;
  /** With `--storage s3://…`: the store (its readiness check), and the videos' media on it (processing, playback). */
  s3?: S3Store;
  remote?: S3Media;
  videos: Videos;
  recordingMedia: RecordingMedia;
  recordings: Recordings;
  usage: Usage;
  uploads: Uploads;
  streams: LiveStreams;
  exports: Exports;
  webhooks: Webhooks;
  imports: Imports;
  ingest: Ingest;
  /** The API's rate-limit counts, in the database so that every API process counts against one budget. */
  rateLimits: RateLimitCounts;
  /** Leases that let one process of a fleet do a thing at a time (the sweeper). */
  leases: Leases;
}

/**
 * Builds every module, top down, in the order of what each needs. Where two modules need each other, the first
 * built reaches the second through a function it calls only later, once both exist; each such call is marked
 * `later:` below. Nothing listens or runs yet (startService does that).
 */
export async function buildContext(base: {
  db: Db;
  clock: Clock;
  dataDir: string;
  settings: Settings;
  origins: Origins;
  outbound: OutboundPolicy;
  /** The service's log, known once the API is built (jobs log their failures to it). */
  log: () => Pick<FastifyBaseLogger, 'error'>;
  /** Media on an S3 store rather than under dataDir. */
  s3?: S3Store;
  databaseFile?: string;
}): Promise<Context> {
  const { db, clock, settings: running, origins, outbound, databaseFile } = base;
  /** The origin of the URLs answers and webhooks carry. */
  const apiOrigin = () => origins.public ?? origins.api;
  const files = new Files(base.dataDir, running.minFreeBytes);
  const metrics: Metrics = new Metrics({
    queue: () => jobs.stats(), // later: jobs
    now: () => clock.now(),
    storedBytes: () => videos.allStoredBytes(), // later: videos
    livePublishing: () => ingest.publishing, // later: ingest
  });
  const jobs: Jobs = new Jobs(db, clock, {
    leaseMs: running.jobLeaseMs,
    events: {
      finished: metrics.jobFinished,
      failed: (job, err) => base.log().error({ err }, `${job} failed`), // later: the API's log
    },
  });
  const accounts = new Accounts({ db, clock });
  const signer = new UrlSigner(await signingSecret(db), () => origins.storage);
  const store = new LocalStore(files, signer);
  const remote = base.s3 && new S3Media(base.s3);
  const videos: Videos = new Videos({
    ...{ db, clock, jobs, files, accounts, apiOrigin },
    importOf: (id) => imports.progress(id), // later: imports
    caps: running.openUploadCaps,
    queueCaps: running.queueCaps,
    // A CDN or public bucket in front of the store serves playback itself (--media-base-url).
    ...(base.s3?.mediaBaseUrl && {
      publicMedia: (row: VideoRow) => base.s3!.publicUrl(base.s3!.keys.media(row.organization_id, row.id))!,
    }),
  });
  const recordingMedia = base.s3
    ? new S3RecordingMedia(
        base.s3,
        join(files.root, 'recordings'),
        async (id) => (await recordings.row(id))?.organization_id,
        (id, seq) => recordings.storedPart(id, seq),
      ) // later: recordings
    : new RecordingMedia();
  const recordings: Recordings = new Recordings({
    ...{ db, clock, jobs, files, media: recordingMedia, mergeWindowMs: running.mergeWindowMs },
    apiOrigin,
    // later: exports
    conversions: { entries: (id) => exports.entries(id), forget: (id, trx) => exports.forgetRecording(id, trx) },
  });
  const usage: Usage = new Usage({
    ...{ db, clock, files, accounts, videos, recordings },
    // later: exports, uploads, imports (conversions count in usage, and usage limits conversions and uploads)
    holdings: {
      pendingSeconds: (org) => exports.pendingSeconds(org),
      purgeVideos: async (ids) => (await uploads.purge(ids), await imports.purge(ids), await exports.purge(ids)),
      chunkBytes: (org) => uploads.chunkBytes(org),
    },
    defaultQuotaBytes: running.storageQuotaBytes,
  });
  const uploads = new Uploads({
    ...{ db, clock, store, videos, usage, accounts },
    apiOrigin,
    caps: running.openUploadCaps,
    ...(base.s3 ? { direct: new S3Uploads(base.s3) } : {}),
  });
  const streams: LiveStreams = new LiveStreams({
    ...{ db, clock, recordings, videos },
    rtmpOrigin: () => origins.rtmp,
    disconnect: (id) => ingest.disconnect(id), // later: ingest
  });
  const exports = new Exports({
    ...{ db, clock, jobs, files, videos, streams, recordings, usage, accounts },
    strategy: running.cutStrategy,
    bounds: { conversions: running.conversionLimits, processing: running.limits },
    ...(remote ? { remote } : {}),
  });
  const webhooks = new Webhooks({ db, clock, jobs, outbound, accounts });
  const imports = new Imports({
    ...{ db, clock, jobs, files, videos, usage, accounts, outbound },
    limits: running.importLimits,
    ...(remote ? { remote } : {}),
  });
  const ingest = new Ingest(
    streams,
    recordings,
    clock,
    { ...running.ingestLimits, minFreeBytes: files.disk.reserve },
    base.s3 && new S3Recordings(base.s3),
  );
  const rateLimits = new RateLimitCounts(db);
  const leases = new Leases(db);
  return {
    ...{
      clock,
      db,
      databaseFile,
      settings: running,
      files,
      metrics,
      jobs,
      accounts,
      signer,
      store,
      s3: base.s3,
      remote,
      videos,
      recordingMedia,
      recordings,
    },
    ...{ usage, uploads, streams, exports, webhooks, imports, ingest, rateLimits, leases },
  };
}

/** Each kind of job, its handler and how many run at once (service/jobs.ts). */
export function registerJobs(context: Context): void {
  const { jobs, videos, files, exports, uploads, webhooks, clock, imports, recordings } = context;
  // Two at a time, and one of each organization: another organization's upload never waits behind one
  // organization's huge files (a fair queue: the job runner takes the next organization's job).
  jobs.register(
    PROCESS_VIDEO,
    processVideo({
      db: context.db,
      videos,
      files,
      exports,
      uploads,
      webhooks,
      clock,
      limits: context.settings.limits,
      remote: context.remote,
    }),
    { concurrency: 2, perGroup: 1 },
  );
  // Downloads wait on the network, not the CPU: four at once, two of one organization.
  jobs.register(IMPORT_VIDEO, ({ videoId }, signal, attempt) => imports.run(videoId, signal, attempt), {
    concurrency: 4,
    perGroup: 2,
  });
  // Two at a time, one of each organization: one organization's many long recordings never hold the others'.
  jobs.register(
    FINISH_RECORDING,
    ({ recordingId }, signal, attempt) => recordings.finish(recordingId, signal, attempt),
    {
      concurrency: 2,
      perGroup: 1,
    },
  );
  jobs.register(EXPORT_RECORDING, ({ exportId }, signal, attempt) => exports.run(exportId, signal, attempt), {
    concurrency: 2,
    perGroup: 1,
  });
  // 8 deliveries at once, at most 2 of one organization: its silent receivers cannot delay the others' deliveries.
  jobs.register(DELIVER_WEBHOOK, ({ deliveryId }, signal, attempt) => webhooks.deliver(deliveryId, signal, attempt), {
    concurrency: 8,
    perGroup: 2,
  });
}

/**
 * The API (Fastify) with every route of the spec on the context's modules, /healthz, /readyz and /metrics; the test
 * hooks' routes when `testHooks` is given.
 */
export async function buildApi(
  context: Context,
  origins: Origins,
  testHooks?: Omit<Parameters<typeof testHookRoutes>[1], 'accounts' | 'clock' | 'jobs' | 'recordingWork'>,
  ops: { logLevel?: LogLevel; metricsToken?: string; sharedLimits?: boolean } = {},
): Promise<{ app: Api; health: Health }> {
  const { accounts, videos, uploads, imports, streams, recordings, exports, webhooks, usage } = context;
  const running = context.settings;
  const { app, health } = await buildHealthPort(context, origins, testHooks, ops);
  videoRoutes(app, { accounts, videos, uploads, imports, streams, settings: running });
  mediaRoutes(app, { accounts, videos, remote: context.remote });
  liveRoutes(app, {
    accounts,
    streams,
    recordings,
    exports,
    settings: running,
    recordingMedia: context.recordingMedia,
  });
  accountRoutes(app, { accounts, webhooks, usage });
  await app.ready();
  return { app, health };
}

/**
 * What every role answers on its HTTP port: /healthz, /readyz (the database and the data directory; a role adds
 * its own checks) and /metrics, and the test hooks' routes when `testHooks` is given. A role without the API
 * (worker, ingest) answers only these; buildApi adds the spec's routes.
 */
export async function buildHealthPort(
  context: Context,
  origins: Origins,
  testHooks?: Omit<Parameters<typeof testHookRoutes>[1], 'accounts' | 'clock' | 'jobs' | 'recordingWork'>,
  ops: { logLevel?: LogLevel; metricsToken?: string; sharedLimits?: boolean } = {},
): Promise<{ app: Api; health: Health }> {
  const { accounts, metrics } = context;
  const app = await createApi({
    ...{
      accounts,
      faults: testHooks?.faults,
      origin: () => origins.public ?? origins.api,
      settings: context.settings,
      metrics,
    },
    ...{ logLevel: ops.logLevel ?? 'warn', rateLimitStore: ops.sharedLimits ? context.rateLimits.store() : undefined },
  });
  const health = new Health(app.log);
  health.addCheck('database', databaseCheck(context.db, context.databaseFile));
  health.addCheck('storage', dataDirectoryCheck(context.files.root));
  const s3 = context.s3;
  if (s3)
    health.addCheck(
      'store',
      cachedCheck(STORE_CHECK_MS, () => s3.unreachable()),
    );
  healthRoutes(app, { health, metrics, metricsToken: ops.metricsToken });
  if (testHooks)
    testHookRoutes(app, {
      ...testHooks,
      ...{ clock: context.clock, accounts, jobs: context.jobs, recordingWork: context.recordingMedia.work },
    });
  return { app, health };
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const host = options.host ?? DEFAULT_HOST;
  const clock = options.clock ?? systemClock();
  const running = settings(options);
  const role = options.role ?? 'all';
  const runs = RUNS[role];
  const location = databaseLocation({ database: options.database, data: options.dataDir });
  const db = await openDatabase(location);
  const origins: Origins = { api: '', storage: [], rtmp: '', public: options.publicUrl };
  const outbound = { allowPrivateNetwork: options.allowPrivateNetwork ?? false, allowAnyPort: options.allowAnyPort };
  let log: Pick<FastifyBaseLogger, 'error'> = processLog;
  const s3 =
    options.storage?.kind === 's3' ? new S3Store({ ...options.storage.s3, now: () => clock.now() }) : undefined;
  const bucket = await s3?.ensureBucket();
  const context = await buildContext({
    ...{ db, clock, dataDir: options.dataDir, settings: running, origins, outbound, s3 },
    databaseFile: options.database ? undefined : location,
    log: () => log,
  });
  const { jobs, accounts, signer, store, recordings, usage, uploads, webhooks, ingest, leases } = context;
  registerJobs(context);

  /** What reached the storage origin (test hooks only; the last 10,000 requests). */
  const storageRequests: StorageRequest[] = [];
  const origin = new UploadOrigin(uploads, store, signer, clock);
  const faults = options.testHooks ? new Faults() : undefined;
  // The sweeper (below), one pass at a time: a pass that outlasts its interval (a slow store, a database away) is not
  // joined by more. The test hook's pass lets the one under way end first (begun before the caller moved the clock,
  // perhaps), then runs a whole pass begun after the call: nothing of either is still running when it answers.
  let sweeping: Promise<void> | undefined;
  const sweepOnce = () => (sweeping ??= sweep().finally(() => (sweeping = undefined)));
  const sweepForTest = async () => {
    await sweeping;
    await sweepOnce();
  };
  const testHooks = faults && { received: origin.received, storageRequests, faults, sweep: sweepForTest };
  // Rate limits count in the database when other processes may serve the same tokens (a role of a fleet, or a
  // database server several `all` share); one process on its own file counts in memory, a write per request spared
  // (bench/scale.bench.ts measured the database's count at half the requests a second of two API processes).
  const sharedLimits = role !== 'all' || options.database !== undefined;
  const ops = { logLevel: options.logLevel, metricsToken: options.metricsToken, sharedLimits };
  const { app, health } = runs.api
    ? await buildApi(context, origins, testHooks, ops)
    : await buildHealthPort(context, origins, testHooks, ops);
  if (!runs.api) await app.ready();
  // Each role's /readyz checks what it needs besides the database and the data directory (docs/scale.md, Roles).
  if (runs.jobs) health.addCheck('jobs', jobLoopCheck(jobs));
  if (runs.ingest)
    health.addCheck(
      'rtmp',
      listensCheck(() => origins.rtmp),
    );
  log = app.log;
  if (bucket?.cors === 'store-wide')
    app.log.warn(
      "The store takes no bucket CORS configuration: allow the pages' origins in the store's own setting (MinIO: MINIO_API_CORS_ALLOW_ORIGIN), PUT and GET, with ETag exposed, or browsers cannot upload to it.",
    );

  // The storage origin on each of its hosts (--storage-hosts): one handler, which keeps nothing per server; a link is
  // good on every host (storage/signing.ts). On an S3 store browsers PUT to the store and the flag names the store's
  // hosts (storage/s3.ts): the storage origin, which then takes no upload, listens on one.
  const storageHosts = storageListens(
    (options.storage?.kind === 'disk' ? options.storage.hosts : undefined) ?? (s3 ? 1 : DEFAULT_STORAGE_HOSTS),
    host,
    options.storagePort ?? 0,
  );
  const handler = storageHandler(
    origin,
    faults && { faults, log: (entry) => storageRequests.push(entry) > 10_000 && storageRequests.shift() },
  );
  const storages = runs.api ? storageHosts.map(() => createServer(handler)) : [];
  for (const storage of storages) {
    // Large uploads on slow links take long: no whole-request time limit on the storage origin; but a body
    // that sends nothing for a while is cut, so a stalled client holds no socket, file or lock for ever.
    storage.requestTimeout = 0;
    storage.timeout = running.stallTimeoutMs;
  }
  const servers = [app.server, ...storages];

  const listen = (server: Server, on: HostPort) =>
    new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(on.port, on.host, () =>
        resolve(httpOrigin({ host: on.host, port: (server.address() as AddressInfo).port })),
      );
    });
  try {
    origins.api = await listen(app.server, { host, port: options.port ?? 0 });
    for (const [i, storage] of storages.entries()) origins.storage.push(await listen(storage, storageHosts[i]!));
    if (runs.ingest) origins.rtmp = await ingest.listen(host, options.rtmpPort ?? 0);
  } catch (err) {
    // A port was taken: what did open closes, and the caller says which port (ports.ts).
    for (const server of servers) server.close();
    await ingest.close();
    await db.destroy();
    throw err;
  }
  // Temporary files are swept at start only by the one process of `all`: in a fleet sharing a data directory,
  // another process may be writing them now.
  if (role === 'all') await uploads.sweepOrphans();
  if (runs.jobs) await jobs.start();
  // The timed rules of the live half (merge window, 3-day retention, 15 days after a plan ends) on the service clock.
  let purging: Promise<void> | undefined;
  let prunedAt = -Infinity;
  /**
   * One pass of the sweeper; `POST /__test__/sweep` runs one and waits for it. Only the process that holds the
   * sweeper's lease sweeps (leases.ts): however many workers, each timed rule runs once per fleet at a time.
   */
  const sweep = async () => {
    if (!(await leases.take(SWEEPER_LEASE, SWEEPER_LEASE_MS).catch(() => false))) return;
    // Rows nothing reads any more, each module its own table: every few minutes, not on every pass.
    if (clock.now() - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = clock.now();
      try {
        for (const module of [accounts, jobs, webhooks, uploads]) await module.prune();
      } catch (err) {
        app.log.error({ err }, 'prune failed');
      }
    }
    purging ??= usage
      .sweep()
      .catch((err) => app.log.error({ err }, 'plan sweep failed'))
      .finally(() => (purging = undefined));
    await Promise.all([
      recordings.sweep().catch((err) => app.log.error({ err }, 'recording sweep failed')),
      uploads.sweepAbandoned().catch((err) => app.log.error({ err }, 'upload sweep failed')),
      uploads.sweepLinks().catch((err) => app.log.error({ err }, 'link sweep failed')),
      purging,
    ]);
  };
  const sweeper = runs.jobs ? setInterval(sweepOnce, 250) : undefined;

  const testHooksOn = options.testHooks ? ' (test hooks on)' : '';
  // A database server is named without its credentials (shownLocation).
  const database = options.database ? ` database ${shownLocation(options.database)}` : '';
  /** `all` keeps the line it always had (npm start and the tests read it); another role names itself and what it serves. */
  const addresses = {
    all: () => `API ${origins.api} storage ${origins.storage[0]} rtmp ${origins.rtmp}/live`,
    api: () => `API ${origins.api} storage ${origins.storage[0]}`,
    worker: () => `health ${origins.api}`,
    ingest: () => `rtmp ${origins.rtmp}/live health ${origins.api}`,
  }[role];
  // Every host of the storage origin at the end, so that what reads the line up to there reads it as before.
  const storageHostsShown = runs.api ? ` storage-hosts ${origins.storage.join(',')}` : '';
  return {
    readyLine: (dataDir) =>
      role === 'all'
        ? `Video service ready: ${addresses()} data ${dataDir}${database}${testHooksOn}${storageHostsShown}`
        : `Video service ready (role ${role}): ${addresses()} data ${dataDir}${database}${testHooksOn}${storageHostsShown}`,
    apiOrigin: origins.api,
    storageOrigins: origins.storage,
    rtmpOrigin: origins.rtmp,
    db,
    accounts,
    api: app,
    health,
    async close() {
      clearInterval(sweeper);
      await ingest.close();
      for (const server of servers) {
        server.close();
        server.closeAllConnections();
      }
      await jobs.stop();
      if (runs.jobs) await leases.release(SWEEPER_LEASE).catch(() => {});
      s3?.destroy();
      await db.destroy();
    },
  };
}
