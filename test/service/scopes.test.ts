import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { completeMultipart, LOCAL_RECEIVERS, put, startWithToken, type RunningService } from '../helpers/service.js';

/** Browser tokens can do only what a browser needs (the hardening issue, point 2). */
describe('token scopes', () => {
  let service: RunningService;
  let key: string;
  before(async () => ({ service, token: key } = await startWithToken('acme', LOCAL_RECEIVERS)));
  after(() => service.stop());

  const mint = async (body: Record<string, unknown>, token = key) => service.call('POST', '/tokens', { token, body });
  const uploadToken = async (user?: string) => {
    const r = await mint(user === undefined ? {} : { user });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.scope, 'upload', 'upload is the default scope');
    return r.body.token as string;
  };

  it('an upload token can create and upload videos (#1–#8), and nothing else', async () => {
    const token = await uploadToken('alice');
    const { body: video, status } = await service.call('POST', '/videos', { token, body: { file_name: 'a.mp4' } });
    assert.equal(status, 200);
    assert.equal(video.user, 'alice', "the video carries the integrator's end user");
    assert.equal((await service.call('POST', `/videos/${video._id}/uploads`, { token })).status, 200);
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    assert.equal(
      (
        await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: session.key, chunkId: 1 },
        })
      ).status,
      200,
    );
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).status, 200);
    assert.equal(
      (await service.call('POST', '/videos/multipart-upload/abort', { token, body: { key: session.key } })).status,
      200,
    );

    const { body: stream } = await service.call('POST', '/live_streams', { token: key, body: { name: 'studio' } });
    const { body: hook } = await service.call('POST', '/webhooks', {
      token: key,
      body: { url: 'http://127.0.0.1:9/hook' },
    });
    for (const [method, path, body] of [
      ['GET', '/live_streams'],
      ['POST', '/live_streams', {}],
      ['GET', `/live_streams/${stream._id}`],
      ['DELETE', `/live_streams/${stream._id}`],
      ['GET', `/live_streams/${stream._id}/temporary_recordings`],
      ['GET', `/live_streams/${stream._id}/recordings`],
      ['GET', '/webhooks'],
      ['POST', '/webhooks', { url: 'http://127.0.0.1:9/mine' }],
      ['DELETE', `/webhooks/${hook._id}`],
      ['GET', '/usage'],
      ['POST', '/tokens', {}],
    ] as [string, string, unknown?][]) {
      const r = await service.call(method, path, { token, body });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(r.body.error.code, 'insufficient_scope', `${method} ${path}`);
    }
    // Nothing happened: the stream and the webhook are still there for the key.
    assert.equal((await service.call('GET', `/live_streams/${stream._id}`, { token: key })).status, 200);
    assert.equal((await service.call('GET', '/webhooks', { token: key })).body.length, 1);
  });

  it("shares a user's videos among the tokens minted for that user; another user's token gets 404", async () => {
    const first = await uploadToken('bob');
    const { body: video } = await service.call('POST', '/videos', { token: first });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, {
      token: first,
    });
    const url = (
      await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token: first,
        body: { key: session.key, chunkId: 1 },
      })
    ).body.url;
    const { etag } = await put(url, new Uint8Array(1000));

    // The token is refreshed in the middle of the upload: the new one, for the same user, completes it.
    const refreshed = await uploadToken('bob');
    const done = await completeMultipart(service, refreshed, session.key, [etag], { video: video._id });
    assert.equal(done.status, 200, JSON.stringify(done.body));

    const other = await uploadToken('carol');
    for (const [method, path, body] of [
      ['GET', `/videos/${video._id}`],
      ['POST', `/videos/${video._id}/uploads`],
      ['POST', `/videos/${video._id}/multipart-upload/begin`],
    ] as [string, string, unknown?][]) {
      assert.equal(
        (await service.call(method, path, { token: other, body })).status,
        404,
        `${method} ${path} with another user's token`,
      );
    }
    assert.equal(
      (await service.call('GET', `/videos/${video._id}`, { token: key })).status,
      200,
      'the key sees every video',
    );
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token: key })).body.user, 'bob');
  });

  it('refuses a bad POST /tokens body, naming the field; a clip token needs a stream of its own organization', async () => {
    for (const [body, field] of [
      [{ scope: 'admin' }, 'scope'],
      [{ scope: 'key' }, 'scope'],
      [{ user: 42 }, 'user'],
      [{ user: '' }, 'user'],
      [{ user: 'x'.repeat(257) }, 'user'],
      [{ scope: 'clip' }, 'live_stream_id'],
      [{ scope: 'upload', live_stream_id: '0123456789abcdef01234567' }, 'live_stream_id'],
      [{ ttl_seconds: 10 }, 'ttl_seconds'],
    ] as const) {
      const r = await mint(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.field, field, r.body.error.message);
    }
    const { body: theirs } = await service.call('POST', '/live_streams', {
      token: await service.token('someone-else'),
      body: {},
    });
    assert.equal((await mint({ scope: 'clip', live_stream_id: theirs._id })).status, 404);
  });

  it('a clip token reaches #9–#11 of its own stream only, and creates no video by upload', async () => {
    const { body: mine } = await service.call('POST', '/live_streams', { token: key, body: { name: 'mine' } });
    const { body: sibling } = await service.call('POST', '/live_streams', { token: key, body: { name: 'sibling' } });
    const { body: grant } = await mint({ scope: 'clip', live_stream_id: mine._id });
    assert.equal(grant.scope, 'clip');
    const clip = grant.token as string;
    assert.deepEqual(
      (await service.call('GET', `/live_streams/${mine._id}/temporary_recordings`, { token: clip })).body,
      [],
    );
    assert.deepEqual((await service.call('GET', `/live_streams/${mine._id}/recordings`, { token: clip })).body, []);
    assert.equal(
      (await service.call('GET', `/live_streams/${sibling._id}/temporary_recordings`, { token: clip })).status,
      404,
    );
    assert.equal((await service.call('GET', `/live_streams/${sibling._id}/recordings`, { token: clip })).status, 404);
    const { body: uploaded } = await service.call('POST', '/videos', { token: key });
    assert.equal(
      (await service.call('GET', `/videos/${uploaded._id}`, { token: clip })).status,
      404,
      'a video not converted from its stream',
    );
    for (const [method, path] of [
      ['POST', '/videos'],
      ['GET', `/live_streams/${mine._id}`],
      ['DELETE', `/live_streams/${mine._id}`],
      ['GET', '/usage'],
      ['POST', '/tokens'],
    ]) {
      assert.equal(
        (await service.call(method!, path!, { token: clip, body: method === 'POST' ? {} : undefined })).status,
        403,
        `${method} ${path}`,
      );
    }
  });
});
