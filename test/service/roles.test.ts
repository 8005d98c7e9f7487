import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { media, sha256 } from '../helpers/media.js';
import {
  completeMultipart,
  put,
  startService,
  storedSha256,
  tempData,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

/** The requests a minute a token may make here: far above what the tests' polling (10 a second) makes. */
const RATE_LIMIT = 1000;

/**
 * GET without the API document's check (test/helpers/contract.ts): /healthz, /readyz and /metrics are for load
 * balancers and Prometheus, not in the document.
 */
const probe = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).once('error', reject);
  });

/** A signed storage URL moved onto another storage origin: same path, same signature. */
const onOrigin = (url: string, origin: string) => {
  const moved = new URL(url);
  const { host } = new URL(origin);
  moved.host = host;
  return moved.toString();
};

/**
 * `--role`: processes of one service, each doing its part, sharing one data directory on one machine (SQLite in WAL
 * mode and the disk): two API processes, a worker and an ingest node (docs/scale.md, "Roles").
 */
describe('roles on one data directory (SQLite)', () => {
  let api1: RunningService;
  let api2: RunningService;
  let worker: RunningService;
  let ingest: RunningService;
  let key: string;
  before(async () => {
    const data = await tempData();
    const args = ['--rate-limit-per-minute', String(RATE_LIMIT)];
    // The first makes the database; the others open it made (SQLite's migrations are not raced).
    api1 = await startService({ data, role: 'api', args });
    [api2, worker, ingest] = await Promise.all([
      startService({ data, role: 'api', args }),
      startService({ data, role: 'worker' }),
      startService({ data, role: 'ingest' }),
    ]);
    key = await api1.token('acme');
  });
  after(() => Promise.all([api1, api2, worker, ingest].map((s) => s?.stop())));

  it('each role serves its own part, and its /readyz checks what it needs', async () => {
    assert.ok(api1.storage, 'an api serves the storage origin of the local disk');
    assert.equal(api1.rtmp, '', 'an api takes no RTMP');
    assert.equal(worker.storage + worker.rtmp, '', 'a worker serves no storage and takes no RTMP');
    assert.ok(ingest.rtmp.startsWith('rtmp://'), ingest.rtmp);
    assert.equal(ingest.storage, '');
    for (const [service, checks] of [
      [api1, ['database', 'storage']],
      [worker, ['database', 'storage', 'jobs']],
      [ingest, ['database', 'storage', 'rtmp']],
    ] as const) {
      const ready = await probe(`${service.api}/readyz`);
      assert.equal(ready.status, 200, ready.body);
      const names = (JSON.parse(ready.body).checks as { name: string }[]).map((c) => c.name);
      assert.deepEqual(names.sort(), [...checks].sort());
      assert.equal((await probe(`${service.api}/healthz`)).status, 200);
      assert.equal((await probe(`${service.api}/metrics`)).status, 200);
    }
    // A worker and an ingest node answer none of the spec's routes.
    for (const service of [worker, ingest])
      assert.equal((await service.call('POST', '/videos', { token: key })).status, 404);
  });

  it('an api and a worker process an upload end to end: the api takes it, the worker makes it ready', async () => {
    const file = await media('h264-aac-720p-10s.mp4');
    const id = await upload(api1, key, file);
    const video = await waitForVideo(api1, key, id);
    assert.equal(video.status, 'ready', JSON.stringify(video));
    // The other API answers the same, each naming itself in the URLs it gives (behind a load balancer, both
    // would be reached at the balancer's one address).
    const fromApi2 = (await api2.call('GET', `/videos/${id}`, { token: key })).body;
    assert.deepEqual(JSON.parse(JSON.stringify(fromApi2).replaceAll(api2.api, api1.api)), video);
  });

  it('answers the same token, session and signed links on either API process (the hidden-state check)', async () => {
    // A token minted on one is taken by the other.
    const minted = await api1.call('POST', '/tokens', { token: key, body: {} });
    assert.equal(minted.status, 200);
    const token = minted.body.token as string;
    const { body: video } = await api2.call('POST', '/videos', { token });
    assert.equal((await api1.call('GET', `/videos/${video._id}`, { token })).status, 200);

    // A session begun on one: both give the same chunk URLs, up to the storage origin each names (chunk N on its
    // host N-1, round the hosts).
    const { body: session } = await api1.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const chunkUrl = async (service: RunningService, chunkId: number) => {
      const { status, body } = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token,
        body: { key: session.key, chunkId },
      });
      assert.equal(status, 200);
      return body.url as string;
    };
    const file = await readFile(await media('h264-aac-720p-10s.mp4'));
    const size = Math.ceil(file.length / 3);
    const parts = [file.subarray(0, size), file.subarray(size, 2 * size), file.subarray(2 * size)];
    const eTags: string[] = [];
    for (const [i, part] of parts.entries()) {
      const [from1, from2] = [await chunkUrl(api1, i + 1), await chunkUrl(api2, i + 1)];
      assert.equal(new URL(from1).origin, api1.storageOrigins[i % api1.storageOrigins.length]);
      assert.equal(new URL(from2).origin, api2.storageOrigins[i % api2.storageOrigins.length]);
      assert.equal(onOrigin(from1, new URL(from2).origin), from2, 'the same path and signature from both');
      // Either storage origin takes the other's link: chunk 1 where it was signed, chunks 2 and 3 on the other.
      const res = await put(i === 0 ? from1 : onOrigin(from1, api2.storage), part);
      assert.equal(res.status, 200, res.text);
      eTags.push(res.etag!);
    }
    const completed = await completeMultipart(api2, token, session.key, eTags);
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    assert.equal(await storedSha256(api1.data, video._id), await sha256(await media('h264-aac-720p-10s.mp4')));

    // A #2 link of one, PUT to the other's storage origin.
    const { body: other } = await api1.call('POST', '/videos', { token });
    const { body: link } = await api1.call('POST', `/videos/${other._id}/uploads`, { token });
    assert.equal((await put(onOrigin(link.url, api2.storage), file)).status, 200);
    for (const id of [video._id, other._id]) assert.equal((await waitForVideo(api2, token, id)).status, 'ready');
  });

  it("counts a token's requests against one rate limit over both API processes", async () => {
    const token = await api1.token('counted');
    const statuses: number[] = [];
    // Half the budget on each process, twenty at a time.
    for (let sent = 0; sent < RATE_LIMIT; sent += 20)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            const service = (sent + i) % 2 ? api2 : api1;
            return (await service.call('GET', '/live_streams', { token })).status;
          }),
        )),
      );
    assert.deepEqual(new Set(statuses), new Set([200]), 'the whole budget is served');
    for (const service of [api1, api2]) {
      const limited = await service.call('GET', '/live_streams', { token });
      assert.equal(limited.status, 429, 'past the budget on either process');
      assert.equal(limited.body.error.code, 'rate_limited');
    }
  });

  it("counts a stranger's made-up tokens by its address: no row of the database per token", async () => {
    const db = new Database(join(api1.data, 'service.db'), { readonly: true });
    const keys = () => db.prepare('SELECT key FROM rate_limits').pluck().all() as string[];
    try {
      const before = new Set(keys());
      for (let i = 0; i < 60; i++) {
        const token = `vt_${randomBytes(24).toString('base64url')}`;
        assert.equal((await (i % 2 ? api2 : api1).call('GET', '/live_streams', { token })).status, 401);
      }
      const added = keys().filter((key) => !before.has(key));
      assert.ok(added.length <= 1, `${added.length} rows for 60 made-up tokens`);
      for (const key of added) assert.match(key, /^requests:address /);
    } finally {
      db.close();
    }
  });
});
