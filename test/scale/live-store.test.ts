/**
 * Live recordings on an S3 store with the service split over processes (issue 30, items 3 and 4): an API process,
 * ingest nodes and a worker, each with a --data of its own, on one PostgreSQL database and the run's store. An ingest
 * node that starts ends only its own publishes and those of dead nodes, never another running node's.
 */
import { S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { freshDatabase } from '../helpers/engines/cluster.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { createStream, push } from '../helpers/live.js';
import { startService, type RunningService } from '../helpers/service.js';
import { S3Store } from '../../service/storage/s3.js';

const engines = scaleEngines();
const { endpoint, region, credentials, bucket } = engines.s3;

describe('live recordings on a store, with the service split over processes', () => {
  /** Every key of this file is under its own prefix in the run's bucket. */
  const prefix = `live-${randomBytes(6).toString('hex')}`;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  const started: RunningService[] = [];
  let database: string;
  let args: string[];
  let api: RunningService;
  let ingest: RunningService;
  let token: string;

  /** A process of the service in `role`, on this file's database and store; `data`: start again on that one. */
  const start = async (role: 'api' | 'ingest' | 'worker', more: string[] = [], data?: string) => {
    const service = await startService({ role, args: [...args, ...more], ...(data ? { data } : {}) });
    started.push(service);
    return service;
  };

  before(async () => {
    database = await freshDatabase(engines.databaseUrl, 'live_store');
    args = [
      ...['--storage', `s3://${bucket}/${prefix}`, '--s3-endpoint', endpoint, '--s3-path-style'],
      ...['--database', database, '--merge-window-seconds', '1'],
    ];
    // The API first: it migrates the new database before the others open it.
    api = await start('api');
    // The worker's sweeper ends a dead node's publishes.
    [ingest] = await Promise.all([start('ingest'), start('worker')]);
    token = await api.cli('token', '--org', 'acme', '--database', database);
  });

  after(async () => {
    await Promise.all(started.map((service) => service.stop()));
    const store = new S3Store({ bucket, prefix: `${prefix}/`, endpoint, region, forcePathStyle: true, credentials });
    await store.deletePrefix('').catch(() => undefined);
    store.destroy();
    s3.destroy();
  });

  it("an ingest node that starts, or starts again, leaves another node's recording alone", async () => {
    const onA = await createStream(api, token, 'on node A');
    // Long enough to outlast two starts of node B on busy cores.
    const pushedA = push(`${ingest.rtmp}/${onA.stream_key}`, 50);
    const recordingA = await onA.waitFor('node A to record', (r) => r.status === 'live' && r.duration >= 2, 0, 60_000);

    const nodeB = await start('ingest');
    assert.equal((await onA.list())[0].status, 'live', "node B's start left node A's recording live");
    const onB = await createStream(api, token, 'on node B');
    const pushedB = push(`${nodeB.rtmp}/${onB.stream_key}`, 60);
    await onB.waitFor('node B to record', (r) => r.status === 'live' && r.duration >= 2, 0, 60_000);

    // Node B dies and starts again on its data directory: the same node, so the publish it had has ended.
    await nodeB.kill();
    await pushedB;
    await start('ingest', [], nodeB.data);
    // Ended (and, past the merge window of 1 s, perhaps complete already).
    assert.notEqual((await onB.list())[0].status, 'live', "node B's own publish ended when it started again");
    assert.equal((await onA.list())[0].status, 'live', "node B's restart left node A's recording live");

    assert.equal(await pushedA, 0, "node A's publish ran to its end");
    const done = await onA.waitFor('the recording to complete', (r) => r.status === 'complete', 0, 120_000);
    assert.equal(done._id, recordingA._id);
    assert.ok(done.duration >= 45, `one recording of the whole push: ${done.duration} s`);
    const playlist = await (await fetch(done.playback.temporary_playback)).text();
    assert.doesNotMatch(playlist, /#EXT-X-DISCONTINUITY/, 'one publish, never cut');
  });

  it("a dead ingest node's publish ends once its heartbeat has run out, and its recording completes", async () => {
    const node = await start('ingest');
    const stream = await createStream(api, token, 'on a node that dies');
    const pushed = push(`${node.rtmp}/${stream.stream_key}`, 60);
    await stream.waitFor('the node to record', (r) => r.status === 'live' && r.duration >= 2, 0, 60_000);
    await node.kill();
    await pushed;
    // The heartbeat says alive for 20 s after its last renewal; the worker's sweeper then ends the publish.
    const ended = await stream.waitFor('the recording to complete', (r) => r.status === 'complete', 0, 90_000);
    assert.ok(ended.duration >= 2, JSON.stringify(ended));
  });
});
