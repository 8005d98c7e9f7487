import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApi, buildContext, type Context, type ServiceOptions } from '../../service/app.js';
import { testClock } from '../../service/clock.js';
import { openDatabase } from '../../service/db/index.js';
import { settings } from '../../service/settings.js';

/** An answer of `app.inject()`: its status, its JSON body, its headers. */
export interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface DomainUnderTest {
  context: Context;
  /** An organization's key (scope `key`), made through the domain as `main.ts token` does. */
  key: string;
  call(method: 'GET' | 'POST' | 'DELETE', path: string, options?: { token?: string; body?: unknown }): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * The service's modules and routes on an in-memory database and a clock that moves only when the test says, with
 * requests through Fastify's `app.inject()`: no socket and no service process. For rules that are rules only
 * (expiry, caps, scopes, list checks); storage, RTMP and the browser keep their real sockets (test/service).
 */
export async function domainUnderTest(
  options: Omit<ServiceOptions, 'dataDir' | 'clock'> = {},
): Promise<DomainUnderTest> {
  // Files checks the free space of its folder (statfs); nothing is written to it by these rules.
  const dataDir = await mkdtemp(join(tmpdir(), 'domain-'));
  const db = await openDatabase(':memory:');
  const origins = { api: 'http://127.0.0.1:1', storage: ['http://127.0.0.1:2'], rtmp: 'rtmp://127.0.0.1:3' };
  const context = await buildContext({
    ...{ db, clock: testClock(), dataDir, origins },
    settings: settings({ ...options, dataDir }),
    outbound: { allowPrivateNetwork: false },
    log: () => ({ error: (...args: unknown[]) => console.error(...args) }),
  });
  const { app } = await buildApi(context, origins);
  return {
    context,
    key: await context.accounts.createToken('acme'),
    async call(method, path, { token, body } = {}) {
      const res = await app.inject({
        method,
        url: path,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
    },
    async close() {
      await app.close();
      await db.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
