/**
 * The service on an S3 store (issue 30, item 3): a service process started with `--storage s3://…` against the run's
 * Ceph store (scripts/with-engines.ts). The browser's side is plain `fetch`: it PUTs the file (#2) and each chunk
 * (#3–#6) straight to the store by the links the service gives, the store's own log shows those PUTs and the
 * service's storage origin sees none; the video is processed by real ffmpeg from the store and plays from it.
 */
import {
  DeleteBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { StoreRequest } from '../helpers/engines/ceph.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { createStream, push } from '../helpers/live.js';
import { media, probeDuration } from '../helpers/media.js';
import {
  completeMultipart,
  LOCAL_RECEIVERS,
  startService,
  until,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';
import { S3Store } from '../../service/storage/s3.js';
import { freshDatabase } from '../helpers/engines/cluster.js';
import { playlistSegments } from '../../service/live/playlist.js';

const engines = scaleEngines();
const { endpoint, region, credentials } = engines.s3;
/** S3's smallest part but the last. */
const PART_BYTES = 5 * 1024 * 1024;

/** PUTs bytes to a link as a page would: no Authorization, an Origin; the answer's status and ETag. */
async function put(url: string, body: Uint8Array) {
  const res = await fetch(url, {
    method: 'PUT',
    body: body as BodyInit,
    headers: { 'content-type': 'video/mp4', origin: 'https://app.example.com' },
  });
  await res.arrayBuffer();
  return { status: res.status, etag: res.headers.get('etag') };
}

describe('the service on an S3 store', () => {
  // A bucket of this file's own, which the service makes at start (ensureBucket) with its CORS.
  const bucket = `service-${randomBytes(4).toString('hex')}`;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  let service: RunningService;
  let token: string;
  const serviceArgs = ['--storage', `s3://${bucket}/media`, '--s3-endpoint', endpoint, '--s3-path-style'];
  // The import's source is a server of this test, on 127.0.0.1.
  serviceArgs.push(...LOCAL_RECEIVERS.args);

  before(async () => {
    service = await startService({ args: serviceArgs });
    token = await service.token('acme');
  });

  after(async () => {
    await service?.stop();
    const store = new S3Store({ bucket, prefix: '', endpoint, region, forcePathStyle: true, credentials });
    await store.deletePrefix('').catch(() => undefined);
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    store.destroy();
    s3.destroy();
  });

  const newVideo = async () => {
    const { status, body } = await service.call('POST', '/videos', { token });
    assert.equal(status, 200);
    return body._id as string;
  };
  /** The store's log: the PUTs to this bucket for a video (its folder, or its links' keys under incoming/). */
  const putsOf = (requests: StoreRequest[], video: string) =>
    requests.filter((r) => r.method === 'PUT' && r.path.startsWith(`/${bucket}/media/`) && r.path.includes(video));
  /** What the store holds under a video's folder: objects and multipart uploads not completed. */
  const heldFor = async (organizationPath: string) => {
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: organizationPath }));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: organizationPath }));
    return { objects: objects.Contents ?? [], uploads: uploads.Uploads ?? [] };
  };

  /** A ready video plays (master → rendition → a segment, all 200) and its MP4 downloads. */
  async function assertPlaysAndDownloads(details: { playback: { hls_url: string }; download_url: string }) {
    const master = await fetch(details.playback.hls_url);
    assert.equal(master.status, 200);
    const masterText = await master.text();
    assert.match(masterText, /^#EXTM3U/);
    const renditionUri = masterText.split('\n').find((l) => l.trim() && !l.startsWith('#'))!;
    const rendition = await fetch(new URL(renditionUri, master.url));
    assert.equal(rendition.status, 200);
    const renditionText = await rendition.text();
    const segmentUri = renditionText.split('\n').find((l) => l.trim() && !l.startsWith('#'))!;
    // A private bucket: each segment is its presigned link, fetched from the store itself.
    assert.ok(segmentUri.startsWith(`${endpoint}/${bucket}/`), segmentUri);
    const segment = await fetch(new URL(segmentUri, rendition.url));
    assert.equal(segment.status, 200);
    const ts = new Uint8Array(await segment.arrayBuffer());
    assert.ok(ts.length > 0 && ts[0] === 0x47, 'an MPEG-TS segment (sync byte 0x47)');

    const download = await fetch(details.download_url);
    assert.equal(download.status, 200);
    assert.ok(download.url.startsWith(`${endpoint}/${bucket}/`), `the MP4 from the store: ${download.url}`);
    const mp4 = Buffer.from(await download.arrayBuffer());
    assert.equal(mp4.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4 file');
  }

  it('#2: the file goes straight to the store by the link; the video becomes ready, plays and downloads', async () => {
    const file = await readFile(await media('h264-aac-320p-4s.mp4'));
    const id = await newVideo();
    const link = await service.call('POST', `/videos/${id}/uploads`, { token });
    assert.equal(link.status, 200);
    assert.ok(link.body.url.startsWith(`${endpoint}/${bucket}/media/incoming/`), link.body.url);
    assert.equal((await put(link.body.url, file)).status, 200);
    await engines.waitForStoreRequests((r) => putsOf(r, id).some((p) => p.path.includes('/incoming/')));

    const ready = await waitForVideo(service, token, id);
    assert.equal(ready.status, 'ready', ready.failure_reason);
    await assertPlaysAndDownloads(ready);
    // Processing's local copies (the downloaded source, the outputs) went once the store had them.
    assert.deepEqual(await readdir(join(service.data, 'videos')).catch(() => []), []);
  });

  /** A #2 link's key in the store, and the source key of its video (the organization's id is in the link). */
  const keysOf = (linkUrl: string) => {
    const key = decodeURIComponent(new URL(linkUrl).pathname.slice(`/${bucket}/`.length));
    const [, organization, video] = /^media\/incoming\/([^/]+)\/([^/]+)\/[^/]+$/.exec(key)!;
    return { link: key, source: `media/orgs/${organization}/videos/${video}/source` };
  };
  const stored = async (key: string) => {
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  };

  it('#2: one upload per link: the link used again after the video has its file changes nothing, and its PUT goes', async () => {
    const file = await readFile(await media('h264-aac-320p-4s.mp4'));
    const id = await newVideo();
    const { body: link } = await service.call('POST', `/videos/${id}/uploads`, { token });
    const keys = keysOf(link.url);
    assert.equal((await put(link.url, file)).status, 200);
    const ready = await waitForVideo(service, token, id);
    assert.equal(ready.status, 'ready', ready.failure_reason);
    assert.ok((await stored(keys.source)).equals(file), 'the source is the file PUT');
    assert.deepEqual((await heldFor(keys.link)).objects, [], "taken in, the link's own key is emptied");

    // A presigned PUT cannot be refused by the service: the store takes the replay, where nobody reads it.
    assert.equal((await put(link.url, randomBytes(50_000))).status, 200);
    await until('the sweeper to delete the replay (every 5 s)', async () =>
      (await heldFor(keys.link)).objects.length === 0 ? true : undefined,
    );
    assert.ok((await stored(keys.source)).equals(file), 'the source is still the file taken in');
    const { body: after } = await service.call('GET', `/videos/${id}`, { token });
    assert.deepEqual([after.status, after.duration], ['ready', ready.duration]);
  });

  it("#2: an upload past the organization's storage quota is refused and deleted; the link then takes another", async () => {
    const file = await readFile(await media('h264-aac-320p-4s.mp4'));
    const tight = await service.token('tight');
    await service.cli('plan', '--org', 'tight', '--quota-bytes', String(file.length));
    const { body: video } = await service.call('POST', '/videos', { token: tight });
    const { body: link } = await service.call('POST', `/videos/${video._id}/uploads`, { token: tight });
    const keys = keysOf(link.url);
    assert.equal((await put(link.url, randomBytes(file.length + 1))).status, 200, 'the store takes any PUT');
    // Seen at #8, and refused as the storage origin refuses such a body: deleted, the video still waiting.
    await until('the upload over the quota to be deleted', async () => {
      const { body } = await service.call('GET', `/videos/${video._id}`, { token: tight });
      assert.equal(body.status, 'waiting');
      return (await heldFor(keys.link)).objects.length === 0 ? true : undefined;
    });
    await assert.rejects(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: keys.source })), /NotFound/);

    assert.equal((await put(link.url, file)).status, 200);
    const ready = await waitForVideo(service, tight, video._id);
    assert.equal(ready.status, 'ready', ready.failure_reason);
    assert.ok((await stored(keys.source)).equals(file));
  });

  it('an import from a URL becomes the source in the store, and the video plays', async () => {
    const file = await readFile(await media('h264-aac-320p-4s.mp4'));
    const server = createServer((_req, res) => res.writeHead(200, { 'content-length': file.length }).end(file));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const id = await newVideo();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/clip.mp4`;
      const started = await service.call('POST', `/videos/${id}/import`, { token, body: { url } });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const ready = await waitForVideo(service, token, id);
      assert.equal(ready.status, 'ready', ready.failure_reason);
      await engines.waitForStoreRequests((r) => putsOf(r, id).some((p) => p.path.includes('/source')));
      await assertPlaysAndDownloads(ready);
      // The download was the import's work space only: processing took the source from the store.
      assert.deepEqual(await readdir(join(service.data, 'videos')).catch(() => []), []);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('#3–#6: each chunk goes straight to the store, #6 checks the eTags and joins them; the video plays', async () => {
    const file = await readFile(await media('h264-aac-720p-10s-12mb.mp4'));
    const id = await newVideo();
    const begun = await service.call('POST', `/videos/${id}/multipart-upload/begin`, { token });
    assert.equal(begun.status, 200);
    const { key } = begun.body;
    const eTags: string[] = [];
    for (let start = 0, chunkId = 1; start < file.length; start += PART_BYTES, chunkId++) {
      const { body } = await service.call('POST', `/videos/${id}/multipart-upload/get-chunk-upload-url`, {
        token,
        body: { key, chunkId },
      });
      assert.ok(body.url.startsWith(`${endpoint}/${bucket}/`), body.url);
      const sent = await put(body.url, file.subarray(start, start + PART_BYTES));
      assert.equal(sent.status, 200);
      eTags.push(sent.etag!);
    }
    assert.equal(eTags.length, 3);
    const requests = await engines.waitForStoreRequests(
      (r) => putsOf(r, id).filter((p) => /[?&]partNumber=\d/.test(p.path)).length === 3,
    );
    assert.deepEqual(
      putsOf(requests, id).map((p) => p.status),
      [200, 200, 200],
    );

    // The spec's check on what the store holds: an eTag that is not the stored chunk's is 400 invalid_field.
    const wrong = await completeMultipart(service, token, key, [eTags[0]!, `"${'0'.repeat(32)}"`, eTags[2]!], {
      video: id,
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.code, 'invalid_field');
    assert.equal(wrong.body.error.field, 'chunks[1].eTag');

    const done = await completeMultipart(service, token, key, eTags, { video: id });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const ready = await waitForVideo(service, token, id);
    assert.equal(ready.status, 'ready', ready.failure_reason);
    await assertPlaysAndDownloads(ready);

    // No byte of either upload reached the service's own storage origin.
    const { requests: origin } = (await service.call('GET', '/__test__/storage-requests')).body as {
      requests: unknown[];
    };
    assert.deepEqual(origin, []);
  });

  it("#6 refuses a source past the organization's storage quota, which counts what the store holds", async () => {
    const small = await service.token('small');
    await service.cli('plan', '--org', 'small', '--quota-bytes', String(PART_BYTES));
    const { body: video } = await service.call('POST', '/videos', { token: small });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, {
      token: small,
    });
    const eTags: string[] = [];
    for (const chunkId of [1, 2]) {
      const { body: link } = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token: small,
        body: { key: session.key, chunkId },
      });
      eTags.push((await put(link.url, randomBytes(PART_BYTES)))!.etag!);
    }
    const refused = await completeMultipart(service, small, session.key, eTags);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'storage_quota_exceeded');
    const { body: after } = await service.call('GET', `/videos/${video._id}`, { token: small });
    assert.equal(after.status, 'waiting');
  });

  it('a live push: each segment goes to the store as it closes, and the store holds its segments only', async () => {
    const stream = await createStream(service, token);
    assert.equal(await push(stream.ingest.url, 6), 0);
    const recording = await stream.waitFor('the publish to stop', (r) => r.status === 'stopped');
    // A part stops once the store has every segment its recorder closed: nothing more to wait for.
    const part = join(service.data, 'recordings', recording._id, 'part1');
    const named = playlistSegments(await readFile(join(part, 'stream.m3u8'), 'utf8')).map((s) => s.file);
    assert.ok(named.length >= 2, named.join());
    const keys = (await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'media/orgs/' })))
      .Contents!.map((o) => o.Key!)
      .filter((k) => k.includes(`/recordings/${recording._id}/part1/`));
    assert.deepEqual(keys.map((k) => k.slice(k.lastIndexOf('/') + 1)).sort(), [...named].sort());

    // Another API process, which holds none of the recording's files (its ingest node's --data is not its own):
    // it serves the recording's playlist from the segments' rows, and each segment from the store.
    await rm(join(service.data, 'recordings', recording._id), { recursive: true, force: true });
    const other = await startService({ data: service.data, args: serviceArgs });
    try {
      const listed = await other.call('GET', `/live_streams/${stream._id}/temporary_recordings`, { token });
      const playback = listed.body[0].playback.temporary_playback as string;
      assert.ok(playback.startsWith(other.api), playback);
      const playlist = await fetch(playback);
      assert.equal(playlist.status, 200);
      const served = (await playlist.text()).split('\n').filter((l) => l.trim() && !l.startsWith('#'));
      assert.equal(served.length, named.length);
      const segment = await fetch(new URL(served[0]!, playback));
      assert.equal(segment.status, 200);
      assert.ok(segment.url.startsWith(`${endpoint}/${bucket}/`), segment.url);
      assert.equal(new Uint8Array(await segment.arrayBuffer())[0], 0x47);
    } finally {
      await other.stop();
    }
  });

  it('#7: aborting leaves nothing of the upload in the store', async () => {
    const id = await newVideo();
    const { body: session } = await service.call('POST', `/videos/${id}/multipart-upload/begin`, { token });
    const { body: link } = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
      token,
      body: { key: session.key, chunkId: 1 },
    });
    assert.equal((await put(link.url, randomBytes(PART_BYTES))).status, 200);
    const folder = new URL(link.url).pathname.slice(`/${bucket}/`.length).replace(/source$/, '');
    assert.match(folder, new RegExp(`^media/orgs/[^/]+/videos/${id}/$`));
    assert.equal((await heldFor(folder)).uploads.length, 1, 'the upload is open before the abort');

    const aborted = await service.call('POST', '/videos/multipart-upload/abort', { token, body: { key: session.key } });
    assert.equal(aborted.status, 200);
    assert.deepEqual(await heldFor(folder), { objects: [], uploads: [] });
  });

  /** What a worker holds of recordings on its disk: their folders, and its jobs' scratch folders (s3-recordings.ts). */
  const scratchOf = async (worker: RunningService) =>
    (
      await Promise.all(
        ['recordings', 'recording-jobs'].map((folder) => readdir(join(worker.data, folder)).catch(() => [])),
      )
    ).flat();

  it('a live push recorded by an ingest node completes and converts (#10) on a worker of another machine', async () => {
    // Three machines, each its own --data, on one PostgreSQL database and this store: nothing of the recording is on
    // the worker's disk or the API's, only in the store (storage/s3-recordings.ts).
    const database = await freshDatabase(engines.databaseUrl, 's3_service');
    const args = [...serviceArgs, '--database', database, '--merge-window-seconds', '1'];
    const [api, ingest, worker] = await Promise.all([
      startService({ role: 'api', args }),
      startService({ role: 'ingest', args }),
      startService({ role: 'worker', args }),
    ]);
    try {
      const apiToken = await api.cli('token', '--org', 'acme', '--database', database);
      const stream = await createStream(api, apiToken);
      assert.equal(await push(`${ingest.rtmp}/${stream.stream_key}`, 6), 0, 'the publish ran to its end');
      const recording = await stream.waitFor('the recording to complete', (r) => r.status === 'complete', 0, 120_000);
      assert.ok(recording.duration >= 5, JSON.stringify(recording));
      // Its MP4 was made on the worker and kept in the store: the download is a link there.
      const download = await fetch(recording.download_url);
      assert.equal(download.status, 200);
      assert.ok(download.url.startsWith(`${endpoint}/${bucket}/`), download.url);
      assert.ok(Math.abs((await probeDuration(download.url)) - recording.duration) <= 1);
      assert.deepEqual(await scratchOf(worker), [], "the worker's scratch");

      // A part of it (cut from the MP4 fetched from the store), and the whole of it.
      const from = new Date(Date.parse(recording.start_time) + 1_000).toISOString();
      const part = await stream.convert(recording._id, { from, duration: 3 });
      assert.equal(part.status, 200, JSON.stringify(part.body));
      const whole = await stream.convert(recording._id, {});
      assert.equal(whole.status, 200, JSON.stringify(whole.body));
      const exported = await stream.waitFor(
        'both conversions to be exported',
        (r) => r.export_data.length === 2 && r.export_data.every((e: any) => e.status !== 'PROCESSING'),
        0,
        240_000,
      );
      const lengths = [3, recording.duration];
      for (const [i, entry] of exported.export_data.entries()) {
        assert.equal(entry.status, 'EXPORTED', JSON.stringify(exported.export_data));
        const video = await waitForVideo(api, apiToken, entry.video_id);
        assert.equal(video.status, 'ready', JSON.stringify(video));
        await assertPlaysAndDownloads(video);
        assert.ok(Math.abs((await probeDuration(video.playback.hls_url)) - lengths[i]!) <= 1, JSON.stringify(entry));
      }
      assert.deepEqual(await scratchOf(worker), [], "the worker's scratch");
    } finally {
      await Promise.all([api.stop(), ingest.stop(), worker.stop()]);
    }
  });

  describe('#6 and #7 at once, in two API processes on one PostgreSQL database', () => {
    let one: RunningService;
    let two: RunningService;
    let owner: string;
    /** Holds a row locked, as a slow transaction of a third process would; `watch` sees who waits for it. */
    let holder: pg.Client;
    let watch: pg.Client;

    before(async () => {
      const database = await freshDatabase(engines.databaseUrl, 's3_close');
      const args = [...serviceArgs, '--database', database];
      [one, two] = await Promise.all([startService({ role: 'api', args }), startService({ role: 'api', args })]);
      owner = await one.cli('token', '--org', 'acme', '--database', database);
      holder = new pg.Client({ connectionString: database });
      watch = new pg.Client({ connectionString: database });
      await Promise.all([holder.connect(), watch.connect()]);
    });

    after(async () => {
      await Promise.all([holder?.end(), watch?.end()]);
      await Promise.all([one?.stop(), two?.stop()]);
    });

    /** A session of a new video with one chunk in the store: its key, the chunk's eTag, the video and its folder. */
    async function sessionWithAChunk() {
      const { body: video } = await one.call('POST', '/videos', { token: owner });
      const { body: session } = await one.call('POST', `/videos/${video._id}/multipart-upload/begin`, {
        token: owner,
      });
      const { body: link } = await one.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token: owner,
        body: { key: session.key, chunkId: 1 },
      });
      const sent = await put(link.url, randomBytes(100_000));
      assert.equal(sent.status, 200);
      const folder = new URL(link.url).pathname.slice(`/${bucket}/`.length).replace(/source$/, '');
      return { key: session.key as string, eTag: sent.etag!, video: video._id as string, folder };
    }

    /** `row` locked FOR UPDATE until the returned function commits. */
    async function hold(query: string, value: string): Promise<() => Promise<unknown>> {
      await holder.query('BEGIN');
      await holder.query(query, [value]);
      return () => holder.query('COMMIT');
    }

    /** Until `n` statements of the two processes wait for a lock (in the order they were sent). */
    const waiting = (n: number) =>
      until(`${n} statements waiting for a row lock`, async () => {
        const { rows } = await watch.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0].n >= n ? true : undefined;
      });

    /**
     * With the row `query` selects held, #7 is sent to the second process and #6 to the first, each once it waits on
     * the row in that order; then the row goes free. Their answers, #7's first.
     */
    async function abortThenComplete(upload: { key: string; eTag: string }, query: string, value: string) {
      const release = await hold(query, value);
      const aborting = two.call('POST', '/videos/multipart-upload/abort', { token: owner, body: { key: upload.key } });
      await waiting(1);
      const completing = completeMultipart(one, owner, upload.key, [upload.eTag]);
      await waiting(2);
      await release();
      return Promise.all([aborting, completing]);
    }

    it('#7 that reaches the session while #6 completes it is refused 409 session_completing; #6 completes', async () => {
      const upload = await sessionWithAChunk();
      // The session's row held: #7's close waits first, then #6's commit, after it joined the parts in the store.
      const [aborted, completed] = await abortThenComplete(
        upload,
        'SELECT key FROM upload_sessions WHERE key = $1 FOR UPDATE',
        upload.key,
      );

      assert.equal(completed.status, 200, JSON.stringify(completed.body));
      assert.equal(aborted.status, 409, JSON.stringify(aborted.body));
      assert.equal(aborted.body.error.code, 'session_completing');
      const { body: video } = await one.call('GET', `/videos/${upload.video}`, { token: owner });
      assert.equal(video.status, 'processing');
      const held = await heldFor(upload.folder);
      assert.deepEqual(
        held.objects.map((o) => o.Key),
        [`${upload.folder}source`],
      );
      assert.deepEqual(held.uploads, []);
    });

    it('#6 that claims the video after #7 closed the session answers 409 session_closed and asks the store nothing', async () => {
      const upload = await sessionWithAChunk();
      // The video's row held: #7's close waits first (for the claim's row), then #6's claim.
      const [aborted, completed] = await abortThenComplete(
        upload,
        'SELECT id FROM videos WHERE id = $1 FOR UPDATE',
        upload.video,
      );

      assert.equal(aborted.status, 200, JSON.stringify(aborted.body));
      assert.equal(completed.status, 409, JSON.stringify(completed.body));
      assert.equal(completed.body.error.code, 'session_closed');
      const { body: video } = await one.call('GET', `/videos/${upload.video}`, { token: owner });
      assert.equal(video.status, 'waiting');
      assert.deepEqual(await heldFor(upload.folder), { objects: [], uploads: [] });
      // Nothing of #6 reached the store: no ListParts (GET) and no CompleteMultipartUpload (POST) of the upload.
      // A request made after both answered marks where the store's log must have got to.
      const marker = `marker-${randomBytes(4).toString('hex')}`;
      await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: marker })).catch(() => undefined);
      const requests = await engines.waitForStoreRequests((r) => r.some((q) => q.path.includes(marker)));
      const ofUpload = requests.filter(
        (q) => q.path.startsWith(`/${bucket}/${upload.folder}source?`) && q.path.includes('uploadId='),
      );
      assert.deepEqual(
        ofUpload.filter((q) => q.method === 'GET' || q.method === 'POST').map((q) => `${q.method} ${q.path}`),
        [],
      );
      assert.ok(
        ofUpload.some((q) => q.method === 'DELETE'),
        "#7's AbortMultipartUpload",
      );
    });
  });
});
