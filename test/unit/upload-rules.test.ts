import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { domainUnderTest, type Answer, type DomainUnderTest } from '../helpers/domain.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The rules of uploads (#1–#7) and tokens, on an in-memory database and the test clock, through app.inject(). */
describe('upload rules (domain on an in-memory database)', () => {
  let domain: DomainUnderTest;
  beforeEach(async () => {
    domain = await domainUnderTest({ openUploadCaps: { perUser: 2, perOrganization: 3 } });
  });
  afterEach(() => domain.close());

  const userToken = async (user: string): Promise<string> => {
    const r = await domain.call('POST', '/tokens', {
      token: domain.key,
      body: { user, ttl_seconds: DAY / 1000 },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.token as string;
  };
  const newVideo = async (token: string): Promise<string> => {
    const r = await domain.call('POST', '/videos', { token });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body._id as string;
  };
  const begin = (token: string, videoId: string) =>
    domain.call('POST', `/videos/${videoId}/multipart-upload/begin`, { token });
  const chunkUrl = (token: string, key: string, chunkId: number) =>
    domain.call('POST', '/videos/multipart-upload/get-chunk-upload-url', { token, body: { key, chunkId } });
  const assertLimit = (r: Answer, message: RegExp) => {
    assert.equal(r.status, 429, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'limit_reached');
    assert.match(r.body.error.message, message);
  };

  it('expires a multipart session after 6 hours: no more chunk URLs (410 session_expired), but abort works', async () => {
    const token = domain.key;
    const { key } = (await begin(token, await newVideo(token))).body as { key: string };
    assert.equal((await chunkUrl(token, key, 1)).status, 200);
    domain.context.clock.advance(6 * HOUR - 1000);
    assert.equal((await chunkUrl(token, key, 2)).status, 200, 'a second before its end, the session takes chunks');
    domain.context.clock.advance(1000);
    const refused = await chunkUrl(token, key, 2);
    assert.equal(refused.status, 410);
    assert.equal(refused.body.error.code, 'session_expired');
    const abort = await domain.call('POST', '/videos/multipart-upload/abort', { token, body: { key } });
    assert.deepEqual([abort.status, abort.body], [200, { success: true }]);
  });

  it('caps sessions open per end user and per organization (429 limit_reached); an abort or their expiry frees a place', async () => {
    const [alice, bob] = [await userToken('alice'), await userToken('bob')];
    const video = await newVideo(alice);
    const first = (await begin(alice, video)).body.key as string;
    assert.equal((await begin(alice, video)).status, 200);
    const full = await begin(alice, video);
    assertLimit(full, /This end user has 2 multipart sessions open/);
    assert.equal(full.headers['retry-after'], String(6 * 3600), 'the oldest stops counting when it expires');
    // Another end user has places of their own, until the organization holds its 3.
    assert.equal((await begin(bob, await newVideo(bob))).status, 200);
    assertLimit(await begin(domain.key, await newVideo(domain.key)), /organization has 3 multipart sessions open/);

    await domain.call('POST', '/videos/multipart-upload/abort', { token: alice, body: { key: first } });
    assert.equal((await begin(alice, video)).status, 200, 'the abort freed a place');
    assertLimit(await begin(alice, video), /This end user has 2 multipart sessions open/);
    domain.context.clock.advance(6 * HOUR);
    assert.equal((await begin(alice, video)).status, 200, 'expired sessions stop counting');
  });

  it('caps videos waiting for their file per end user; a day frees a place', async () => {
    const carol = await userToken('carol');
    await newVideo(carol);
    domain.context.clock.advance(HOUR);
    await newVideo(carol);
    const full = await domain.call('POST', '/videos', { token: carol });
    assertLimit(full, /This end user has 2 videos waiting for their file/);
    assert.equal(
      full.headers['retry-after'],
      String((DAY - HOUR) / 1000),
      'the oldest stops counting a day after it was made',
    );
    domain.context.clock.advance(DAY - HOUR);
    // A day on, carol's token has expired too (a day at most): her new one finds a place.
    assert.equal((await domain.call('POST', '/videos', { token: await userToken('carol') })).status, 200);
  });

  it('gives an upload token #1–#8 only: live streams, webhooks, usage and tokens are 403 insufficient_scope', async () => {
    const token = await userToken('dave');
    const video = await newVideo(token);
    assert.equal((await domain.call('POST', `/videos/${video}/uploads`, { token })).status, 200);
    assert.equal((await domain.call('GET', `/videos/${video}`, { token })).status, 200);
    for (const [method, path, body] of [
      ['GET', '/live_streams'],
      ['POST', '/live_streams', {}],
      ['GET', '/webhooks'],
      ['POST', '/webhooks', { url: 'https://example.com/hook' }],
      ['GET', '/usage'],
      ['POST', '/tokens', {}],
    ] as const) {
      const r = await domain.call(method, path, { token, body });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(r.body.error.code, 'insufficient_scope', `${method} ${path}`);
    }
    assert.equal((await domain.call('GET', '/live_streams', { token: domain.key })).status, 200, 'a key may');
  });

  it('completes (#6) only a list of chunkIds 1..N with no gap and no duplicate (400, naming the chunk)', async () => {
    const token = domain.key;
    const { key } = (await begin(token, await newVideo(token))).body as { key: string };
    const complete = (chunks: { chunkId: number; eTag: string }[]) =>
      domain.call('POST', '/videos/multipart-upload/complete', { token, body: { key, chunks } });
    const eTag = '"0123456789abcdef0123456789abcdef"';
    const gap = await complete([
      { chunkId: 1, eTag },
      { chunkId: 3, eTag },
    ]);
    assert.equal(gap.status, 400);
    assert.equal(gap.body.error.message, 'chunkIds must run from 1 to 2 with no gap; chunk 2 is missing.');
    const twice = await complete([
      { chunkId: 2, eTag },
      { chunkId: 1, eTag },
      { chunkId: 1, eTag },
    ]);
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.message, 'chunkId 1 is listed twice.');
    const never = await complete([{ chunkId: 1, eTag }]);
    assert.equal(never.status, 400);
    assert.equal(never.body.error.message, 'Chunk 1 was never uploaded to this session.');
  });
});
