import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { openDb, type Db } from './db.js';
import { Accounts } from './domain/accounts.js';
import { EXPORT_RECORDING, Exports } from './domain/exports.js';
import { DEFAULT_MERGE_WINDOW_MS, FINISH_RECORDING, LiveStreams, Recordings } from './domain/live.js';
import { Usage } from './domain/usage.js';
import { DELIVER_WEBHOOK, Webhooks } from './domain/webhooks.js';
import { Uploads } from './domain/uploads.js';
import { PROCESS_VIDEO, Videos } from './domain/videos.js';
import { HttpError, sendError } from './http/errors.js';
import { Router, sendJson } from './http/router.js';
import { Faults } from './faults.js';
import { Jobs } from './jobs.js';
import { openApiDocument } from './openapi.js';
import { MediaError } from './processing/ffmpeg.js';
import { DEFAULT_INGEST_LIMITS, Ingest, type IngestLimits } from './live/ingest.js';
import type { CutStrategy } from './processing/cut.js';
import { DEFAULT_LIMITS, processMedia, type ProcessingLimits } from './processing/pipeline.js';
import { accountRoutes } from './routes/account.js';
import { liveRoutes } from './routes/live.js';
import { mediaRoutes } from './routes/media.js';
import { testHookRoutes } from './routes/test-hooks.js';
import { videoRoutes } from './routes/videos.js';
import { Files } from './storage/files.js';
import { storageHandler, type StorageRequest } from './storage/server.js';
import { UrlSigner } from './storage/signing.js';

export interface ServiceOptions {
  dataDir: string;
  host?: string;
  /** API port ({base_url}); 0 picks a free one. */
  port?: number;
  /** Storage port ({upload_url}); 0 picks a free one. */
  storagePort?: number;
  /** RTMP ingest port; 0 picks a free one. */
  rtmpPort?: number;
  /** A publisher that comes back within this many ms continues its recording (spec: 1 minute). */
  mergeWindowMs?: number;
  /** How parts of recordings are cut (processing/cut.ts). */
  cutStrategy?: CutStrategy;
  /** Adds the /__test__ routes (clock, counters). Never on by default. */
  testHooks?: boolean;
  /** `--allow-private-network`: webhooks (and anything else the service fetches) may reach internal addresses. Local development only. */
  allowPrivateNetwork?: boolean;
  /** A PUT whose body sends nothing for this long is cut (storage origin). Default 60 s. */
  stallTimeoutMs?: number;
  /** Bytes the data volume keeps free: uploads that would leave less get 507. Default 256 MiB. */
  minFreeBytes?: number;
  /** What an upload may be and how long its processing may take (processing/pipeline.ts, DEFAULT_LIMITS). */
  limits?: Partial<ProcessingLimits>;
  /** How the RTMP ingest holds against strangers (live/ingest.ts, DEFAULT_INGEST_LIMITS). */
  ingestLimits?: Partial<IngestLimits>;
  clock?: Clock;
}

export interface Service {
  /** The line `npm run service` and `npm start` print when ready; tests and the e2e setup read the origins from it. */
  readyLine(dataDir: string): string;
  apiOrigin: string;
  storageOrigin: string;
  rtmpOrigin: string;
  db: Db;
  accounts: Accounts;
  router: Router;
  close(): Promise<void>;
}

/** Decisions (README): how long a PUT body may send nothing, and how much of the data volume stays free. */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;
export const DEFAULT_MIN_FREE_BYTES = 256 * 1024 * 1024;

const API_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-expose-headers': 'Retry-After, Content-Length, Content-Range',
  'access-control-max-age': '600',
};

/** The data directory's own signing secret, so signed URLs outlive a restart. */
function signingSecret(db: Db): Buffer {
  const row = db.prepare(`SELECT value FROM settings WHERE name = 'signing_secret'`).get() as { value: string } | undefined;
  if (row) return Buffer.from(row.value, 'base64');
  const secret = randomBytes(32);
  db.prepare(`INSERT INTO settings (name, value) VALUES ('signing_secret', ?)`).run(secret.toString('base64'));
  return secret;
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? systemClock();
  const db = openDb(options.dataDir);
  const files = new Files(options.dataDir);
  const origins = { api: '', storage: '', rtmp: '' };
  const jobs = new Jobs(db, clock);
  const accounts = new Accounts(db, clock);
  const videos = new Videos(db, clock, jobs, () => origins.api);
  const signer = new UrlSigner(signingSecret(db), () => origins.storage);
  const uploads = new Uploads(db, clock, files, signer, videos, () => origins.api, options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES);
  const recordings = new Recordings(db, clock, jobs, files, options.mergeWindowMs ?? DEFAULT_MERGE_WINDOW_MS, () => origins.api);
  const usage = new Usage(db, clock, files, recordings);
  const exports = new Exports(db, clock, jobs, files, videos, recordings, usage, options.cutStrategy ?? 'whole');
  const webhooks = new Webhooks(db, clock, jobs, { allowPrivateNetwork: options.allowPrivateNetwork ?? false });
  const streams = new LiveStreams(db, clock, () => origins.rtmp);
  const ingest = new Ingest(streams, recordings, clock, { ...DEFAULT_INGEST_LIMITS, ...options.ingestLimits });

  jobs.register(PROCESS_VIDEO, async (payload, signal) => {
    const id = payload.videoId as string;
    try {
      videos.markReady(id, await processMedia(files.source(id), files.media(id, ''), signal, { ...DEFAULT_LIMITS, ...options.limits }));
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof MediaError)) console.error(`processing ${id}:`, err);
      videos.markFailed(id, err instanceof MediaError ? err.message : `Processing failed: ${(err as Error).message}`);
    }
    await exports.videoDone(id);
    // Decision: every video that becomes ready announces it, uploaded or converted from a recording.
    const row = videos.row(id);
    if (row?.status === 'ready') {
      webhooks.emit(row.organization_id, row.environment, 'video-ready', { _id: id, mediainfo: videos.details(row).mediainfo });
    }
    // Two at a time, and one of each organization: another organization's upload never waits behind one
    // organization's huge files (a fair queue: the job runner takes the next organization's job).
  }, 2, 1);
  jobs.register(FINISH_RECORDING, (payload, signal) => recordings.finish(payload.recordingId as string, signal));
  jobs.register(EXPORT_RECORDING, (payload, signal) => exports.run(payload.exportId as string, signal), 2, 1);
  // 8 deliveries at once, at most 2 of one organization: its silent receivers cannot delay the others' deliveries.
  jobs.register(DELIVER_WEBHOOK, (payload, signal) => webhooks.deliver(payload.deliveryId as string, signal), 8, 2);

  /** What reached the storage origin (test hooks only; the last 10,000 requests). */
  const storageRequests: StorageRequest[] = [];
  const router = new Router();
  videoRoutes(router, accounts, videos, uploads, usage, streams);
  mediaRoutes(router, videos, files);
  liveRoutes(router, { accounts, streams, recordings, exports, ingest, files });
  accountRoutes(router, accounts, webhooks, usage);
  const faults = options.testHooks ? new Faults() : undefined;
  if (faults) {
    testHookRoutes(router, { clock, accounts, uploads, jobs, storageRequests, faults, sweep: () => sweep() });
    router.before = async (route, req, res) => (await faults.apply(`${route.method} ${route.path}`, req.raw, res)) === true;
  }
  router.add('GET', '/openapi.json', (_req, res) => sendJson(res, 200, openApiDocument(origins.api)));

  const api = createServer((req, res) => {
    // Test hooks are for the test process, never for a page: no CORS headers, and a POST must say
    // application/json, which a page can only send cross-origin after a preflight these routes never grant
    // (a form or a text/plain POST, which needs none, is refused).
    if (faults && req.url?.startsWith('/__test__/')) {
      if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        return void sendError(res, new HttpError(415, 'unsupported_media_type', 'Test hooks take application/json only.'));
      }
      return void router.handle(req, res);
    }
    for (const [name, value] of Object.entries(API_CORS)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    void router.handle(req, res);
  });
  const storage = createServer(
    storageHandler(uploads, faults && { faults, log: (entry) => storageRequests.push(entry) > 10_000 && storageRequests.shift() }),
  );
  // Large uploads on slow links take long: no whole-request time limit on the storage origin; but a body
  // that sends nothing for a while is cut, so a stalled client holds no socket, file or lock for ever.
  storage.requestTimeout = 0;
  storage.timeout = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;

  const listen = (server: Server, port: number) =>
    new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`));
    });
  origins.api = await listen(api, options.port ?? 0);
  origins.storage = await listen(storage, options.storagePort ?? 0);
  origins.rtmp = await ingest.listen(host, options.rtmpPort ?? 0);
  await uploads.sweepOrphans();
  recordings.interrupted();
  jobs.start();
  // The timed rules of the live half (merge window, 3-day retention, 15 days after a plan ends) on the service clock.
  let purging: Promise<void> | undefined;
  /** One pass of the sweeper; `POST /__test__/sweep` runs one and waits for it. */
  const sweep = async () => {
    purging ??= usage
      .sweep()
      .catch((err) => console.error('plan sweep:', err))
      .finally(() => (purging = undefined));
    await Promise.all([
      recordings.sweep().catch((err) => console.error('recording sweep:', err)),
      uploads.sweepAbandoned().catch((err) => console.error('upload sweep:', err)),
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
    router,
    async close() {
      clearInterval(sweeper);
      await ingest.close();
      for (const server of [api, storage]) {
        server.close();
        server.closeAllConnections();
      }
      await jobs.stop();
      db.close();
    },
  };
}
