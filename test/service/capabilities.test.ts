import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { completeMultipart, put, startWithToken, type RunningService } from '../helpers/service.js';

const DAY = 24 * 60 * 60 * 1000;

/** Capabilities end with their source (issue 28, item 8): links, sessions and tokens of a revoked key or token. */
describe('capabilities end with their source', () => {
  let service: RunningService;
  let key: string;
  before(async () => ({ service, token: key } = await startWithToken('acme')));
  after(() => service.stop());

  const mint = async (body: Record<string, unknown> = {}, token = key) => {
    const r = await service.call('POST', '/tokens', { token, body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.token as string;
  };
  /** A video of `token` with a signed link (#2), and a session (#3) with its chunk 1 URL (#4) and stored chunk. */
  const started = async (token: string) => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const link = (await service.call('POST', `/videos/${video._id}/uploads`, { token })).body.url as string;
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const chunkUrl = async (chunkId: number, as = token) =>
      service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token: as,
        body: { key: session.key, chunkId },
      });
    const stored = await put((await chunkUrl(1)).body.url, new Uint8Array(1000).fill(1));
    assert.equal(stored.status, 200);
    const second = (await chunkUrl(2)).body.url as string;
    const complete = (as: string) => completeMultipart(service, as, session.key, [stored.etag]);
    return { video, link, session, chunkUrl, second, complete };
  };
  const refused = (r: { status: number; text?: string; body?: any }, what: string) => {
    assert.equal(r.status, 403, what);
    const error = r.text === undefined ? r.body.error : JSON.parse(r.text).error;
    assert.equal(error.code, 'capability_revoked', what);
    assert.match(error.message, /revoked/, what);
  };

  it("refuses a revoked token's links and sessions (#4, #5, #6), even to a live token of the same end user", async () => {
    const doomed = await mint({ user: 'alice' });
    const sibling = await mint({ user: 'alice' });
    const made = await started(doomed);
    const kept = await started(sibling);
    await service.revoke(doomed);

    refused(await put(made.link, new Uint8Array(1000)), 'the PUT of its signed link (#5)');
    refused(await put(made.second, new Uint8Array(1000)), 'the PUT of its chunk URL (#5)');
    refused(await made.chunkUrl(2, sibling), 'a chunk URL of its session (#4), asked by another token');
    refused(await made.complete(sibling), 'completing its session (#6), by another token');

    // The end user's own capabilities, of a live token, go on; and a new link for the same video works.
    assert.equal((await put(kept.link, new Uint8Array(1000))).status, 200);
    const fresh = await service.call('POST', `/videos/${made.video._id}/uploads`, { token: sibling });
    assert.equal(fresh.status, 200);
    assert.equal((await put(fresh.body.url, new Uint8Array(1000))).status, 200);
  });

  it("refuses the links and sessions of a revoked key, and of the tokens it made, while another key's go on", async () => {
    const doomedKey = await service.token('acme');
    const minted = await mint({ user: 'bob' }, doomedKey);
    const ofKey = await started(doomedKey);
    const ofToken = await started(minted);
    const ofOther = await started(key);
    await service.revoke(doomedKey);

    refused(await put(ofKey.link, new Uint8Array(1000)), "the key's own link");
    refused(await put(ofToken.link, new Uint8Array(1000)), 'the link of a token the key made');
    refused(await put(ofToken.second, new Uint8Array(1000)), 'the chunk URL of a token the key made');
    refused(await ofKey.complete(key), "completing the revoked key's session with another key");
    assert.equal((await ofOther.complete(key)).status, 200);
  });

  it('an upload token minted without a user sees only the videos it made', async () => {
    const { body: ofKey } = await service.call('POST', '/videos', { token: key });
    const first = await mint();
    const second = await mint();
    const mine = await started(first);
    const { body: theirs } = await service.call('POST', '/videos', { token: second });

    assert.equal((await service.call('GET', `/videos/${mine.video._id}`, { token: first })).status, 200);
    for (const [id, whose] of [
      [ofKey._id, "the key's"],
      [theirs._id, "another user-less token's"],
    ]) {
      assert.equal((await service.call('GET', `/videos/${id}`, { token: first })).status, 404, whose);
      assert.equal((await service.call('POST', `/videos/${id}/uploads`, { token: first })).status, 404, whose);
    }
    // Decision: a token refreshed without a user is someone new; it cannot continue the last one's upload.
    const refreshed = await mint();
    assert.equal((await mine.chunkUrl(2, refreshed)).status, 404);
    assert.equal((await service.call('GET', `/videos/${mine.video._id}`, { token: refreshed })).status, 404);
    const named = await mint({ user: 'carol' });
    assert.equal((await service.call('GET', `/videos/${mine.video._id}`, { token: named })).status, 404);
    // The key sees all of them.
    for (const id of [mine.video._id, theirs._id])
      assert.equal((await service.call('GET', `/videos/${id}`, { token: key })).status, 200);
  });

  // Last: it moves the service clock 16 days on.
  it("a purged organization's keys and tokens stop working (403), and another organization's go on", async () => {
    const gone = await service.token('gone');
    const goneToken = await mint({ user: 'dora' }, gone);
    const { body: video } = await service.call('POST', '/videos', { token: gone });
    const now = (await service.call('POST', '/__test__/clock', { body: { advanceMs: 0 } })).body.now as number;
    await service.cli('plan', '--org', 'gone', '--ends', new Date(now).toISOString());
    await service.advanceClock(16 * DAY);
    await service.sweep();
    const r = await service.call('GET', `/videos/${video._id}`, { token: gone });
    assert.equal(r.status, 403, 'its key');
    assert.equal(r.body.error.code, 'capability_revoked');
    assert.match(r.body.error.message, /purged/);
    // A token lives a day at most, and the files go 15 days after the plan's end: its tokens have long expired (and
    // been pruned), so they are refused as any unknown token is.
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token: goneToken })).status, 401, 'its token');
    assert.equal((await service.call('POST', '/videos', { token: key })).status, 200);
  });
});
