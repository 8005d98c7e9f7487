import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { media, sha256 } from '../helpers/media.js';
import {
  completeMultipart,
  put,
  startService,
  startWithToken,
  storedSha256,
  until,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const SIX_HOURS = 6 * 60 * 60 * 1000;

describe('single-link upload (#2, #5)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('stores the PUT body byte for byte on the storage origin, with no Authorization', async () => {
    const file = await media('h264-aac-320p-4s.mp4');
    const { body: video } = await service.call('POST', '/videos', { token });
    const { status, body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    assert.equal(status, 200);
    assert.ok(body.url.startsWith(service.storage), 'the link is on the storage origin');
    const bytes = await readFile(file);
    const res = await put(body.url, bytes, 'application/json');
    assert.equal(res.status, 200);
    assert.equal(res.etag, `"${md5(bytes)}"`);
    assert.equal(await storedSha256(service.data, video._id), createHash('sha256').update(bytes).digest('hex'));
    const { body: details } = await service.call('GET', `/videos/${video._id}`, { token });
    assert.equal(details.upload_method, 'single');
    assert.equal(details.size, bytes.length);
    const again = await put(body.url, bytes);
    assert.equal(again.status, 409, 'a video takes one file');
  });

  it('refuses the link after 6 hours with 403, and a tampered signature with 403', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    const tampered = body.url.replace(/signature=./, (m: string) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'));
    const t = await put(tampered, randomBytes(10));
    assert.equal(t.status, 403);
    assert.equal(JSON.parse(t.text).error.code, 'invalid_signature');
    const otherPath = body.url.replace(/\/uploads\/[0-9a-f]{24}/, `/uploads/${'0'.repeat(24)}`);
    assert.equal((await put(otherPath, randomBytes(10))).status, 403, 'a signature is for its own link only');
    await service.advanceClock(SIX_HOURS + 1000);
    const late = await put(body.url, randomBytes(10));
    assert.equal(late.status, 403);
    assert.equal(JSON.parse(late.text).error.code, 'signature_expired');
    const fresh = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    assert.equal((await put(fresh.body.url, randomBytes(10))).status, 200, 'a new link from #2 works');
  });

  it('answers a CORS preflight for PUT with any Content-Type and exposes ETag', async () => {
    const res = await fetch(`${service.storage}/uploads/x`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:9',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-methods')!, /PUT/);
    assert.match(res.headers.get('access-control-allow-headers')!, /content-type/);
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    const upload = await fetch(body.url, {
      method: 'PUT',
      body: randomBytes(100),
      headers: { 'content-type': 'application/x-whatever' },
    });
    assert.equal(upload.status, 200);
    assert.match(upload.headers.get('access-control-expose-headers')!, /ETag/);
  });
});

describe('multipart upload (#3, #4, #5, #6, #7)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  async function begin() {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { status, body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, {
      token,
    });
    assert.equal(status, 200);
    return { id: video._id as string, key: session.key as string, expiresAt: session.expiresAt as number };
  }
  async function chunkUrl(key: string, chunkId: unknown, id?: string) {
    const path = id
      ? `/videos/${id}/multipart-upload/get-chunk-upload-url`
      : '/videos/multipart-upload/get-chunk-upload-url';
    return service.call('POST', path, { token, body: { key, chunkId } });
  }
  async function upload(key: string, chunkId: number, bytes: Uint8Array) {
    const { body } = await chunkUrl(key, chunkId);
    const res = await put(body.url, bytes);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, '', 'a chunk PUT answers with an empty body');
    return res.etag!;
  }

  it("keeps a browser's connection to the API open while the chunks go to the storage: #6 seconds later goes on it", async () => {
    const { id, key } = await begin();
    const bytes = randomBytes(1000);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // Through one socket, as a browser's connection to the API is (node:http, to see whether it is the same socket).
    const call = (method: string, path: string, body: unknown) =>
      new Promise<{ status: number; reused: boolean; keepAlive: string | undefined; text: string }>(
        (resolve, reject) => {
          const req = request(`${service.api}${path}`, {
            method,
            agent,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          });
          req.on('response', (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d));
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                reused: req.reusedSocket,
                keepAlive: res.headers['keep-alive'] as string | undefined,
                text,
              }),
            );
          });
          req.on('error', reject);
          req.end(JSON.stringify(body));
        },
      );
    const signed = await call('POST', `/videos/${id}/multipart-upload/get-chunk-upload-url`, { key, chunkId: 1 });
    assert.equal(signed.status, 200);
    assert.equal(signed.keepAlive, 'timeout=65', 'the API says how long it keeps the connection');
    const res = await put(JSON.parse(signed.text).url, bytes);
    // Longer than Node's own keep-alive (5 s), which closed the socket before a #6 like this one.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const done = await call('POST', `/videos/${id}/multipart-upload/complete`, {
      key,
      chunks: [{ chunkId: 1, eTag: res.etag }],
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.reused, true, '#6 went on the connection #4 opened');
    agent.destroy();
  });

  it('begins a session whose expiresAt is 13 digits of milliseconds, 6 hours ahead', async () => {
    const before = Date.now();
    const { key, expiresAt } = await begin();
    assert.equal(typeof key, 'string');
    assert.equal(String(expiresAt).length, 13);
    assert.ok(Math.abs(expiresAt - (before + SIX_HOURS)) < 5000);
  });

  it('uploads a 3-chunk file and the assembled source has the sha256 of the original', async () => {
    const file = await readFile(await media('h264-aac-720p-10s.mp4'));
    const size = Math.ceil(file.length / 3);
    const parts = [file.subarray(0, size), file.subarray(size, 2 * size), file.subarray(2 * size)];
    const { id, key } = await begin();
    const etags = await Promise.all(parts.map((p, i) => upload(key, i + 1, p)));
    etags.forEach((etag, i) => assert.equal(etag, `"${md5(parts[i]!)}"`, 'ETag is the quoted hex MD5'));
    const done = await completeMultipart(service, token, key, etags, { video: id });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body, { success: true, url: `${service.api}/videos/${id}` });
    assert.equal((await waitForVideo(service, token, id)).status, 'ready');
    assert.equal(await storedSha256(service.data, id), createHash('sha256').update(file).digest('hex'));
    assert.ok(!existsSync(join(service.data, 'chunks', key)), 'chunk files are gone once the source is assembled');
    const { body: details } = await service.call('GET', `/videos/${id}`, { token });
    assert.equal(details.upload_method, 'multipart');
    assert.equal(details.size, file.length);
  });

  it('serves #4 and #6 on both path forms, and refuses a session of another video on the long form', async () => {
    const { id, key } = await begin();
    const other = await begin();
    assert.equal((await chunkUrl(key, 1, id)).status, 200);
    assert.equal((await chunkUrl(key, 1)).status, 200);
    assert.equal((await chunkUrl(key, 1, other.id)).status, 404);
    const etag = await upload(key, 1, randomBytes(1000));
    const done = await completeMultipart(service, token, key, [etag]);
    assert.equal(done.status, 200);
  });

  it('replaces a chunk uploaded again with a new URL; its new ETag is the one that counts', async () => {
    const { id, key } = await begin();
    const first = randomBytes(2048);
    const second = randomBytes(2048);
    const oldTag = await upload(key, 1, first);
    const newTag = await upload(key, 1, second);
    const stale = await completeMultipart(service, token, key, [oldTag]);
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error.field, 'chunks[0].eTag');
    const done = await completeMultipart(service, token, key, [newTag.replaceAll('"', '')]);
    assert.equal(done.status, 200, 'the eTag without quotes is accepted too');
    await waitForVideo(service, token, id);
    assert.deepEqual(await readFile(join(service.data, 'videos', id, 'source')), second);
  });

  it('refuses a complete with a wrong eTag, naming the chunk', async () => {
    const { key } = await begin();
    const a = await upload(key, 1, randomBytes(100));
    await upload(key, 2, randomBytes(100));
    const res = await completeMultipart(service, token, key, [a, `"${'0'.repeat(32)}"`]);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'chunks[1].eTag');
    assert.match(res.body.error.message, /chunk 2/);
  });

  it('refuses bad chunkIds and chunk lists with 400 naming the field and value', async () => {
    const { key } = await begin();
    for (const chunkId of [0, -1, 1.5, '1', null, 10_001, 1e300]) {
      const res = await chunkUrl(key, chunkId);
      assert.equal(res.status, 400, `chunkId ${JSON.stringify(chunkId)}`);
      assert.equal(res.body.error.field, 'chunkId');
      assert.match(
        res.body.error.message,
        new RegExp(
          String(JSON.stringify(chunkId))
            .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
            .slice(0, 10),
        ),
      );
    }
    const tag = await upload(key, 1, randomBytes(10));
    const cases: [unknown, string][] = [
      [undefined, 'chunks'],
      [[], 'chunks'],
      ['nope', 'chunks'],
      [
        [
          { chunkId: 1, eTag: tag },
          { chunkId: 1, eTag: tag },
        ],
        'chunks',
      ],
      [[{ chunkId: 2, eTag: tag }], 'chunks'],
      [[{ chunkId: 1, eTag: 42 }], 'chunks[0].eTag'],
      [[7], 'chunks[0]'],
      [
        [
          { chunkId: 1, eTag: tag },
          { chunkId: 2, eTag: tag },
        ],
        'chunks[1].chunkId',
      ],
    ];
    for (const [chunks, field] of cases) {
      const res = await service.call('POST', '/videos/multipart-upload/complete', { token, body: { key, chunks } });
      assert.equal(res.status, 400, JSON.stringify(chunks));
      assert.equal(res.body.error.field, field, JSON.stringify(chunks));
    }
    for (const badKey of [undefined, 5, '', 'mpu_' + 'x'.repeat(32), '../../etc', '🔑'.repeat(300)]) {
      const res = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token,
        body: { key: badKey, chunkId: 1 },
      });
      assert.ok([400, 404].includes(res.status), `key ${JSON.stringify(badKey)} → ${res.status}`);
      assert.equal(res.body.error.field, 'key');
    }
  });

  it('makes a chunk URL good for its own chunk of its own session only, and refuses a tampered one', async () => {
    const a = await begin();
    const b = await begin();
    const { body } = await chunkUrl(a.key, 1);
    const otherChunk = body.url.replace(/\/1\?/, '/2?');
    assert.equal((await put(otherChunk, randomBytes(10))).status, 403);
    const otherSession = body.url.replace(a.key, b.key);
    assert.equal((await put(otherSession, randomBytes(10))).status, 403);
    const tampered = body.url.replace(/expires=(\d+)/, (_: string, n: string) => `expires=${Number(n) + 1}`);
    assert.equal((await put(tampered, randomBytes(10))).status, 403);
  });

  it('refuses a chunk of 5 GiB or more with 413 before writing it', async () => {
    const { key } = await begin();
    const { body } = await chunkUrl(key, 1);
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(body.url, { method: 'PUT', headers: { 'content-length': String(5 * 1024 ** 3) } }, (r) =>
        resolve(r.statusCode!),
      );
      req.on('error', reject);
      req.write(randomBytes(1024));
    });
    assert.equal(res, 413);
    assert.deepEqual(await readdir(join(service.data, 'chunks', key)).catch(() => []), [], 'nothing was written');
  });

  it('expires a session after 6 hours: no chunk URL and no chunk PUT, but complete and abort work', async () => {
    const done = await begin();
    const aborted = await begin();
    const tag = await upload(done.key, 1, randomBytes(500));
    await upload(aborted.key, 1, randomBytes(500));
    const { body: issued } = await chunkUrl(done.key, 2);
    await service.advanceClock(SIX_HOURS + 1000);
    const refused = await chunkUrl(done.key, 2);
    assert.equal(refused.status, 410);
    assert.equal(refused.body.error.code, 'session_expired');
    assert.equal((await put(issued.url, randomBytes(10))).status, 403, 'an issued chunk URL dies with its session');
    const complete = await completeMultipart(service, token, done.key, [tag]);
    assert.equal(complete.status, 200);
    const abort = await service.call('POST', '/videos/multipart-upload/abort', { token, body: { key: aborted.key } });
    assert.deepEqual(abort.body, { success: true });
  });

  it('aborts a session: chunks deleted, later chunk URLs, PUTs and completes refused with 409', async () => {
    const { key } = await begin();
    const tag = await upload(key, 1, randomBytes(100));
    const { body: issued } = await chunkUrl(key, 2);
    const res = await service.call('POST', '/videos/multipart-upload/abort', { token, body: { key } });
    assert.deepEqual([res.status, res.body], [200, { success: true }]);
    assert.ok(!existsSync(join(service.data, 'chunks', key)), 'chunk files are gone after abort');
    const url = await chunkUrl(key, 3);
    assert.equal(url.status, 409);
    assert.match(url.body.error.message, /aborted/);
    const late = await put(issued.url, randomBytes(10));
    assert.equal(late.status, 409);
    const complete = await completeMultipart(service, token, key, [tag]);
    assert.equal(complete.status, 409);
    assert.equal(
      (await service.call('POST', '/videos/multipart-upload/abort', { token, body: { key } })).status,
      200,
      'abort is idempotent',
    );
    const other = await service.token('globex');
    const foreign = await service.call('POST', '/videos/multipart-upload/abort', { token: other, body: { key } });
    assert.equal(foreign.status, 404, 'another organization cannot touch the session');
  });

  it('refuses a second complete of the same session with 409', async () => {
    const { key } = await begin();
    const tag = await upload(key, 1, randomBytes(100));
    assert.equal((await completeMultipart(service, token, key, [tag])).status, 200);
    const again = await completeMultipart(service, token, key, [tag]);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'session_closed');
  });
});

describe('durability', () => {
  it('loses no chunk when killed with SIGKILL mid-upload; after a restart complete works', async () => {
    let service = await startService();
    const token = await service.token('acme');
    const file = await readFile(await media('h264-aac-720p-10s.mp4'));
    const half = Math.ceil(file.length / 2);
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const url = async (chunkId: number) =>
      (
        await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: session.key, chunkId },
        })
      ).body.url as string;
    const first = await put(await url(1), file.subarray(0, half));
    const secondUrl = await url(2);
    // A PUT in flight when the process dies: its bytes must not count as the chunk.
    const inFlight = request(secondUrl, { method: 'PUT', headers: { 'content-length': String(file.length - half) } });
    inFlight.on('error', () => {});
    inFlight.write(file.subarray(half, half + 1000));
    await until('the in-flight bytes to reach the storage', async () =>
      (await service.call('GET', `/__test__/received/${session.key}`)).body.bytes > half ? true : undefined,
    );
    await service.kill();

    service = await startService({ data: service.data, ports: service });
    try {
      const second = await put(secondUrl, file.subarray(half));
      assert.equal(second.status, 200, 'a chunk URL issued before the crash still works');
      const done = await completeMultipart(service, token, session.key, [first.etag, second.etag], {
        video: video._id,
      });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal((await waitForVideo(service, token, video._id)).status, 'ready');
      assert.equal(await storedSha256(service.data, video._id), createHash('sha256').update(file).digest('hex'));
      assert.deepEqual(await readdir(join(service.data, 'chunks')), [], 'no chunk file is left on disk');
    } finally {
      await service.stop();
    }
  });

  it('answers #6 before joining the chunks, and a SIGKILL right after it loses nothing', async () => {
    let service = await startService();
    const token = await service.token('acme');
    const parts = Array.from({ length: 6 }, () => randomBytes(8 * 1024 * 1024));
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const eTags = await Promise.all(
      parts.map(async (bytes, i) => {
        const { body } = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: session.key, chunkId: i + 1 },
        });
        return (await put(body.url, bytes)).etag;
      }),
    );
    const done = await completeMultipart(service, token, session.key, eTags);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await service.kill();
    const source = join(service.data, 'videos', video._id, 'source');
    assert.ok(!existsSync(source), 'the kill came before the 48 MiB were joined');

    service = await startService({ data: service.data, ports: service });
    try {
      // Random bytes are no video: processing fails, after joining them.
      assert.equal((await waitForVideo(service, token, video._id)).status, 'failed');
      assert.equal(await sha256(source), createHash('sha256').update(Buffer.concat(parts)).digest('hex'));
      assert.deepEqual(await readdir(join(service.data, 'chunks')), [], 'no chunk file is left on disk');
    } finally {
      await service.stop();
    }
  });
});
