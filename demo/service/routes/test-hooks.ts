import type { Clock } from '../clock.js';
import type { Accounts } from '../domain/accounts.js';
import type { Uploads } from '../domain/uploads.js';
import { badField } from '../http/errors.js';
import { readJson, sendJson, show, type Router } from '../http/router.js';
import type { Faults } from '../faults.js';
import type { Jobs } from '../jobs.js';
import type { StorageRequest } from '../storage/server.js';

/** Routes that exist only with --test-hooks: tests move the clock and read counters through them. */
export function testHookRoutes(
  router: Router,
  deps: { clock: Clock; accounts: Accounts; uploads: Uploads; jobs: Jobs; storageRequests: StorageRequest[]; faults: Faults; sweep: () => Promise<void> },
): void {
  router.add('POST', '/__test__/clock', async (req, res) => {
    const { advanceMs } = await readJson(req);
    if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs) || advanceMs < 0) {
      throw badField('advanceMs', `advanceMs must be a number of milliseconds, 0 or more; got ${show(advanceMs)}.`);
    }
    sendJson(res, 200, { now: deps.clock.advance(advanceMs) });
  });

  // Bytes the storage received for a video (single link) or a session key (multipart), failed attempts included.
  router.add('GET', '/__test__/received/{id}', (req, res) => {
    sendJson(res, 200, { bytes: deps.uploads.received.get(req.params.id!) ?? 0 });
  });

  router.add('POST', '/__test__/expire-token', async (req, res) => {
    const { token } = await readJson(req);
    if (typeof token !== 'string') throw badField('token', `token must be a string; got ${show(token)}.`);
    sendJson(res, 200, { expired: deps.accounts.expireToken(token) });
  });

  // Faults on demand (see faults.ts). An empty body clears them.
  router.add('POST', '/__test__/faults', async (req, res) => {
    deps.faults.set(await readJson(req));
    sendJson(res, 200, { ok: true });
  });

  router.add('GET', '/__test__/storage-requests', (_req, res) => sendJson(res, 200, { requests: deps.storageRequests }));

  // One whole pass of the sweeper (merge window, retention, plan end) at the service clock's now: after it,
  // a test knows what is due has been done, and what is not due has been left.
  router.add('POST', '/__test__/sweep', async (_req, res) => {
    await deps.sweep();
    sendJson(res, 200, { swept: true });
  });

  router.add('POST', '/__test__/jobs/idle', async (_req, res) => {
    await deps.jobs.idle();
    sendJson(res, 200, { idle: true });
  });
}
