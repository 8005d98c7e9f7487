import { Type } from 'typebox';
import type { Clock } from '../clock.js';
import type { Accounts } from '../domain/accounts.js';
import { FAULT_ACTIONS, type Faults } from '../faults.js';
import { op, params, type Api } from '../http/api.js';
import type { Jobs } from '../jobs.js';
import type { RecordingWork } from '../live/storyboard.js';
import type { StorageRequest } from '../storage/server.js';

const Done = (name: string) => Type.Object({ [name]: Type.Boolean() });
export const FaultsRequest = Type.Object({
  rules: Type.Optional(
    Type.Array(
      Type.Object({
        target: Type.String({ description: "'chunk-put', 'single-put', or an API route as 'METHOD /path-template'" }),
        nth: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
        probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        action: Type.Unsafe<(typeof FAULT_ACTIONS)[number]>({ type: 'string', enum: FAULT_ACTIONS }),
        status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
        code: Type.Optional(Type.String()),
        retryAfter: Type.Optional(Type.Integer({ minimum: 0 })),
        stallMs: Type.Optional(Type.Integer({ minimum: 0 })),
        bytesPerSecond: Type.Optional(Type.Integer({ minimum: 1 })),
        times: Type.Optional(Type.Integer({ minimum: 1 })),
      }),
    ),
  ),
  exposeEtag: Type.Optional(Type.Boolean({ description: 'false: the storage stops exposing ETag to browsers' })),
});

/** Routes that exist only with --test-hooks: tests move the clock and read counters through them. */
export function testHookRoutes(
  app: Api,
  deps: {
    clock: Clock;
    accounts: Accounts;
    /** Bytes the storage origin received per video and per session (storage/server.ts). */
    received: ReadonlyMap<string, number>;
    jobs: Jobs;
    storageRequests: StorageRequest[];
    faults: Faults;
    sweep: () => Promise<void>;
    /** What the recording routes did on disk and with ffmpeg (processing/recording-media.ts). */
    recordingWork: RecordingWork;
  },
): void {
  // Each checks the Host (http/api.ts): the service's own address only, else 421 invalid_host.
  const hook = { scopes: 'public', errors: ['invalid_host'] } as const;
  const post = { ...hook, errors: ['invalid_host', 'unsupported_media_type'] } as const;
  app.post(
    '/__test__/clock',
    op(deps.accounts, {
      ...post,
      operationId: 'advanceClock',
      summary: 'Test hooks only (--test-hooks): move the service clock forward',
      body: Type.Object({ advanceMs: Type.Number({ minimum: 0 }) }),
      ok: Type.Object({ now: Type.Integer() }),
    }),
    (req) => ({ now: deps.clock.advance(req.body.advanceMs) }),
  );

  app.get(
    '/__test__/received/:id',
    op(deps.accounts, {
      ...hook,
      operationId: 'getReceivedBytes',
      summary: 'Test hooks only: bytes received for a video (single link) or a session key, failed attempts included',
      params: params('id'),
      ok: Type.Object({ bytes: Type.Integer() }),
    }),
    (req) => ({ bytes: deps.received.get(req.params.id) ?? 0 }),
  );

  app.post(
    '/__test__/expire-token',
    op(deps.accounts, {
      ...post,
      operationId: 'expireToken',
      summary: 'Test hooks only: make a token expire now',
      body: Type.Object({ token: Type.String() }),
      ok: Done('expired'),
    }),
    async (req) => ({ expired: await deps.accounts.expireToken(req.body.token) }),
  );

  app.post(
    '/__test__/faults',
    op(deps.accounts, {
      ...post,
      operationId: 'setFaults',
      summary:
        'Test hooks only: make storage PUTs or API calls fail on demand (service/faults.ts); an empty body clears them',
      body: FaultsRequest,
      ok: Done('ok'),
    }),
    (req) => (deps.faults.set(req.body), { ok: true }),
  );

  app.get(
    '/__test__/storage-requests',
    op(deps.accounts, {
      ...hook,
      operationId: 'listStorageRequests',
      summary: 'Test hooks only: the requests that reached the storage origin, and whether each carried Authorization',
      ok: Type.Object({
        requests: Type.Array(
          Type.Object({
            method: Type.String(),
            path: Type.String(),
            authorization: Type.Boolean(),
            startedAt: Type.Number(),
            endedAt: Type.Optional(Type.Number()),
            status: Type.Optional(Type.Integer()),
          }),
        ),
      }),
    }),
    () => ({ requests: deps.storageRequests }),
  );

  // One whole pass of the sweeper (merge window, retention, plan end) at the service clock's now: after it,
  // a test knows what is due has been done, and what is not due has been left.
  app.post(
    '/__test__/sweep',
    op(deps.accounts, {
      ...post,
      operationId: 'runSweep',
      summary: 'Test hooks only: run one whole pass of the sweeper (merge window, retention, plan end) and wait for it',
      ok: Done('swept'),
    }),
    async () => (await deps.sweep(), { swept: true }),
  );

  app.get(
    '/__test__/recording-work',
    op(deps.accounts, {
      ...hook,
      operationId: 'getRecordingWork',
      summary:
        'Test hooks only: file calls the recording routes made to learn about segments, and their ffmpeg runs, since the start',
      ok: Type.Object({ fileCalls: Type.Integer(), ffmpegRuns: Type.Integer() }),
    }),
    () => deps.recordingWork,
  );

  app.post(
    '/__test__/jobs/idle',
    op(deps.accounts, {
      ...post,
      operationId: 'waitForIdleJobs',
      summary: 'Test hooks only: wait until no job is due or running',
      ok: Done('idle'),
    }),
    async () => (await deps.jobs.idle(), { idle: true }),
  );
}
