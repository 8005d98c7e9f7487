import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService as startInProcess } from '../../service/app.js';
import { startWithToken, tempData, type RunningService } from '../helpers/service.js';

describe('accounts, video objects and errors', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('creates a video (#1) with exactly the spec fields', async () => {
    const { status, body } = await service.call('POST', '/videos', { token });
    assert.equal(status, 200);
    assert.match(body._id, /^[0-9a-f]{24}$/);
    assert.equal(typeof body.user, 'string');
    assert.equal(typeof body.organization, 'string');
    assert.equal(body.environment, 'production');
    assert.match(body.creation_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(body.playback.hls_url, `${service.api}/media/${body._id}/index.m3u8`);
    assert.equal(body.playback.embed_url, `${service.api}/embed/${body._id}`);
  });

  it('gets a waiting video (#8) with its status and empty media fields', async () => {
    const { body: created } = await service.call('POST', '/videos', { token, body: { file_name: 'holiday.mov' } });
    const { status, body } = await service.call('GET', `/videos/${created._id}`, { token });
    assert.equal(status, 200);
    assert.equal(body.status, 'waiting');
    assert.equal(body.file_name, 'holiday.mov');
    assert.equal(body.download_url, null);
    assert.equal(body.mediainfo, null);
    assert.equal(body.failure_reason, null);
    assert.equal(body.creation_time, created.creation_time);
  });

  it('refuses a missing, unknown or revoked token with 401 in the one error shape', async () => {
    const missing = await service.call('POST', '/videos', { token: null });
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error.code, 'unauthorized');
    assert.match(missing.body.error.message, /Authorization/);
    assert.equal((await service.call('POST', '/videos', { token: 'vsk_nope' })).status, 401);
    const doomed = await service.token('acme');
    assert.equal((await service.call('POST', '/videos', { token: doomed })).status, 200);
    const minted = (await service.call('POST', '/tokens', { token: doomed })).body.token as string;
    assert.equal((await service.call('POST', '/videos', { token: minted })).status, 200);
    // The token goes on standard input: a secret in argv would show in `ps` and shell history.
    await service.revoke(doomed);
    const revoked = await service.call('POST', '/videos', { token: doomed });
    assert.equal(revoked.status, 401);
    assert.match(revoked.body.error.message, /revoked/);
    const orphan = await service.call('POST', '/videos', { token: minted });
    assert.equal(orphan.status, 401, 'a token the revoked key made is revoked with it');
    assert.match(orphan.body.error.message, /the key that made it was revoked/);
  });

  it('trades a long-lived token for a short-lived one that works until it expires', async () => {
    const { status, body } = await service.call('POST', '/tokens', { token, body: { ttl_seconds: 120 } });
    assert.equal(status, 200);
    assert.match(body.token, /^vst_/);
    assert.ok(Math.abs(body.expiresAt - (Date.now() + 120_000)) < 5000);
    const { body: video } = await service.call('POST', '/videos', { token: body.token });
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).status, 200, 'same organization');
    const mint = await service.call('POST', '/tokens', { token: body.token });
    assert.equal(mint.status, 403, 'a short-lived token cannot make tokens');
    for (const ttl of [0, 59, 86_401, 1.5, '60']) {
      const bad = await service.call('POST', '/tokens', { token, body: { ttl_seconds: ttl } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.field, 'ttl_seconds');
    }
    await service.advanceClock(121_000);
    const expired = await service.call('POST', '/videos', { token: body.token });
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.code, 'token_expired');
    assert.equal((await service.call('POST', '/videos', { token })).status, 200, 'the long-lived token lives on');
  });

  it('accepts the bare token as well as "Bearer <token>"', async () => {
    const res = await fetch(`${service.api}/videos`, { method: 'POST', headers: { authorization: token } });
    assert.equal(res.status, 200);
  });

  it('hides a video from another organization and another environment with 404, never 403', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    for (const other of [await service.token('globex'), await service.token('acme', 'sandbox')]) {
      const res = await service.call('GET', `/videos/${video._id}`, { token: other });
      assert.equal(res.status, 404);
      assert.equal((await service.call('POST', `/videos/${video._id}/uploads`, { token: other })).status, 404);
      assert.equal(
        (await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token: other })).status,
        404,
      );
    }
  });

  it('answers garbage ids, bad JSON and huge bodies with precise errors, and keeps running', async () => {
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%00', 'x'.repeat(5000), '😀', 'ABCDEF0123456789abcdef01']) {
      const res = await service.call('GET', `/videos/${id}`, { token });
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error.code, 'not_found');
    }
    const bad = await service.call('POST', '/videos', { token, raw: '{"file_name": ' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_json');
    const notObject = await service.call('POST', '/videos', { token, raw: '[1,2]' });
    assert.equal(notObject.status, 400);
    const wrongType = await service.call('POST', '/videos', { token, body: { file_name: 42 } });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.error.field, 'file_name');
    assert.match(wrongType.body.error.message, /42/);
    const huge = await service.call('POST', '/videos', {
      token,
      raw: JSON.stringify({ file_name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(huge.status, 413);
    const method = await service.call('DELETE', '/videos', { token });
    assert.equal(method.status, 405);
    assert.equal((await service.call('POST', '/videos', { token })).status, 200);
  });

  it('answers CORS preflights on the API so a page on another origin can call it', async () => {
    const res = await fetch(`${service.api}/videos`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:1',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-headers')!, /Authorization/i);
  });

  it('has no test routes unless started with --test-hooks', async () => {
    const data = await tempData();
    const plain = await startInProcess({ dataDir: data });
    try {
      const res = await fetch(`${plain.apiOrigin}/__test__/clock`, { method: 'POST', body: '{"advanceMs":1}' });
      assert.equal(res.status, 404);
    } finally {
      await plain.close();
    }
  });
});
