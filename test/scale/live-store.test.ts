/**
 * Live recordings on an S3 store with the service split over processes (issue 30, items 3 and 4): an API process,
 * ingest nodes and a worker, each with a --data of its own, on one PostgreSQL database and the run's store. What a
 * process that does not hold a recording's files needs of it (its bytes, where its first frame is) comes from the
 * database; each job's scratch on a worker is its own; a deleted recording leaves no key in the store; and an ingest
 * node that starts ends only its own publishes and those of dead nodes, never another running node's.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { freshDatabase } from '../helpers/engines/cluster.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { createStream, push } from '../helpers/live.js';
import { startService, until, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { S3Store } from '../../service/storage/s3.js';
import { S3RecordingMedia } from '../../service/storage/s3-recordings.js';
import { playlistSegments } from '../../service/live/playlist.js';

const engines = scaleEngines();
const { endpoint, region, credentials, bucket } = engines.s3;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Seconds from the start of a segment's media (its earliest sample) to its first video frame, as ffprobe reads them. */
async function firstFrameShift(segment: string): Promise<number> {
  const { stdout } = await promisify(execFile)('ffprobe', [
    ...['-v', 'error', '-show_entries', 'stream=codec_type,start_time', '-of', 'csv=p=0', segment],
  ]);
  const starts = stdout
    .trim()
    .split('\n')
    .map((line) => line.split(','))
    .map(([type, at]) => ({ type, at: Number(at) }))
    .filter((s) => Number.isFinite(s.at));
  const video = starts.find((s) => s.type === 'video')!;
  return video.at - Math.min(...starts.map((s) => s.at));
}

describe('live recordings on a store, with the service split over processes', () => {
  /** Every key of this file is under its own prefix in the run's bucket. */
  const prefix = `live-${randomBytes(6).toString('hex')}`;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  const started: RunningService[] = [];
  let database: string;
  let pool: pg.Pool;
  let args: string[];
  let api: RunningService;
  let ingest: RunningService;
  let worker: RunningService;
  let token: string;

  /** A process of the service in `role`, on this file's database and store; `data`: start again on that one. */
  const start = async (role: 'api' | 'ingest' | 'worker', more: string[] = [], data?: string) => {
    const service = await startService({ role, args: [...args, ...more], ...(data ? { data } : {}) });
    started.push(service);
    return service;
  };

  /** The keys the store holds of a recording. */
  const keysOf = async (recordingId: string): Promise<string[]> => {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/orgs/`, ContinuationToken: token }),
      );
      keys.push(...(page.Contents ?? []).map((o) => o.Key!).filter((k) => k.includes(`/recordings/${recordingId}/`)));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  };

  before(async () => {
    database = await freshDatabase(engines.databaseUrl, 'live_store');
    pool = new pg.Pool({ connectionString: database, max: 2 });
    args = [
      ...['--storage', `s3://${bucket}/${prefix}`, '--s3-endpoint', endpoint, '--s3-path-style'],
      ...['--database', database, '--merge-window-seconds', '1'],
    ];
    // The API first: it migrates the new database before the others open it.
    api = await start('api');
    [ingest, worker] = await Promise.all([start('ingest'), start('worker')]);
    token = await api.cli('token', '--org', 'acme', '--database', database);
  });

  after(async () => {
    await Promise.all(started.map((service) => service.stop()));
    await pool?.end();
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

  it("an API process without a recording's files places #10's from by its first frame and counts its bytes", async () => {
    // Below its reserve whatever the recording's size: its 507 says the conversion's estimate.
    const full = await start('api', ['--min-free-mb', String(1024 ** 3)]);
    const stream = await createStream(api, token, 'cut while live');
    const pushed = push(`${ingest.rtmp}/${stream.stream_key}`, 20);
    const live = await stream.waitFor('a few segments', (r) => r.status === 'live' && r.duration >= 6, 0, 60_000);
    const [first] = (await keysOf(live._id)).filter((k) => k.endsWith('/part1/seg00000.ts'));
    assert.ok(first, 'the first segment is in the store');
    const segment = join(await tempDir('live-store-'), 'seg00000.ts');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: first }));
    await writeFile(segment, await got.Body!.transformToByteArray());
    const shift = await firstFrameShift(segment);
    assert.ok(shift > 0.01, `the push's first frame comes after its first sample (${shift} s)`);

    const from = new Date(Date.parse(live.start_time) + 2_000).toISOString();
    const converted = await stream.convert(live._id, { from, duration: 2 });
    assert.equal(converted.status, 200, JSON.stringify(converted.body));
    const { rows } = await pool.query<{ offset: number }>(`SELECT "offset" FROM exports WHERE recording_id = $1`, [
      live._id,
    ]);
    assert.equal(rows.length, 1);
    assert.ok(Math.abs(rows[0]!.offset - (2 + shift)) < 0.001, `offset ${rows[0]!.offset}, first frame ${shift} s`);

    // The same part asked of the API process below its reserve: the estimate counts the bytes the store holds.
    const refused = await full.call('POST', `/live_streams/${stream._id}/temporary_recordings/${live._id}`, {
      token,
      body: { from, duration: 4 },
    });
    assert.equal(refused.status, 507, JSON.stringify(refused.body));
    const needs = Number(/needs about (\d+) MiB/.exec(refused.body.error.message)?.[1]);
    // 4 s of a 2 Mbit/s push, three times over (the cut, its MP4 and its HLS): about 3 MiB.
    assert.ok(needs >= 2, refused.body.error.message);
    assert.equal(await pushed, 0);
  });

  it("an API process without a recording's files serves its playlist from the segments the ingest node wrote in the database", async () => {
    const stream = await createStream(api, token, 'played from the database');
    const pushed = push(`${ingest.rtmp}/${stream.stream_key}`, 12);
    const live = await stream.waitFor('a few segments', (r) => r.status === 'live' && r.duration >= 4, 0, 60_000);
    assert.equal(existsSync(join(api.data, 'recordings', live._id)), false, 'the API process holds none of its files');
    /** The segments of the recording's rows, as temporary_playback names them, with their EXTINF. */
    const rows = async () =>
      (
        await pool.query<{ part_seq: number; file: string; duration: number }>(
          `SELECT part_seq, file, duration FROM recording_segments WHERE recording_id = $1 ORDER BY part_seq, seq`,
          [live._id],
        )
      ).rows.map((r) => ({ duration: Number(r.duration.toFixed(6)), file: `part${r.part_seq}/${r.file}` }));
    /** temporary_playback as `service` serves it, its segments, and the first byte of its first segment. */
    const played = async (service: RunningService) => {
      const url = `${service.api}/recordings/${live._id}/index.m3u8`;
      const text = await (await fetch(url)).text();
      const segments = playlistSegments(text);
      assert.ok(segments.length >= 2, text);
      const media = await fetch(new URL(segments[0]!.file, url));
      assert.equal(media.status, 200, 'the segment link leads to the store');
      const bytes = new Uint8Array(await media.arrayBuffer());
      assert.equal(bytes[0], 0x47, 'an MPEG-TS segment (its sync byte)');
      return { text, segments };
    };

    // While live: every segment listed is a row (more may have arrived since), in order, with its EXTINF.
    const whileLive = await played(api);
    assert.match(whileLive.text, /#EXT-X-PLAYLIST-TYPE:EVENT/);
    assert.doesNotMatch(whileLive.text, /#EXT-X-ENDLIST/);
    assert.deepEqual(whileLive.segments, (await rows()).slice(0, whileLive.segments.length));

    assert.equal(await pushed, 0);
    await stream.waitFor('the recording to complete', (r) => r.status === 'complete', 0, 120_000);
    const ended = await played(api);
    assert.match(ended.text, /#EXT-X-ENDLIST/);
    assert.deepEqual(ended.segments, await rows(), 'every segment of the ended part, as its rows say');

    // The store holds the part's segments, no playlist: an API process that never read the part serves it the same.
    assert.deepEqual(
      (await keysOf(live._id)).filter((k) => k.endsWith('.m3u8')),
      [],
      'no playlist of the part in the store',
    );
    const fresh = await start('api');
    assert.equal((await played(fresh)).text, ended.text, 'the same playlist, from the database');
  });

  it("two jobs on one recording at once on one worker fetch it into scratch folders of their own, each part's playlist written from its rows", async () => {
    const store = new S3Store({
      bucket,
      prefix: `${prefix}/scratch/`,
      endpoint,
      region,
      forcePathStyle: true,
      credentials,
    });
    try {
      const folder = store.keys.recording('acme', 'rec1');
      // Only the segment is in the store: its ingest node may die between writing a segment's row and anything else
      // (CI once killed one there, and the finish failed on a playlist the store did not have).
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${folder}part1/seg00000.ts`, Body: 'segment bytes' }));
      const data = await tempDir('live-scratch-');
      const media = new S3RecordingMedia(
        store,
        join(data, 'recordings'),
        async () => 'acme',
        async () => ({ segments: [{ file: 'seg00000.ts', duration: 2.002 }], ended: false }),
      );
      const recordingDir = join(data, 'recordings', 'rec1');
      const paths = ['part1/stream.m3u8', 'part1/seg00000.ts'];

      // A finish and a cut of one recording at once: each fetches into its own folder.
      const [finish, cut] = await Promise.all([
        media.local('rec1', recordingDir, paths),
        media.local('rec1', recordingDir, paths),
      ]);
      assert.notEqual(finish.dir, cut.dir);
      await finish.release();
      assert.equal(existsSync(finish.dir), false, "the finish's folder went with it");
      assert.equal(
        await readFile(join(cut.dir, 'part1/seg00000.ts'), 'utf8'),
        'segment bytes',
        'the cut still reads its segment',
      );
      const playlist = await readFile(join(cut.dir, 'part1/stream.m3u8'), 'utf8');
      assert.deepEqual(playlistSegments(playlist), [{ file: 'seg00000.ts', duration: 2.002 }], playlist);
      await cut.release();

      // A job whose fetch fails (a segment the store does not have) leaves nothing behind either.
      await assert.rejects(media.local('rec1', recordingDir, [...paths, 'part1/seg00001.ts']));
      assert.deepEqual(await readdir(join(data, 'recording-jobs')), [], 'no scratch folder is left');
    } finally {
      await store.deletePrefix('').catch(() => undefined);
      store.destroy();
    }
  });

  // Last: it moves the worker's clock three days on.
  it('a deleted recording leaves no key in the store: its stream deleted, or 3 days after its end', async () => {
    const kept = await createStream(api, token, 'kept three days');
    const deleted = await createStream(api, token, 'deleted');
    assert.equal(await push(`${ingest.rtmp}/${kept.stream_key}`, 6, { realTime: false }), 0);
    assert.equal(await push(`${ingest.rtmp}/${deleted.stream_key}`, 6, { realTime: false }), 0);
    const [first, second] = await Promise.all(
      [kept, deleted].map((s) => s.waitFor('the recording to complete', (r) => r.status === 'complete', 0, 120_000)),
    );
    for (const recording of [first!, second!]) {
      const keys = await until('its segments and its MP4 in the store', async () => {
        const keys = await keysOf(recording._id);
        return keys.some((k) => k.endsWith('/recording.mp4')) && keys.some((k) => k.endsWith('.ts')) ? keys : undefined;
      });
      assert.ok(keys.length >= 3, keys.join(', '));
    }

    const segmentRows = async (recordingId: string) =>
      Number(
        (await pool.query(`SELECT count(*) AS n FROM recording_segments WHERE recording_id = $1`, [recordingId]))
          .rows[0].n,
      );
    for (const recording of [first!, second!]) assert.ok((await segmentRows(recording._id)) > 0, 'its segment rows');

    const gone = await api.call('DELETE', `/live_streams/${deleted._id}`, { token });
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.deepEqual(await keysOf(second!._id), [], "the deleted stream's recording is gone from the store");
    assert.equal(await segmentRows(second!._id), 0, 'and its segment rows from the database');
    assert.ok((await keysOf(first!._id)).length > 0, 'the other recording stays');

    // Spec, timed rule 4: deleted 3 days after its end, by the sweeper (the worker's).
    await worker.advanceClock(3 * DAY_MS + 60_000);
    await worker.sweep();
    assert.deepEqual(await kept.list(), [], 'the recording is deleted');
    assert.deepEqual(await keysOf(first!._id), [], 'and its keys are gone from the store');
    assert.equal(await segmentRows(first!._id), 0, 'and its segment rows from the database');
  });
});
