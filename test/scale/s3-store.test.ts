/**
 * service/storage/s3.ts against a real S3 store: Ceph's RADOS Gateway, started once per run by
 * scripts/with-engines.ts (test/helpers/engines/environment.ts). Every call the service makes of the store, on real objects,
 * with the browser's side played by plain `fetch` (an Origin header, as a page sends it).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GetObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { MiB } from '../../src/api/limits.js';
import { ServiceError } from '../../service/domain/errors.js';
import { matchParts } from '../../service/storage/parts.js';
import { MIN_PART_BYTES, S3Store, type S3StoreOptions } from '../../service/storage/s3.js';
import { S3Uploads } from '../../service/storage/s3-uploads.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { tempDir } from '../helpers/temp.js';

const ORIGIN = 'https://app.example';
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
const HOUR = 60 * 60 * 1000;

const { endpoint, region, credentials } = scaleEngines().s3;
/** The run's store, as the tests below name its parts. */
const ceph = { endpoint, region, ...credentials };
const made: S3Store[] = [];
let bucketCount = 0;

/** A store on a bucket of its own (made by ensureBucket), so tests cannot see each other's objects. */
async function storeOn(overrides: Partial<S3StoreOptions> = {}): Promise<S3Store> {
  const store = new S3Store({
    bucket: `media-${process.pid}-${++bucketCount}`,
    prefix: 'prod/',
    endpoint: ceph.endpoint,
    region: ceph.region,
    forcePathStyle: true,
    credentials: { accessKeyId: ceph.accessKeyId, secretAccessKey: ceph.secretAccessKey },
    ...overrides,
  });
  made.push(store);
  if (!overrides.bucket) await store.ensureBucket();
  return store;
}

/** The refusal of the store as the service words it: its code, and a message with no secret and no XML. */
async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const err = await promise.then(
    () => assert.fail('the store call succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ServiceError, `a ServiceError, not ${String(err)}`);
  assert.equal(err.code, 'storage_unavailable');
  assert.doesNotMatch(err.message, /<\?xml|<Error>/);
  assert.ok(!err.message.includes(ceph.secretAccessKey) && !err.message.includes(ceph.accessKeyId), err.message);
  return err;
}

/** A port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const put = (url: string, body: Buffer, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'PUT',
    body: new Uint8Array(body),
    headers: { origin: ORIGIN, 'content-type': 'video/mp4', ...headers },
  });

after(() => {
  for (const store of made) store.destroy();
});

/** What the store holds under `prefix`: how many objects, and their bytes (one listing: these tests store few). */
async function held(store: S3Store, prefix: string): Promise<{ objects: number; bytes: number }> {
  const listed = await store.client.send(new ListObjectsV2Command({ Bucket: store.bucket, Prefix: prefix }));
  const objects = listed.Contents ?? [];
  return { objects: objects.length, bytes: objects.reduce((sum, o) => sum + (o.Size ?? 0), 0) };
}

describe('media on an S3 store (service/storage/s3.ts, on Ceph RGW)', { timeout: 240_000 }, () => {
  it("#2: a presigned PUT from a page's origin is allowed by the bucket's CORS, exposes the ETag, and head sees it", async () => {
    const store = await storeOn();
    await store.ensureBucket(); // a second start finds the bucket and sets the same CORS
    const key = store.keys.source('org-1', 'v1');
    const now = Date.now();
    const url = await store.putUrl(key, { signedAt: now, expiresAt: now + 6 * HOUR });
    assert.equal(await store.head(key), null, 'nothing before the PUT');

    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(preflight.status, 200);
    assert.match(preflight.headers.get('access-control-allow-origin') ?? '', /^(\*|https:\/\/app\.example)$/);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /PUT/);

    const body = randomBytes(300_000);
    const answer = await put(url, body);
    assert.equal(answer.status, 200, await answer.text());
    assert.match(answer.headers.get('access-control-allow-origin') ?? '', /^(\*|https:\/\/app\.example)$/);
    assert.match(answer.headers.get('access-control-expose-headers') ?? '', /etag/i);
    assert.equal(answer.headers.get('etag'), `"${md5(body)}"`, "the store's ETag is the MD5 of the body");
    assert.deepEqual(await store.head(key), { size: body.length, etag: md5(body) });
  });

  it("lets PUT and GET from the configured origins only, when the bucket's CORS names them", async () => {
    const store = await storeOn({ corsOrigins: [ORIGIN] });
    const now = Date.now();
    const url = await store.putUrl(store.keys.source('org-1', 'v0'), { signedAt: now, expiresAt: now + HOUR });
    const preflight = (origin: string) =>
      fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT' } });
    const allowed = await preflight(ORIGIN);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
    const other = await preflight('https://elsewhere.example');
    assert.equal(other.headers.get('access-control-allow-origin'), null, `status ${other.status}`);
  });

  it('keeps the CORS an operator gave the bucket, unless the service is given origins of its own', async () => {
    const store = await storeOn({ corsOrigins: [ORIGIN] });
    const preflight = async (origin: string) => {
      const now = Date.now();
      const url = await store.putUrl(store.keys.source('org-1', 'v1'), { signedAt: now, expiresAt: now + HOUR });
      const answer = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT' },
      });
      return answer.headers.get('access-control-allow-origin');
    };
    // Another process starts without --s3-cors-origins: the operator's configuration stays.
    const again = await storeOn({ bucket: store.bucket });
    assert.deepEqual(await again.ensureBucket(), { cors: 'kept' });
    assert.equal(await preflight('https://elsewhere.example'), null, 'still only the configured origin');
    assert.equal(await preflight(ORIGIN), ORIGIN);
    // Origins given to the service are its to set, at every start.
    const other = await storeOn({ bucket: store.bucket, corsOrigins: ['https://elsewhere.example'] });
    assert.deepEqual(await other.ensureBucket(), { cors: 'set' });
    assert.equal(await preflight('https://elsewhere.example'), 'https://elsewhere.example');
  });

  it('#2: a link signed with a size takes that many bytes only, and no link works after its expiry', async () => {
    const store = await storeOn();
    const key = store.keys.source('org-1', 'v2');
    const now = Date.now();
    const sized = await store.putUrl(key, { signedAt: now, expiresAt: now + HOUR, size: 1000 });
    assert.equal((await put(sized, randomBytes(1001))).status, 403, 'another length is refused');
    assert.equal(await store.head(key), null);
    assert.equal((await put(sized, randomBytes(1000))).status, 200);

    const expired = await store.putUrl(store.keys.source('org-1', 'v3'), {
      signedAt: now - 2 * HOUR,
      expiresAt: now - HOUR,
    });
    assert.equal((await put(expired, randomBytes(10))).status, 403);
    assert.equal(await store.head(store.keys.source('org-1', 'v3')), null);
  });

  it("#2: a link's upload becomes the source only as the version seen; then its own key goes", async () => {
    const store = await storeOn();
    const uploads = new S3Uploads(store);
    const video = { organizationId: 'org-1', videoId: 'v11' };
    const incoming = store.keys.incoming('org-1', 'v11', 'link-1');
    const source = store.keys.source('org-1', 'v11');
    const now = Date.now();
    const link = await uploads.linkUrl(video, 'link-1', now, now + HOUR);
    assert.equal(new URL(link).pathname, `/${store.bucket}/${incoming}`, "the link's own key");
    assert.equal((await put(link, randomBytes(1000))).status, 200);
    const seen = (await uploads.uploaded(video, 'link-1'))!;
    assert.equal(seen.size, 1000);
    // The link used again between the look and the copy: the version seen is not taken.
    const second = randomBytes(2000);
    assert.equal((await put(link, second)).status, 200);
    assert.equal(await uploads.take(video, 'link-1', seen.etag), false);

    const now2 = (await uploads.uploaded(video, 'link-1'))!;
    assert.equal(await uploads.take(video, 'link-1', now2.etag), true);
    const got = await store.client.send(new GetObjectCommand({ Bucket: store.bucket, Key: source }));
    assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(second), 'the source is the version seen');
    await uploads.discard(video, 'link-1');
    await uploads.discard(video, 'link-1'); // deleted already: done
    assert.deepEqual(await store.keysUnder(store.keys.incomingRoot()), []);
    assert.equal(await uploads.take(video, 'link-1', now2.etag), false, 'a link upload that is gone is not taken');

    // The sweeper's pass: what a link still waits for stays, the rest goes.
    for (const id of ['kept', 'gone']) {
      const url = await uploads.linkUrl(video, id, now, now + HOUR);
      assert.equal((await put(url, randomBytes(10))).status, 200);
    }
    const asked: string[][] = [];
    await uploads.sweepIncoming(async (ids) => (asked.push(ids), new Set(['kept'])));
    assert.deepEqual(asked.flat().sort(), ['gone', 'kept']);
    assert.deepEqual(await store.keysUnder(store.keys.incomingRoot()), [store.keys.incoming('org-1', 'v11', 'kept')]);
  });

  it('#3–#6: three chunks PUT by presigned part links complete with the ETags the store gave them', async () => {
    const store = await storeOn();
    const key = store.keys.source('org-1', 'v4');
    const uploadId = await store.createMultipart(key, 'video/mp4');
    const chunks = [randomBytes(MIN_PART_BYTES), randomBytes(MIN_PART_BYTES + 17), randomBytes(1234)];
    const now = Date.now();
    const window = { signedAt: now, expiresAt: now + 6 * HOUR };
    const eTags: string[] = [];
    // Out of order and at once, as parallel uploads send them.
    await Promise.all(
      [2, 0, 1].map(async (i) => {
        const answer = await put(await store.partUrl(key, uploadId, i + 1, window), chunks[i]!);
        assert.equal(answer.status, 200, await answer.text());
        eTags[i] = answer.headers.get('etag')!;
      }),
    );
    assert.deepEqual(
      eTags,
      chunks.map((c) => `"${md5(c)}"`),
    );

    const stored = await store.listParts(key, uploadId);
    assert.deepEqual(
      stored,
      chunks.map((c, i) => ({ partNumber: i + 1, etag: md5(c), size: c.length })),
      "ListParts gives #6 each part's number, ETag and size",
    );
    const { parts, size } = matchParts(
      eTags.map((eTag, i) => ({ chunkId: i + 1, eTag })),
      stored,
      MIN_PART_BYTES,
    );
    assert.equal(size, MIN_PART_BYTES * 2 + 17 + 1234);
    const done = await store.completeMultipart(key, uploadId, parts);
    assert.match(done.etag, /^[0-9a-f]{32}-3$/, "S3's ETag of a 3-part object");

    const file = join(await tempDir('s3-store-'), 'source');
    assert.equal(await store.download(key, file, done.etag), size);
    assert.ok((await readFile(file)).equals(Buffer.concat(chunks)), 'the stored bytes are the chunks, in order');
    // Processing reads the version the upload was accepted with, never one a later PUT put in its place.
    const replaced = await refusal(store.download(key, `${file}-2`, md5(chunks[0]!)));
    assert.match(
      replaced.message,
      /could not download s3:\/\/media-\d+-\d+\/prod\/orgs\/org-1\/videos\/v4\/source \(at [^)]+\): it answered PreconditionFailed \(HTTP 412\)/,
    );
  });

  it('#6: ListParts reads every page of a long list', async () => {
    const store = await storeOn({ pageSize: 2 });
    const key = store.keys.source('org-1', 'v10');
    const uploadId = await store.createMultipart(key);
    const now = Date.now();
    const chunks = [1, 2, 3, 4, 5].map((n) => randomBytes(n * 10));
    for (const [i, chunk] of chunks.entries())
      await put(await store.partUrl(key, uploadId, i + 1, { signedAt: now, expiresAt: now + HOUR }), chunk);
    assert.deepEqual(
      (await store.listParts(key, uploadId)).map((p) => p.size),
      [10, 20, 30, 40, 50],
    );
    await store.abortMultipart(key, uploadId);
  });

  it('#6: a chunk sent again after the list is refused by the store at completion, as a bad chunk list', async () => {
    const store = await storeOn();
    const key = store.keys.source('org-1', 'v5');
    const uploadId = await store.createMultipart(key);
    const now = Date.now();
    const window = { signedAt: now, expiresAt: now + HOUR };
    const first = randomBytes(MIN_PART_BYTES);
    await put(await store.partUrl(key, uploadId, 1, window), first);
    await put(await store.partUrl(key, uploadId, 2, window), randomBytes(10));
    const { parts } = matchParts(
      (await store.listParts(key, uploadId)).map((p) => ({ chunkId: p.partNumber, eTag: p.etag })),
      await store.listParts(key, uploadId),
    );
    await put(await store.partUrl(key, uploadId, 1, window), randomBytes(MIN_PART_BYTES));
    const err = await store.completeMultipart(key, uploadId, parts).then(
      () => assert.fail('completed with a replaced part'),
      (e: unknown) => e as ServiceError,
    );
    assert.equal(err.code, 'invalid_field');
    assert.equal(err.field, 'chunks');
    assert.match(err.message, /sent again meanwhile/);
  });

  it('#7: an abort leaves no part and no upload, a part link stops working, and aborting again is done', async () => {
    const store = await storeOn();
    const key = store.keys.source('org-1', 'v6');
    const uploadId = await store.createMultipart(key);
    const now = Date.now();
    const link = await store.partUrl(key, uploadId, 1, { signedAt: now, expiresAt: now + HOUR });
    assert.equal((await put(link, randomBytes(1000))).status, 200);
    await store.abortMultipart(key, uploadId);

    const uploads = await store.client.send(new ListMultipartUploadsCommand({ Bucket: store.bucket }));
    assert.deepEqual(uploads.Uploads ?? [], []);
    assert.equal((await put(link, randomBytes(1000))).status, 404, 'NoSuchUpload');
    assert.deepEqual(await held(store, store.keys.organization('org-1')), { objects: 0, bytes: 0 });
    // #6 lists the parts first: an aborted upload is a closed session. (Ceph Pacific answers a Complete of it with
    // a 500 InternalError, AWS with NoSuchUpload: the list is what tells them apart from a failing store.)
    const late = await store.listParts(key, uploadId).then(
      () => assert.fail('the store still has the upload'),
      (e: unknown) => e as ServiceError,
    );
    assert.equal(late.code, 'session_closed', late.message);
    await store.abortMultipart(key, uploadId);
  });

  it("processing: a folder of outputs goes up with its types and cache headers, plays by presigned GETs (ranges too), and a rendition playlist's segments play signed", async () => {
    // Files from 5 MiB go up in parts here, so the path a long MP4 takes runs too.
    const store = await storeOn({ multipartFrom: MIN_PART_BYTES });
    const out = await tempDir('s3-outputs-');
    await mkdir(join(out, 'main'));
    const files: Record<string, Buffer> = {
      'index.m3u8': Buffer.from('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nmain/stream.m3u8\n'),
      'main/stream.m3u8': Buffer.from(
        '#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\nseg0000.ts\n#EXTINF:2.0,\nseg0001.ts\n#EXT-X-ENDLIST\n',
      ),
      'main/seg0000.ts': randomBytes(188 * 1000),
      'main/seg0001.ts': randomBytes(188 * 500),
      'download.mp4': randomBytes(12 * MiB + 3),
      'poster.jpg': randomBytes(20_000),
    };
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(out, name), bytes);
    const media = store.keys.media('org-1', 'v7');
    const total = Object.values(files).reduce((sum, b) => sum + b.length, 0);
    assert.equal(await store.uploadFolder(out, media), total);
    assert.deepEqual(await held(store, media), { objects: 6, bytes: total });

    const types = {
      'index.m3u8': ['application/vnd.apple.mpegurl', 'public, max-age=60'],
      'main/seg0000.ts': ['video/mp2t', 'public, max-age=86400'],
      'download.mp4': ['video/mp4', 'public, max-age=86400'],
      'poster.jpg': ['image/jpeg', 'public, max-age=86400'],
    } as const;
    for (const [name, [type, cache]] of Object.entries(types)) {
      const answer = await fetch(await store.getUrl(media + name), { headers: { origin: ORIGIN } });
      assert.equal(answer.status, 200, name);
      assert.equal(answer.headers.get('content-type'), type, name);
      assert.equal(answer.headers.get('cache-control'), cache, name);
      assert.match(answer.headers.get('access-control-allow-origin') ?? '', /^(\*|https:\/\/app\.example)$/, name);
      assert.ok(Buffer.from(await answer.arrayBuffer()).equals(files[name]!), `${name}: the bytes written`);
    }
    const ranged = await fetch(await store.getUrl(`${media}download.mp4`), { headers: { range: 'bytes=100-199' } });
    assert.equal(ranged.status, 206);
    assert.ok(Buffer.from(await ranged.arrayBuffer()).equals(files['download.mp4']!.subarray(100, 200)));

    const signed = await store.signedPlaylist(`${media}main/stream.m3u8`, media);
    const segments = signed.split('\n').filter((l) => l.startsWith('http'));
    assert.equal(segments.length, 2);
    for (const [i, url] of segments.entries()) {
      const answer = await fetch(url);
      assert.equal(answer.status, 200);
      assert.ok(Buffer.from(await answer.arrayBuffer()).equals(files[`main/seg000${i}.ts`]!));
    }
    const unsigned = new URL(segments[0]!);
    unsigned.search = '';
    assert.equal((await fetch(unsigned)).status, 403, 'the bucket is private: only signed links read it');

    // A playlist not written yet is the API's 404; one naming an object outside its video is refused.
    const missing = await store.signedPlaylist(`${media}360p/stream.m3u8`, media).catch((e: unknown) => e);
    assert.equal((missing as ServiceError).code, 'not_found');
    const other = await tempDir('s3-other-');
    await writeFile(join(other, 'stream.m3u8'), '#EXTM3U\n#EXTINF:4.0,\n../../../v1/media/main/seg0000.ts\n');
    await store.uploadFolder(other, `${media}x/`);
    await assert.rejects(
      store.signedPlaylist(`${media}x/stream.m3u8`, media),
      /names "(\.\.\/){3}v1\/media\/main\/seg0000\.ts", outside its video/,
    );
  });

  it("deletes everything under a video's prefix, uploads not completed too, and nothing of another video", async () => {
    // Two keys per list: every page of each list is read.
    const store = await storeOn({ pageSize: 2 });
    const out = await tempDir('s3-delete-');
    for (let i = 0; i < 5; i++) await writeFile(join(out, `seg000${i}.ts`), randomBytes(1000 + i));
    const gone = store.keys.video('org-1', 'v8');
    const kept = store.keys.video('org-1', 'v9');
    await store.uploadFolder(out, `${gone}media/`);
    await store.uploadFolder(out, `${kept}media/`);
    await store.createMultipart(`${gone}source`);
    await store.createMultipart(`${gone}source`);
    await store.createMultipart(`${gone}media/download.mp4`);

    assert.equal(await store.deletePrefix(gone), 5);
    assert.deepEqual(await held(store, gone), { objects: 0, bytes: 0 });
    const uploads = await store.client.send(new ListMultipartUploadsCommand({ Bucket: store.bucket, Prefix: gone }));
    assert.deepEqual(uploads.Uploads ?? [], []);
    assert.deepEqual(await held(store, kept), { objects: 5, bytes: 5000 + 10 });
    assert.deepEqual(await held(store, store.keys.organization('org-1')), { objects: 5, bytes: 5010 });
    // Listed two by two, every page read.
    assert.equal((await store.keysUnder(kept)).length, 5);
  });

  it('says which bucket or endpoint failed, with no secret and no XML: a missing bucket, wrong credentials, no store', async () => {
    const missing = await storeOn({ bucket: 'no-such-bucket-here' });
    const noBucket = await refusal(missing.keysUnder('orgs/'));
    assert.match(noBucket.message, /the bucket "no-such-bucket-here" does not exist/);
    assert.match(noBucket.message, new RegExp(ceph.endpoint.replace(/[.:/]/g, '\\$&')));
    await refusal(missing.createMultipart('orgs/o/videos/v/source'));

    const wrongKey = await storeOn({
      bucket: 'no-such-bucket-here',
      credentials: { accessKeyId: ceph.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    assert.match((await refusal(wrongKey.ensureBucket())).message, /refused the service's credentials \(\w+\)/);

    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const down = await storeOn({ bucket: 'media', endpoint: nowhere });
    const unreachable = await refusal(down.head('orgs/o/videos/v/source'));
    assert.match(
      unreachable.message,
      new RegExp(`could not read s3://media/orgs/o/videos/v/source \\(at ${nowhere.replace(/[.:/]/g, '\\$&')}\\)`),
    );
    assert.match(unreachable.message, /did not answer \(ECONNREFUSED\)/);
  });
});
