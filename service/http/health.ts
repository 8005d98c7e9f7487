import { randomUUID, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { ServiceError } from '../domain/errors.js';
import type { Metrics } from '../metrics.js';
import type { Api } from './api.js';

/** A readiness check: resolves when what it checks works, throws (a `CheckFailed` says why in words) when not. */
export type Check = () => unknown;

/** A check's failure in words an operator may read on /readyz: no path, no address, no secret. */
export class CheckFailed extends Error {}

/** A check that has not answered in this long has failed: a load balancer's probe must not hang on a stuck engine. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * What /readyz asks: each part of the service registers its checks (the database, the storage; a worker or an
 * ingest role adds its own), and the answer lists them all by name.
 */
export class Health {
  private readonly checks = new Map<string, Check>();

  constructor(private readonly log: FastifyBaseLogger) {}

  addCheck(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  /** Every check at once, each within CHECK_TIMEOUT_MS. A failure's details (paths included) go to the log only. */
  async run(): Promise<{ name: string; ok: boolean; reason?: string }[]> {
    return Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve().then(check),
            new Promise((_, reject) => {
              timer = setTimeout(
                () => reject(new CheckFailed(`no answer in ${CHECK_TIMEOUT_MS} ms`)),
                CHECK_TIMEOUT_MS,
              );
            }),
          ]);
          return { name, ok: true };
        } catch (err) {
          this.log.warn({ check: name, err }, 'readiness check failed');
          return { name, ok: false, reason: reason(err) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }
}

/** A failure as a reader may see it: a CheckFailed's words, a system error's code (ENOSPC, ENOTDIR), or "error". */
function reason(err: unknown): string {
  if (err instanceof CheckFailed) return err.message;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? `${code}` : 'error';
}

/**
 * The database answers a trivial query (PostgreSQL: the server is reachable; a pool reconnects by itself after a
 * restart), and a SQLite database from the file it was opened on (`file`): SQLite keeps answering from a file that
 * was moved or deleted under it (it holds it open), and what it writes there is lost at the next start: that
 * service is not ready, though `SELECT 1` works.
 */
export function databaseCheck(db: Db, file?: string): Check {
  // An in-memory database (a rule's fast test) has no file to move away.
  const opened = file === undefined || file === ':memory:' ? undefined : statSync(file).ino;
  return async () => {
    await sql`SELECT 1`.execute(db);
    if (opened === undefined) return;
    const now = await stat(file!).catch(() => undefined);
    if (now?.ino !== opened) throw new CheckFailed('the database file is no longer where the service opened it');
  };
}

/**
 * The data directory takes a new file: it is there, writable and not full. A tiny file written and removed per
 * probe: a load balancer asks every few seconds, which is nothing next to the uploads it guards.
 */
export function dataDirectoryCheck(dataDir: string): Check {
  return async () => {
    // A name of its own per probe: two probes at once never remove each other's file.
    const probe = join(dataDir, `.readyz-${randomUUID()}`);
    await writeFile(probe, 'ok');
    await rm(probe);
  };
}

/**
 * A check that asks an engine elsewhere (the object store), answered from its last result for `ms`: /readyz takes no
 * token, so probes (or strangers) at any rate cost the engine one request per `ms` per process.
 */
export function cachedCheck(ms: number, check: () => Promise<string | undefined>): Check {
  let last: { at: number; failed: Promise<string | undefined> } | undefined;
  return async () => {
    if (!last || Date.now() - last.at >= ms) last = { at: Date.now(), failed: check() };
    const failed = await last.failed;
    if (failed) throw new CheckFailed(failed);
  };
}

/** A job loop that has not looked for due jobs in this long is stuck (it looks every 250 ms and when a slot frees). */
const JOB_LOOP_STALE_MS = 10_000;

/** A worker's job loop is alive: it looked for due jobs lately, and the database answered it. */
export function jobLoopCheck(jobs: { lookedAt: number }): Check {
  return () => {
    if (Date.now() - jobs.lookedAt > JOB_LOOP_STALE_MS)
      throw new CheckFailed(`the job loop has not looked for jobs in ${JOB_LOOP_STALE_MS / 1000} s`);
  };
}

/** Something takes connections at `origin` (the ingest's RTMP port): a TCP connection opens, and is closed at once. */
export function listensCheck(origin: () => string): Check {
  return () =>
    new Promise<void>((resolve, reject) => {
      const { hostname, port } = new URL(origin());
      const socket = connect({ host: hostname, port: Number(port) }, () => (socket.destroy(), resolve()));
      socket.once('error', () => reject(new CheckFailed('the port does not take connections')));
    });
}

/**
 * GET /healthz, /readyz and /metrics on the API origin: for load balancers, orchestrators and Prometheus, not for
 * integrators, so they take no API token, are never rate limited and stay out of /openapi.json (the integrators'
 * contract; docs/operations.md documents these three).
 *
 * Decision: /metrics is open unless the service was given a metrics token (`--metrics-token-file`); then it takes
 * `Authorization: Bearer <that token>`. The service binds 127.0.0.1 by default, so without a token only this
 * machine reads it; an API behind a public load balancer should either have a token or not route /metrics.
 */
export function healthRoutes(app: Api, { health, metrics, metricsToken }: HealthRouteOptions): void {
  const hide = { schema: { hide: true } };
  // Alive: the process answers. No engine is asked, so a slow database never gets a live process restarted.
  app.get('/healthz', hide, async () => ({ status: 'ok' }));
  app.get('/readyz', hide, async (_req, reply) => {
    const checks = await health.run();
    const ready = checks.every((c) => c.ok);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'failed', checks });
  });
  app.get('/metrics', hide, async (req, reply) => {
    if (metricsToken !== undefined && !sameSecret(req.headers.authorization ?? '', `Bearer ${metricsToken}`))
      throw new ServiceError(
        'unauthorized',
        'GET /metrics takes the metrics token (--metrics-token-file) as a bearer token.',
      );
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

export interface HealthRouteOptions {
  health: Health;
  metrics: Metrics;
  /** With it, /metrics takes it as a bearer token. */
  metricsToken?: string;
}

const sameSecret = (given: string, expected: string) => {
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
};
