import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { openDb, type Db } from './db.js';
import { Accounts } from './domain/accounts.js';
import { Uploads } from './domain/uploads.js';
import { PROCESS_VIDEO, Videos } from './domain/videos.js';
import { Router, sendJson } from './http/router.js';
import { Faults } from './faults.js';
import { Jobs } from './jobs.js';
import { openApiDocument } from './openapi.js';
import { MediaError } from './processing/ffmpeg.js';
import { processMedia } from './processing/pipeline.js';
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
  /** Adds the /__test__ routes (clock, counters). Never on by default. */
  testHooks?: boolean;
  clock?: Clock;
}

export interface Service {
  apiOrigin: string;
  storageOrigin: string;
  db: Db;
  accounts: Accounts;
  router: Router;
  close(): Promise<void>;
}

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
  await mkdir(options.dataDir, { recursive: true });
  const db = openDb(options.dataDir);
  const files = new Files(options.dataDir);
  const origins = { api: '', storage: '' };
  const jobs = new Jobs(db, clock);
  const accounts = new Accounts(db, clock);
  const videos = new Videos(db, clock, jobs, () => origins.api);
  const signer = new UrlSigner(signingSecret(db), () => origins.storage);
  const uploads = new Uploads(db, clock, files, signer, videos, () => origins.api);

  jobs.register(PROCESS_VIDEO, async (payload, signal) => {
    const id = payload.videoId as string;
    try {
      videos.markReady(id, await processMedia(files.source(id), files.media(id, ''), signal));
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof MediaError)) console.error(`processing ${id}:`, err);
      videos.markFailed(id, err instanceof MediaError ? err.message : `Processing failed: ${(err as Error).message}`);
    }
  });

  /** What reached the storage origin (test hooks only; the last 10,000 requests). */
  const storageRequests: StorageRequest[] = [];
  const router = new Router();
  videoRoutes(router, accounts, videos, uploads);
  mediaRoutes(router, videos, files);
  const faults = options.testHooks ? new Faults() : undefined;
  if (faults) {
    testHookRoutes(router, { clock, accounts, uploads, jobs, storageRequests, faults });
    router.before = async (route, req, res) => (await faults.apply(`${route.method} ${route.path}`, req.raw, res)) === true;
  }
  router.add('GET', '/openapi.json', (_req, res) => sendJson(res, 200, openApiDocument(origins.api)));

  const api = createServer((req, res) => {
    for (const [name, value] of Object.entries(API_CORS)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    void router.handle(req, res);
  });
  const storage = createServer(
    storageHandler(uploads, faults && { faults, log: (entry) => storageRequests.push(entry) > 10_000 && storageRequests.shift() }),
  );
  // Large uploads on slow links take long: no whole-request time limit on the storage origin.
  storage.requestTimeout = 0;

  const listen = (server: Server, port: number) =>
    new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`));
    });
  origins.api = await listen(api, options.port ?? 0);
  origins.storage = await listen(storage, options.storagePort ?? 0);
  await uploads.sweepOrphans();
  jobs.start();

  return {
    apiOrigin: origins.api,
    storageOrigin: origins.storage,
    db,
    accounts,
    router,
    async close() {
      for (const server of [api, storage]) {
        server.close();
        server.closeAllConnections();
      }
      await jobs.stop();
      db.close();
    },
  };
}
