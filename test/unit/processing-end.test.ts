import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { MediaInfo } from '../../src/api/types.js';
import { InternalDetailError, ServiceError } from '../../service/domain/errors.js';
import { endProcessing } from '../../service/domain/ready.js';
import { RetryAt } from '../../service/jobs.js';
import { isOutage, OUTAGE_RETRY_WAITS_MS, retryOutage } from '../../service/outages.js';
import { MediaError } from '../../service/processing/ffmpeg.js';
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

/** service/outages.ts: which errors are an engine away, and what a job does with them. */
describe('outages: the database or the store away is tried again, the media at fault is not', () => {
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

  it('tells an engine away from a fault of the work', () => {
    for (const err of [
      coded('57P01', 'terminating connection due to administrator command'),
      coded('57P03', 'the database system is starting up'),
      coded('08006'),
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      new Error('Connection terminated unexpectedly'),
      coded('SQLITE_BUSY', 'database is locked'),
      new ServiceError(
        'storage_unavailable',
        'The object store s3://media/ could not upload a key: it did not answer.',
      ),
      Object.assign(new Error('Slow Down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }),
      new AggregateError([coded('ECONNREFUSED')], 'connect failed'),
    ])
      assert.equal(isOutage(err), true, String(err));
    for (const err of [
      new MediaError('The file has no audio or video stream.'),
      new ServiceError('insufficient_storage', 'The storage is too full.'),
      new ServiceError('quota_exceeded', 'The quota is used up.'),
      coded('23505', 'duplicate key value violates unique constraint'),
      new Error('the recording has no media at from any more'),
      'not an error',
    ])
      assert.equal(isOutage(err), false, String(err));
  });

  it('an outage is a RetryAt after the next wait while tries remain, then the sentence of the failure', () => {
    const away = coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    const now = 1_000_000;
    OUTAGE_RETRY_WAITS_MS.forEach((wait, i) => {
      assert.throws(
        () => retryOutage(away, i + 1, now),
        (err: unknown) => err instanceof RetryAt && err.at === now + wait,
      );
    });
    const last = retryOutage(away, OUTAGE_RETRY_WAITS_MS.length + 1, now);
    assert.match(
      last!,
      /^the database was unavailable at each of 8 tries over about 19 minutes \(connect ECONNREFUSED/,
    );
    // As s3.ts words it: the address for the log, not for the failure reason the video's owner reads.
    const store = new InternalDetailError(
      'storage_unavailable',
      'The object store could not upload s3://media/k (at http://10.0.0.5:9000): it did not answer.',
      'The object store the service keeps media in failed to answer; try again later.',
    );
    const gaveUp = retryOutage(store, 8, now)!;
    assert.match(gaveUp, /^the object store was unavailable .*\(The object store the service keeps media in failed/);
    assert.ok(!gaveUp.includes('10.0.0.5') && !gaveUp.includes('s3://'), gaveUp);
    assert.equal(retryOutage(new MediaError('not media'), 1, now), undefined, 'the media at fault: no retry');
    const wait = new RetryAt(now + 30_000, 'below the disk reserve');
    assert.throws(
      () => retryOutage(wait, 1, now),
      (err: unknown) => err === wait,
      'a RetryAt passes as it is',
    );
  });
});
