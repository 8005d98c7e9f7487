import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { put, startWithToken, type RunningService } from '../helpers/service.js';

describe('faults on demand (test hooks)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  const faults = (body: unknown) => service.call('POST', '/__test__/faults', { body });
  async function session() {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const url = async (chunkId: number) =>
      (
        await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: body.key, chunkId },
        })
      ).body.url as string;
    return { key: body.key as string, url };
  }
  const received = async (id: string) => (await service.call('GET', `/__test__/received/${id}`)).body.bytes as number;

  it('fails the Nth chunk PUT with the status asked for, and counts the bytes that failed', async () => {
    await faults({ rules: [{ target: 'chunk-put', nth: [2], action: 'status', status: 503, retryAfter: 3 }] });
    const { key, url } = await session();
    const chunk = randomBytes(1000);
    assert.equal((await put(await url(1), chunk)).status, 200);
    const res = await fetch(await url(2), { method: 'PUT', body: chunk });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '3');
    assert.equal((await put(await url(2), chunk)).status, 200, 'only the 2nd request fails');
    assert.equal(await received(key), 3000, 'the failed attempt counts');
  });

  it('resets the connection mid-body, and stalls a PUT before serving it', async () => {
    await faults({
      rules: [
        { target: 'chunk-put', nth: [1], action: 'reset' },
        { target: 'chunk-put', nth: [2], action: 'stall', stallMs: 600 },
      ],
    });
    const { url } = await session();
    await assert.rejects(fetch(await url(1), { method: 'PUT', body: randomBytes(200_000) }));
    const start = Date.now();
    assert.equal((await put(await url(1), randomBytes(100))).status, 200);
    assert.ok(Date.now() - start >= 550, 'stalled');
  });

  it('holds each chunk PUT body to a rate of its own, and stores it whole', async () => {
    await faults({ rules: [{ target: 'chunk-put', action: 'throttle', bytesPerSecond: 1_000_000 }] });
    const { key, url } = await session();
    const [one, two] = [await url(1), await url(2)];
    const start = Date.now();
    // Two at once, each at its own 1 MB/s: together no slower than one alone.
    const answers = await Promise.all([put(one, randomBytes(3_000_000)), put(two, randomBytes(3_000_000))]);
    const seconds = (Date.now() - start) / 1000;
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    // Read no faster than the rate: the first 64 KB may come at once (a lower bound; a slow machine only adds).
    assert.ok(seconds >= 2.9, `3 MB each in ${seconds} s`);
    // One after the other, or at one rate shared, would take 6 s.
    assert.ok(seconds < 5.5, `each at its own rate: ${seconds} s`);
    assert.equal(await received(key), 6_000_000);
  });

  it('fails an API call once, answers it with a body that is not JSON, or without its fields', async () => {
    await faults({
      rules: [
        { target: 'POST /videos/multipart-upload/get-chunk-upload-url', nth: [1], action: 'status', status: 500 },
        { target: 'POST /videos/multipart-upload/get-chunk-upload-url', nth: [2], action: 'not-json' },
        { target: 'POST /videos/multipart-upload/get-chunk-upload-url', nth: [3], action: 'no-fields' },
      ],
    });
    const { key } = await session();
    const call = () =>
      service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', { token, body: { key, chunkId: 1 } });
    assert.equal((await call()).status, 500);
    assert.match((await call()).body, /<html>/);
    assert.deepEqual((await call()).body, {});
    assert.match((await call()).body.url, /^http/);
  });

  it('can stop exposing ETag to browsers, as a misconfigured storage does', async () => {
    await faults({ rules: [], exposeEtag: false });
    const { url } = await session();
    const res = await fetch(await url(1), { method: 'PUT', body: randomBytes(10) });
    assert.equal(res.headers.get('access-control-expose-headers'), null);
    await faults({});
    assert.equal(
      (await fetch(await url(1), { method: 'PUT', body: randomBytes(10) })).headers.get(
        'access-control-expose-headers',
      ),
      'ETag, Retry-After',
    );
  });

  it('refuses a malformed rule with 400 naming it', async () => {
    const res = await faults({ rules: [{ target: 'chunk-put', action: 'explode' }] });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'rules[0].action');
  });
});
