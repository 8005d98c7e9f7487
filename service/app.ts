import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { openDb, setting, type Db } from './db.js';
import { Accounts } from './domain/accounts.js';
import { EXPORT_RECORDING, Exports, type ConversionLimits } from './domain/exports.js';
import { FINISH_RECORDING, LiveStreams, Recordings } from './domain/live.js';
import { processVideo } from './domain/ready.js';
import { Usage } from './domain/usage.js';
import { DELIVER_WEBHOOK, Webhooks } from './domain/webhooks.js';
import { Uploads } from './domain/uploads.js';
import { PROCESS_VIDEO, Videos, type QueueCaps } from './domain/videos.js';
import { IMPORT_VIDEO, Imports, type ImportLimits } from './domain/imports.js';
import type { OpenUploadCaps } from './domain/open-uploads.js';
import { createApi, type Api, type RateLimits } from './http/api.js';
import { Faults } from './faults.js';
import { dataDirectoryCheck, Health, healthRoutes, sqliteCheck } from './http/health.js';
import type { LogLevel } from './log.js';
import { Metrics } from './metrics.js';
import { queueStats, storedSourceBytes } from './queue-stats.js';
import { Jobs } from './jobs.js';
import { Ingest, type IngestLimits } from './live/ingest.js';
import type { CutStrategy } from './processing/cut.js';
import type { ProcessingLimits } from './processing/pipeline.js';
import { accountRoutes } from './routes/account.js';
import { liveRoutes } from './routes/live.js';
import { mediaRoutes } from './routes/media.js';
import { testHookRoutes } from './routes/test-hooks.js';
import { videoRoutes } from './routes/videos.js';
import { Files } from './storage/files.js';
import { storageHandler, type StorageRequest } from './storage/server.js';
import { UrlSigner } from './storage/signing.js';
import { settings } from './settings.js';
import { DEFAULT_HOST } from './ports.js';

/** How to start a service; a tunable left out takes its default (settings.ts, DEFAULTS). */
export interface ServiceOptions {
  dataDir: string;
  host?: string;
  /** API port ({base_url}); 0 picks a free one. */
  port?: number;
  /** Storage port ({upload_url}); 0 picks a free one. */
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
}

export interface Service {
  /** The line `npm run service` and `npm start` print when ready; tests and the e2e setup read the origins from it. */
  readyLine(dataDir: string): string;
  apiOrigin: string;
  storageOrigin: string;
  rtmpOrigin: string;
  db: Db;
  accounts: Accounts;
  api: Api;
  /** What /readyz checks: a role adds its own (`health.addCheck(name, check)`). */
  health: Health;
  close(): Promise<void>;
}

const PRUNE_EVERY_MS = 5 * 60_000;

/** The data directory's own signing secret, so signed URLs outlive a restart. */
const signingSecret = (db: Db) =>
  Buffer.from(
    setting(db, 'signing_secret', () => randomBytes(32).toString('base64')),
    'base64',
  );

export async function startService(options: ServiceOptions): Promise<Service> {
  const host = options.host ?? DEFAULT_HOST;
  const clock = options.clock ?? systemClock();
  const running = settings(options);
  const db = openDb(options.dataDir);
  const files = new Files(options.dataDir, running.minFreeBytes);
  const origins = { api: '', storage: '', rtmp: '' };
  const metrics = new Metrics({
    queue: () => queueStats(db, clock.now()),
    now: () => clock.now(),
    storedBytes: () => storedSourceBytes(db),
    livePublishing: () => ingest.publishing,
  });
  // The log is the API's (made below); a job fails only once the jobs have started, after it exists.
  const jobs = new Jobs(db, clock, {
    finished: metrics.jobFinished,
    failed: (job, err) => app.log.error({ err }, `${job} failed`),
  });
  const accounts = new Accounts(db, clock);
  const { limits, openUploadCaps } = running;
  const videos = new Videos(
    db,
    clock,
    jobs,
    () => origins.api,
    files,
    (id) => imports.progress(id),
    openUploadCaps,
    running.queueCaps,
  );
  const signer = new UrlSigner(signingSecret(db), () => origins.storage);
  // Where two modules need each other (conversions count in usage, and usage limits conversions), the first
  // reaches the second through a function it calls only once both exist.
  const recordings: Recordings = new Recordings(
    db,
    clock,
    jobs,
    files,
    running.mergeWindowMs,
    () => origins.api,
    (id) => exports.entries(id),
  );
  const usage: Usage = new Usage(
    clock,
    files,
    accounts,
    videos,
    recordings,
    {
      pendingSeconds: (org) => exports.pendingSeconds(org),
      purgeVideos: async (ids) => (await uploads.purge(ids), imports.purge(ids), exports.purge(ids)),
      chunkBytes: (org) => uploads.chunkBytes(org),
    },
    running.storageQuotaBytes,
  );
  const uploads: Uploads = new Uploads(
    db,
    clock,
    files,
    signer,
    videos,
    usage,
    () => origins.api,
    accounts,
    openUploadCaps,
  );
  const streams: LiveStreams = new LiveStreams(
    db,
    clock,
    () => origins.rtmp,
    recordings,
    videos,
    (id) => ingest.disconnect(id),
  );
  const exports: Exports = new Exports(
    db,
    clock,
    jobs,
    files,
    videos,
    streams,
    recordings,
    usage,
    running.cutStrategy,
    { conversions: running.conversionLimits, processing: limits },
  );
  const outbound = { allowPrivateNetwork: options.allowPrivateNetwork ?? false, allowAnyPort: options.allowAnyPort };
  const webhooks = new Webhooks(db, clock, jobs, outbound);
  const imports: Imports = new Imports(db, clock, jobs, files, videos, usage, outbound, running.importLimits);
  const ingest: Ingest = new Ingest(streams, recordings, clock, {
    ...running.ingestLimits,
    minFreeBytes: files.disk.reserve,
  });

  // Two at a time, and one of each organization: another organization's upload never waits behind one
  // organization's huge files (a fair queue: the job runner takes the next organization's job).
  jobs.register(PROCESS_VIDEO, processVideo({ videos, files, exports, uploads, webhooks, clock, limits }), 2, 1);
  // Downloads wait on the network, not the CPU: four at once, two of one organization.
  jobs.register(IMPORT_VIDEO, (payload, signal) => imports.run(payload.videoId as string, signal), 4, 2);
  // Two at a time, one of each organization: one organization's many long recordings never hold the others'.
  jobs.register(FINISH_RECORDING, (payload, signal) => recordings.finish(payload.recordingId as string, signal), 2, 1);
  jobs.register(EXPORT_RECORDING, (payload, signal) => exports.run(payload.exportId as string, signal), 2, 1);
  // 8 deliveries at once, at most 2 of one organization: its silent receivers cannot delay the others' deliveries.
  jobs.register(DELIVER_WEBHOOK, (payload, signal) => webhooks.deliver(payload.deliveryId as string, signal), 8, 2);

  /** What reached the storage origin (test hooks only; the last 10,000 requests). */
  const storageRequests: StorageRequest[] = [];
  const faults = options.testHooks ? new Faults() : undefined;
  const app = await createApi({
    accounts,
    faults,
    origin: () => origins.api,
    settings: running,
    metrics,
    logLevel: options.logLevel ?? 'warn',
  });
  const health = new Health(app.log);
  health.addCheck('database', sqliteCheck(db));
  health.addCheck('storage', dataDirectoryCheck(options.dataDir));
  healthRoutes(app, { health, metrics, metricsToken: options.metricsToken });
  videoRoutes(app, { accounts, videos, uploads, imports, streams, settings: running });
  mediaRoutes(app, { accounts, videos });
  liveRoutes(app, { accounts, streams, recordings, exports, settings: running });
  accountRoutes(app, { accounts, webhooks, usage });
  if (faults)
    testHookRoutes(app, {
      ...{ clock, accounts, uploads, jobs, storageRequests, faults, sweep: () => sweep() },
      recordingWork: recordings.work,
    });
  await app.ready();

  const storage = createServer(
    storageHandler(
      uploads,
      faults && { faults, log: (entry) => storageRequests.push(entry) > 10_000 && storageRequests.shift() },
    ),
  );
  // Large uploads on slow links take long: no whole-request time limit on the storage origin; but a body
  // that sends nothing for a while is cut, so a stalled client holds no socket, file or lock for ever.
  storage.requestTimeout = 0;
  storage.timeout = running.stallTimeoutMs;

  const listen = (server: Server, port: number) =>
    new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`));
    });
  try {
    origins.api = await listen(app.server, options.port ?? 0);
    origins.storage = await listen(storage, options.storagePort ?? 0);
    origins.rtmp = await ingest.listen(host, options.rtmpPort ?? 0);
  } catch (err) {
    // A port was taken: what did open closes, and the caller says which port (ports.ts).
    for (const server of [app.server, storage]) server.close();
    await ingest.close();
    db.close();
    throw err;
  }
  await uploads.sweepOrphans();
  recordings.interrupted();
  jobs.start();
  // The timed rules of the live half (merge window, 3-day retention, 15 days after a plan ends) on the service clock.
  let purging: Promise<void> | undefined;
  let prunedAt = -Infinity;
  /** One pass of the sweeper; `POST /__test__/sweep` runs one and waits for it. */
  const sweep = async () => {
    // Rows nothing reads any more, each module its own table: every few minutes, not on every pass.
    if (clock.now() - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = clock.now();
      try {
        for (const module of [accounts, jobs, webhooks, uploads]) module.prune();
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
      purging,
    ]);
  };
  const sweeper = setInterval(() => void sweep(), 250);

  return {
    readyLine: (dataDir) =>
      `Video service ready: API ${origins.api} storage ${origins.storage} rtmp ${origins.rtmp}/live data ${dataDir}${options.testHooks ? ' (test hooks on)' : ''}`,
    apiOrigin: origins.api,
    storageOrigin: origins.storage,
    rtmpOrigin: origins.rtmp,
    db,
    accounts,
    api: app,
    health,
    async close() {
      clearInterval(sweeper);
      await ingest.close();
      for (const server of [app.server, storage]) {
        server.close();
        server.closeAllConnections();
      }
      await jobs.stop();
      db.close();
    },
  };
}
