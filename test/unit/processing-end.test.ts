import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { MediaInfo } from '../../src/api/types.js';
import { endProcessing } from '../../service/domain/ready.js';
import { domainUnderTest, type DomainUnderTest } from '../helpers/domain.js';

/** What processing hands over for a ready video (processing/pipeline.ts, Processed); the rules need no real media. */
const PROCESSED = {
  duration: 10,
  hasVideo: true,
  mediainfo: { duration: '10.000', track: [] } satisfies MediaInfo,
};

/**
 * A video's end is recorded once (domain/ready.ts endProcessing, Videos.markReady/markFailed): a job run again after
 * its end was recorded, or a worker that lost its lease, changes nothing and announces nothing.
 */
describe("a video's end, recorded once (domain on an in-memory database)", () => {
  let domain: DomainUnderTest;
  beforeEach(async () => {
    domain = await domainUnderTest();
  });
  afterEach(() => domain.close());

  /** A video processing (its job queued, not run: no job runs here), and a webhook that takes video-ready. */
  const processingVideo = async () => {
    const hook = await domain.call('POST', '/webhooks', {
      token: domain.key,
      // A public address literal: checked without a DNS lookup, and never called (no job runs here).
      body: { url: 'https://93.184.215.14/hook', events: ['video-ready'] },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const { body: video } = await domain.call('POST', '/videos', { token: domain.key, body: { file_name: 'a.mp4' } });
    await domain.context.videos.startProcessing(video._id, 1000, 'single');
    return video._id as string;
  };
  const status = async (id: string) => (await domain.call('GET', `/videos/${id}`, { token: domain.key })).body;
  const announced = async (id: string) =>
    (await domain.context.db.selectFrom('webhook_deliveries').select('body').execute()).filter(
      (d) => JSON.parse(d.body).payload._id === id,
    ).length;

  it('a second ready of the same video changes nothing and sends no second video-ready', async () => {
    const id = await processingVideo();
    await endProcessing(domain.context, id, { ready: PROCESSED });
    const first = await status(id);
    assert.equal(first.status, 'ready');
    assert.equal(await announced(id), 1);

    domain.context.clock.advance(60_000);
    await endProcessing(domain.context, id, { ready: { ...PROCESSED, duration: 99 } });
    const second = await status(id);
    assert.equal(second.duration, 10, 'the first end stands');
    assert.equal(second.ready_time, first.ready_time);
    assert.equal(await announced(id), 1, 'one video-ready');
  });

  it('a late failure of a ready video changes nothing; a failed video does not become ready', async () => {
    const ready = await processingVideo();
    await endProcessing(domain.context, ready, { ready: PROCESSED });
    await endProcessing(domain.context, ready, { failed: 'Processing failed: a worker that lost its lease' });
    const after = await status(ready);
    assert.equal(after.status, 'ready');
    assert.equal(after.failure_reason, null);

    const { body: video } = await domain.call('POST', '/videos', { token: domain.key });
    await domain.context.videos.startProcessing(video._id, 1000, 'single');
    await endProcessing(domain.context, video._id, { failed: 'The file is not a video.' });
    await endProcessing(domain.context, video._id, { ready: PROCESSED });
    const failed = await status(video._id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'The file is not a video.');
    assert.equal(await announced(video._id), 0);
  });
});
