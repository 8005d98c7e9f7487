/**
 * The scale suite's engines as its tests see them: scripts/with-engines.ts starts them once per run and writes
 * their addresses and credentials into these environment variables; each test file reads them with
 * `scaleEngines()`. The AWS variables are the SDK's own, so a service started with this environment finds the
 * store's credentials the way it would in production.
 */
import { storeRequests, waitForStoreRequests, type StoreRequest } from './ceph.js';

export interface ScaleEngines {
  /** A PostgreSQL server's own database (`postgres://…/postgres`): make a database of your own in it. */
  databaseUrl: string;
  s3: {
    endpoint: string;
    region: string;
    /** A bucket made for this run; a test that changes a bucket's settings makes its own. */
    bucket: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  /** Every request the store has answered so far, from its own log (method, path, status, user). */
  storeRequests(): Promise<StoreRequest[]>;
  /** The store's requests once `match` holds for them (its log is written a moment after it answers). */
  waitForStoreRequests(match: (requests: StoreRequest[]) => boolean, timeoutMs?: number): Promise<StoreRequest[]>;
}

/** What with-engines.ts sets: the variable names are written here once. */
export function engineVariables(engines: {
  databaseUrl: string;
  s3: ScaleEngines['s3'];
  storeLog: string;
}): Record<string, string> {
  return {
    SCALE_DATABASE_URL: engines.databaseUrl,
    SCALE_S3_ENDPOINT: engines.s3.endpoint,
    SCALE_S3_BUCKET: engines.s3.bucket,
    SCALE_S3_LOG: engines.storeLog,
    AWS_REGION: engines.s3.region,
    AWS_ACCESS_KEY_ID: engines.s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: engines.s3.credentials.secretAccessKey,
  };
}

export function scaleEngines(): ScaleEngines {
  const variable = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: run the scale suite under scripts/with-engines.ts`);
    return value;
  };
  const log = variable('SCALE_S3_LOG');
  return {
    databaseUrl: variable('SCALE_DATABASE_URL'),
    s3: {
      endpoint: variable('SCALE_S3_ENDPOINT'),
      region: variable('AWS_REGION'),
      bucket: variable('SCALE_S3_BUCKET'),
      credentials: { accessKeyId: variable('AWS_ACCESS_KEY_ID'), secretAccessKey: variable('AWS_SECRET_ACCESS_KEY') },
    },
    storeRequests: () => storeRequests(log),
    waitForStoreRequests: (match, timeoutMs) => waitForStoreRequests(log, match, timeoutMs),
  };
}
