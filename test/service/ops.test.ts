import assert from 'node:assert/strict';
import { stat, rename, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startService as startInProcess, type Service } from '../../service/app.js';
import { testClock } from '../../service/clock.js';
import { DATABASE_FIGURES_MS } from '../../service/metrics.js';
import { media } from '../helpers/media.js';
import {
  metricSample,
  SERVICE_ENGINE,
  startWithToken,
  tempData,
  until,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';
import { push } from '../helpers/live.js';

/**
 * GET as a load balancer or Prometheus asks: plain node:http, as these three endpoints are not in /openapi.json
 * (the helpers' fetch checks every JSON answer against it).
 */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    request(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Takes the service's database away under it, as an operator's slip or an outage would, until the function it
 * resolves with puts it back. SQLite: its file moved (SQLite keeps answering from the file it holds open, so only
 * /readyz's own check sees it). PostgreSQL: the database takes no connections, and those it had are ended.
 */
async function takeDatabaseAway(service: RunningService): Promise<() => Promise<void>> {
  if (SERVICE_ENGINE === 'sqlite') {
    const file = join(service.data, 'service.db');
    await rename(file, `${file}-moved`);
    return () => rename(`${file}-moved`, file);
  }
  const url = new URL(service.dataArgs[service.dataArgs.indexOf('--database') + 1]!);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const server = new pg.Client({ connectionString: url.href });
  await server.connect();
  await server.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
  await server.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
  return async () => {
    await server.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
    await server.end();
  };
}

describe('health, readiness, metrics and logs (docs/operations.md)', () => {
  let service: RunningService;
  let token: string;
  /** The service's standard error: its JSON log lines. */
  let log = '';
  /** The JSON lines written so far. */
  const lines = () =>
    log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  /** The log line of the request with this id, once written (after the answer). */
  const logLine = (id: string) =>
    until(`the log line of request ${id}`, async () => lines().find((l) => l.requestId === id && l.msg === 'request'));

  before(async () => {
    ({ service, token } = await startWithToken('ops'));
    service.process.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  });
  after(() => service.stop());

  it('answers /healthz and /readyz without a token, and keeps them out of the API document', async () => {
    const health = await get(`${service.api}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
    const ready = await get(`${service.api}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(JSON.parse(ready.text), {
      status: 'ok',
      // The one process of `all` checks what every role checks (docs/scale.md, Roles).
      checks: [
        { name: 'database', ok: true },
        { name: 'storage', ok: true },
        { name: 'jobs', ok: true },
        { name: 'rtmp', ok: true },
      ],
    });
    const { body: doc } = await service.call('GET', '/openapi.json');
    for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal(doc.paths[path], undefined, path);
  });

  it('is not ready (503, naming the storage) while the data directory is gone, and says nothing of where it is', async () => {
    const away = `${service.data}-away`;
    await rename(service.data, away);
    // A volume unmounted and something else in its place.
    await writeFile(service.data, '');
    let ready;
    try {
      ready = await get(`${service.api}/readyz`);
    } finally {
      await rm(service.data);
      await rename(away, service.data);
    }
    assert.equal(ready.status, 503);
    const body = JSON.parse(ready.text);
    assert.equal(body.status, 'failed');
    assert.deepEqual(
      body.checks.find((c: { name: string }) => c.name === 'storage'),
      { name: 'storage', ok: false, reason: 'ENOTDIR' },
    );
    assert.ok(!ready.text.includes(service.data), ready.text);
    assert.equal((await get(`${service.api}/readyz`)).status, 200, 'ready again once the directory is back');
  });

  const databaseAway = {
    sqlite: 'the database file is not the one it opened',
    postgres: 'its PostgreSQL database takes no connections',
  }[SERVICE_ENGINE];
  it(`is not ready (503, naming the database) while ${databaseAway}`, async () => {
    const putBack = await takeDatabaseAway(service);
    let ready;
    try {
      ready = await get(`${service.api}/readyz`);
    } finally {
      await putBack();
    }
    assert.equal(ready.status, 503);
    // PostgreSQL's refusal is no system error (ECONNREFUSED, say): /readyz says "error", and the log says which.
    const reason = {
      sqlite: 'the database file is no longer where the service opened it',
      postgres: 'error',
    }[SERVICE_ENGINE];
    assert.deepEqual(JSON.parse(ready.text).checks, [
      { name: 'database', ok: false, reason },
      { name: 'storage', ok: true },
      { name: 'jobs', ok: true },
      { name: 'rtmp', ok: true },
    ]);
    assert.equal((await get(`${service.api}/readyz`)).status, 200);
  });

  it('counts requests by route template and status class, never by their ids or tokens', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).status, 200);
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).status, 200);
    assert.equal((await service.call('GET', `/no-such-thing/${video._id}-unmatched?sig=QUERYSECRET`)).status, 404);
    const { status, headers, text } = await get(`${service.api}/metrics`);
    assert.equal(status, 200);
    assert.match(String(headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(
      metricSample(
        text,
        'video_http_request_duration_seconds_count{method="GET",route="/videos/{id}",status_class="2xx"}',
      ),
      2,
    );
    assert.equal(
      metricSample(
        text,
        'video_http_request_duration_seconds_count{method="GET",route="unmatched",status_class="4xx"}',
      ),
      1,
    );
    for (const secret of [video._id, token, 'QUERYSECRET']) assert.ok(!text.includes(secret), secret);
    // Node's own: CPU, memory, event loop lag.
    assert.ok(metricSample(text, 'process_cpu_user_seconds_total')! > 0);
    assert.ok(text.includes('nodejs_eventloop_lag_p99_seconds'));
  });

  it("times a processed upload's job by kind and outcome, and reads its queue and stored bytes", async () => {
    const file = await media('h264-aac-320p-4s.mp4');
    const id = await upload(service, token, file);
    assert.equal((await waitForVideo(service, token, id)).status, 'ready');
    await service.idle();
    // Past the figures an earlier scrape read from the database.
    await service.advanceClock(DATABASE_FIGURES_MS);
    const { text } = await get(`${service.api}/metrics`);
    assert.equal(metricSample(text, 'video_job_duration_seconds_count{kind="process-video",outcome="done"}'), 1);
    assert.ok(metricSample(text, 'video_job_duration_seconds_sum{kind="process-video",outcome="done"}')! > 0);
    // Its kind is known from the queue now, and nothing of it waits.
    assert.equal(metricSample(text, 'video_jobs_due{kind="process-video"}'), 0);
    assert.equal(metricSample(text, 'video_jobs_oldest_due_age_seconds{kind="process-video"}'), 0);
    assert.equal(metricSample(text, 'video_stored_source_bytes'), (await stat(file)).size);
    assert.equal(metricSample(text, 'video_live_streams_publishing'), 0);
  });

  it("takes a load balancer's request id, answers it and logs it; a malformed one is replaced", async () => {
    const given = await get(`${service.api}/videos/nope`, { 'x-request-id': 'lb-7f3a.91:c' });
    assert.equal(given.headers['x-request-id'], 'lb-7f3a.91:c');
    const line = await logLine('lb-7f3a.91:c');
    assert.equal(line.level, 'info');
    assert.equal(line.route, '/videos/{id}');
    assert.equal(line.status, 401);
    for (const bad of ['two words', 'x'.repeat(65), 'quote"d']) {
      const { headers } = await get(`${service.api}/healthz`, { 'x-request-id': bad });
      assert.match(String(headers['x-request-id']), /^[0-9a-f-]{36}$/, bad);
      await logLine(String(headers['x-request-id']));
    }
    assert.ok(!log.includes('two words'));
  });

  it('never logs a token, an Authorization header, a cookie or a query string', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const answers = await Promise.all([
      get(`${service.api}/videos/${video._id}?X-Amz-Signature=SIGSECRET&token=QUERYTOKEN`, {
        authorization: `Bearer ${token}`,
        cookie: 'session=COOKIESECRET',
      }),
      get(`${service.api}/videos/${video._id}`, { authorization: 'Bearer vt_UNKNOWNSECRET' }),
    ]);
    for (const { headers } of answers) await logLine(String(headers['x-request-id']));
    const line = await logLine(String(answers[0]!.headers['x-request-id']));
    assert.equal(line.path, `/videos/${video._id}`);
    for (const secret of [token, 'SIGSECRET', 'QUERYTOKEN', 'COOKIESECRET', 'UNKNOWNSECRET', 'Bearer'])
      assert.ok(!log.includes(secret), `${secret} in the log`);
  });

  it('writes only JSON lines to standard error, from its modules as from its requests', async () => {
    // The RTMP ingest (a process of its own) refuses a publish to a key that is no stream's, and logs it.
    assert.notEqual(await push(`${service.rtmp}/lv_NOSUCHSTREAMKEY00000000000`, 1), 0);
    const refused = await until('the refused publish in the log', async () =>
      lines().find((l) => /refused a publish/.test(String(l.msg))),
    );
    assert.equal(refused.level, 'warn');
    for (const line of log.split('\n').filter((l) => l.trim() !== '')) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      assert.ok(typeof parsed.level === 'string' && typeof parsed.time === 'string', line);
      assert.equal(typeof parsed.msg, 'string', line);
    }
  });
});

describe('metrics of services in one process', () => {
  const services: Service[] = [];
  after(() => Promise.all(services.map((s) => s.close())));

  it('keeps a registry per service, and takes the metrics token when it has one', async () => {
    for (const metricsToken of [undefined, 'metrics-secret'])
      services.push(await startInProcess({ dataDir: await tempData(), metricsToken, logLevel: 'silent' }));
    const [open, guarded] = services as [Service, Service];
    for (let i = 0; i < 3; i++) assert.equal((await get(`${open.apiOrigin}/healthz`)).status, 200);
    const healthz = 'video_http_request_duration_seconds_count{method="GET",route="/healthz",status_class="2xx"}';
    assert.equal(metricSample((await get(`${open.apiOrigin}/metrics`)).text, healthz), 3);

    const refused = await get(`${guarded.apiOrigin}/metrics`);
    assert.equal(refused.status, 401);
    assert.equal(JSON.parse(refused.text).error.code, 'unauthorized');
    assert.equal((await get(`${guarded.apiOrigin}/metrics`, { authorization: 'Bearer metrics-wrong' })).status, 401);
    const scraped = await get(`${guarded.apiOrigin}/metrics`, { authorization: 'Bearer metrics-secret' });
    assert.equal(scraped.status, 200);
    assert.equal(metricSample(scraped.text, healthz), undefined, "the other service's requests are not counted here");
  });

  it('reads the queue from the database at most once every few seconds, however often it is scraped', async () => {
    // A clock that stands still unless the test moves it: "the next scrape" is never a few seconds later by chance.
    const clock = testClock(Date.now());
    const service = await startInProcess({ dataDir: await tempData(), clock, logLevel: 'silent' });
    services.push(service);
    const due = 'video_jobs_due{kind="metrics-probe"}';
    assert.equal(metricSample((await get(`${service.apiOrigin}/metrics`)).text, due), undefined);
    // A due job of a kind nothing runs: it stays in the queue.
    const at = clock.now();
    await service.db
      .insertInto('jobs')
      .values({ kind: 'metrics-probe', payload: '{}', state: 'queued', run_at: at, created_at: at, updated_at: at })
      .execute();
    const scrapes = await Promise.all([0, 1, 2].map(() => get(`${service.apiOrigin}/metrics`)));
    for (const { text } of scrapes) assert.equal(metricSample(text, due), undefined, 'the figures of the first scrape');
    clock.advance(DATABASE_FIGURES_MS - 1);
    assert.equal(metricSample((await get(`${service.apiOrigin}/metrics`)).text, due), undefined);
    clock.advance(1);
    assert.equal(
      metricSample((await get(`${service.apiOrigin}/metrics`)).text, due),
      1,
      'read again once they are as old',
    );
  });
});
