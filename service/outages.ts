import { clientMessage, ServiceError } from './domain/errors.js';
import { RetryAt } from './jobs.js';

/**
 * Decision (issue 30, item 5: "PostgreSQL restarted under load: … nothing lost"): work of a job that fails because an
 * engine is away for a while (the database restarting or unreachable, the object store down or refusing the service)
 * is not the media's fault nor the user's, and is not recorded as a failure of the video, import or conversion: the
 * job runs again after these waits, measured from each failed try. Eight tries over about 19 minutes outlast a
 * database restart or failover and a store's restart; after them the work fails and says which engine was away.
 */
export const OUTAGE_RETRY_WAITS_MS = [2_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000];

/** PostgreSQL's SQLSTATEs of a server shutting down, starting up, or out of connections; 08xxx are the connection's. */
const DATABASE_AWAY = new Set(['57P01', '57P02', '57P03', '53300']);
/** pg's own errors for a connection lost (they carry no SQLSTATE). */
const CONNECTION_LOST = /^Connection terminated|is not queryable|timeout exceeded when trying to connect/;
/** The network's codes for a server that did not answer: the database's when it reaches this module (see isOutage). */
const NETWORK_AWAY = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** The S3 SDK's names for a store that is busy or failing (s3.ts wraps them as storage_unavailable; one unwrapped counts too). */
const STORE_AWAY = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout']);

/**
 * Whether `err` says an engine is away, not that the work is wrong: the object store (s3.ts's `storage_unavailable`,
 * or an S3 answer 5xx / SlowDown), or the database (a connection refused, reset or terminated; PostgreSQL shutting
 * down or starting; SQLite's file locked past its busy timeout). A network code counts as the database's: the jobs
 * that reach a stranger's server (an import's download, a webhook delivery) turn its errors into their own first.
 */
export function isOutage(err: unknown): boolean {
  if (err instanceof ServiceError) return err.code === 'storage_unavailable';
  if (!(err instanceof Error)) return false;
  const { code, $metadata } = err as { code?: unknown; $metadata?: { httpStatusCode?: number } };
  if (typeof code === 'string') {
    if (DATABASE_AWAY.has(code) || code.startsWith('08') || NETWORK_AWAY.has(code)) return true;
    if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
  }
  if (CONNECTION_LOST.test(err.message)) return true;
  if (STORE_AWAY.has(err.name) || ($metadata?.httpStatusCode ?? 0) >= 500) return true;
  // A connection to every address of a name refused (Node's AggregateError), or an error wrapping the cause.
  if (err instanceof AggregateError && err.errors.some(isOutage)) return true;
  return err.cause !== undefined && isOutage(err.cause);
}

/**
 * What a job's handler does with an error of its work (`attempt`: its run, 1 on the first). A RetryAt is thrown again
 * as it is; an outage (isOutage) is thrown as a RetryAt after the next wait while tries remain, and after the last
 * one comes back as the sentence the failure records. Anything else comes back undefined: the work's own failure,
 * which the caller records in its own words.
 */
export function retryOutage(err: unknown, attempt: number, now: number): string | undefined {
  if (err instanceof RetryAt) throw err;
  if (!isOutage(err)) return undefined;
  // Only the store's errors are ServiceErrors (s3.ts) or S3 answers (with $metadata).
  const store = err instanceof ServiceError || (err as { $metadata?: unknown }).$metadata !== undefined;
  const engine = store ? 'the object store' : 'the database';
  const why = (err as Error).message;
  const wait = OUTAGE_RETRY_WAITS_MS[attempt - 1];
  if (wait !== undefined) throw new RetryAt(now + wait, `${engine} is away, trying again: ${why}`);
  const minutes = Math.round(OUTAGE_RETRY_WAITS_MS.reduce((a, b) => a + b, 0) / 60_000);
  // Recorded as the video's (or import's, or conversion's) failure reason, which its owner reads: no store address.
  const said = clientMessage(err).replace(/\.$/, '');
  return `${engine} was unavailable at each of ${attempt} tries over about ${minutes} minutes (${said})`;
}
