/**
 * Jobs through a short outage of PostgreSQL or the store (issue 30, item 5: "PostgreSQL restarted under load: every
 * process reconnects, nothing lost, no job run twice to completion"). A service on the run's engines reaches each
 * through a TCP proxy of the test (test/helpers/engines/fault-proxy.ts), which takes the engine away from it exactly
 * while a video is processed: the video must end ready, not failed, and be announced once.
 *
 *   npx tsx scripts/with-engines.ts -- node --import tsx --test test/scale/outage.test.ts
 */
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { S3Store } from '../../service/storage/s3.js';
import { freshDatabase } from '../helpers/engines/cluster.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { startFaultProxy } from '../helpers/engines/fault-proxy.js';
import { media } from '../helpers/media.js';
import { createStream, push } from '../helpers/live.js';
import { Receiver } from '../helpers/receiver.js';
import {
  LOCAL_RECEIVERS,
  jobsEnded,
  put,
  startService,
  until,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

const engines = scaleEngines();
/** The statement that records a video ready (Videos.markReady, as Kysely writes it): its SQL's beginning. */
const MARK_READY = 'update "videos" set "status" = $1, "failure_reason" = $2, "duration" = $3';
/** Past the first waits of service/outages.ts: a retry due then runs at once. */
const PAST_THE_WAIT_MS = 60_000;

/**
 * A service on `args` (its engines), an organization's token and a receiver of its video-ready events; `database`:
 * the service's `--database`, which its command line needs too to make the token.
 */
async function serviceWithReceiver(args: string[], database: string[] = []) {
  const service = await startService({ args: [...args, ...database, ...LOCAL_RECEIVERS.args] });
  const receiver = await new Receiver().listen();
  const stop = async () => {
    await service.stop();
    await receiver.close();
  };
  try {
    const token = await service.cli('token', '--org', 'acme', ...database);
    const hook = await service.call('POST', '/webhooks', {
      token,
      body: { url: receiver.url, events: ['video-ready'] },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    return { service, token, receiver, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** #1 and #2, and the PUT of the file to the link, as a server-side integrator uploads it. */
async function uploadByLink(service: RunningService, token: string, file: string): Promise<string> {
  const video = await service.call('POST', '/videos', { token, body: { file_name: 'clip.mp4' } });
  assert.equal(video.status, 200, JSON.stringify(video.body));
  const link = await service.call('POST', `/videos/${video.body._id}/uploads`, { token });
  assert.equal(link.status, 200, JSON.stringify(link.body));
  assert.equal((await put(link.body.url, await readFile(file))).status, 200);
  return video.body._id;
}

/** The video-ready deliveries the receiver got for `id`, every one (a delivery sent twice counts twice). */
async function announcedOnce(receiver: Receiver, id: string): Promise<void> {
  const ready = () => receiver.received.filter((got) => JSON.parse(got.body).payload?._id === id);
  await until('video-ready to be delivered', async () => (ready().length > 0 ? true : undefined), 60_000);
  // A second end recorded would queue a second delivery within moments of the first.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  assert.equal(ready().length, 1, `one video-ready: ${ready().map((got) => got.headers['webhook-id'])}`);
}

describe('jobs through a short outage of the database or the store', () => {
  it('PostgreSQL drops the connection that records a video ready: the job runs again, the video is ready and announced once', async () => {
    const database = new URL(await freshDatabase(engines.databaseUrl, 'outage'));
    const proxy = await startFaultProxy({ host: database.hostname, port: Number(database.port) });
    const proxied = new URL(database);
    proxied.host = proxy.host;
    const { service, token, receiver, stop } = await serviceWithReceiver([], ['--database', proxied.href]);
    try {
      const dropped = proxy.dropOnce(MARK_READY);
      const id = await uploadByLink(service, token, await media('h264-aac-320p-4s.mp4'));
      await dropped;
      const video = await waitForVideo(service, token, id);
      assert.equal(video.status, 'ready', `not failed for the database's fault: ${video.failure_reason}`);
      await announcedOnce(receiver, id);

      // The job ran twice (the run the database cut off, then the one that recorded the end) and ended once.
      const client = new pg.Client({ connectionString: database.href });
      await client.connect();
      try {
        const { rows } = await client.query<{ state: string; attempts: number }>(
          `SELECT state, attempts::int AS attempts FROM jobs WHERE kind = 'process-video' AND payload LIKE $1`,
          [`%"${id}"%`],
        );
        assert.deepEqual(rows, [{ state: 'done', attempts: 2 }]);
      } finally {
        await client.end();
      }
    } finally {
      await stop();
      await proxy.close();
    }
  });

  describe('on an S3 store', () => {
    // A bucket of this test's own: the service sets its CORS at start (ensureBucket).
    const bucket = `outage-${randomBytes(4).toString('hex')}`;
    const { endpoint, region, credentials } = engines.s3;
    after(async () => {
      const store = new S3Store({ bucket, prefix: '', endpoint, region, forcePathStyle: true, credentials });
      await store.deletePrefix('').catch(() => undefined);
      store.destroy();
      const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
      await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
      s3.destroy();
    });

    it('the store away while a video is processed: it waits, and is ready and announced once when the store is back', async () => {
      const store = new URL(endpoint);
      const proxy = await startFaultProxy({ host: store.hostname, port: Number(store.port) });
      const proxied = new URL(endpoint);
      proxied.host = proxy.host;
      const { service, token, receiver, stop } = await serviceWithReceiver([
        ...['--storage', `s3://${bucket}/media`, '--s3-endpoint', proxied.origin, '--s3-path-style'],
      ]);
      try {
        const id = await uploadByLink(service, token, await media('h264-aac-320p-4s.mp4'));
        // #8 notices the upload in the store (a HEAD) and queues its processing; then the store goes away.
        await until('the upload to be noticed', async () => {
          const { body } = await service.call('GET', `/videos/${id}`, { token });
          return body.status === 'processing' ? true : undefined;
        });
        proxy.cut();
        try {
          // The job runs, meets the store away (reading the source or writing the outputs) and waits to run again.
          await service.idle();
          assert.ok(proxy.refused > 0, 'the service tried the store while it was away');
          const waiting = (await service.call('GET', `/videos/${id}`, { token })).body;
          assert.equal(waiting.status, 'processing', `not failed for the store's fault: ${waiting.failure_reason}`);
        } finally {
          proxy.restore();
        }
        await service.advanceClock(PAST_THE_WAIT_MS);
        const video = await waitForVideo(service, token, id);
        assert.equal(video.status, 'ready', video.failure_reason);
        await announcedOnce(receiver, id);
      } finally {
        await stop();
        await proxy.close();
      }
    });

    it('the store away while a recording is finished: it waits, and completes when the store is back', async () => {
      const store = new URL(endpoint);
      const proxy = await startFaultProxy({ host: store.hostname, port: Number(store.port) });
      const proxied = new URL(endpoint);
      proxied.host = proxy.host;
      const { service, token, stop } = await serviceWithReceiver([
        ...['--storage', `s3://${bucket}/media`, '--s3-endpoint', proxied.origin, '--s3-path-style'],
        ...['--merge-window-seconds', '1'],
      ]);
      const finishes = (outcome: string) => jobsEnded(service, 'finish-recording', outcome);
      try {
        const stream = await createStream(service, token);
        assert.equal(await push(stream.ingest.url, 4), 0);
        // Stopped once the store has its segments; past the merge window the sweeper queues its finish.
        await stream.waitFor('the publish to stop', (r) => r.status === 'stopped', 0, 60_000);
        proxy.cut();
        try {
          // The finish puts the recording's MP4 in the store, meets it away, and waits to run again.
          await until('the finish to meet the store away', async () =>
            (await finishes('retry')) + (await finishes('failed')) > 0 ? true : undefined,
          );
          assert.equal(await finishes('failed'), 0, "not failed for the store's fault");
          assert.equal((await stream.list())[0].status, 'stopped');
        } finally {
          proxy.restore();
        }
        await service.advanceClock(PAST_THE_WAIT_MS);
        const done = await stream.waitFor('the recording to complete', (r) => r.status === 'complete', 0, 60_000);
        assert.ok(done.duration >= 3, JSON.stringify(done));
        assert.equal((await fetch(done.download_url)).status, 200, 'its MP4 plays from the store');
      } finally {
        await stop();
        await proxy.close();
      }
    });
  });
});
