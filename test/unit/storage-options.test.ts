import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MiB } from '../../src/api/limits.js';
import { ServiceError } from '../../service/domain/errors.js';
import { errorAnswer } from '../../service/http/errors.js';
import { storageListens } from '../../service/ports.js';
import { describeStore, storageOptions, type S3Options } from '../../service/storage/options.js';
import { matchParts } from '../../service/storage/parts.js';
import { keyBeside, signPlaylist } from '../../service/storage/playlist-links.js';
import { Keys, PLAYBACK_LINK_MS, S3Store } from '../../service/storage/s3.js';
import { domainUnderTest } from '../helpers/domain.js';

const s3 = (flags: Parameters<typeof storageOptions>[0], env: Record<string, string> = {}): S3Options => {
  const options = storageOptions(flags, env);
  assert.equal(options.kind, 's3');
  return (options as { s3: S3Options }).s3;
};
const refuses = (flags: Parameters<typeof storageOptions>[0], message: RegExp, env: Record<string, string> = {}) =>
  assert.throws(() => storageOptions(flags, env), message);

describe('the object store options (service/storage/options.ts)', () => {
  it('stays on the data directory without --storage, or with --storage disk', () => {
    assert.deepEqual(storageOptions({}), { kind: 'disk' });
    assert.deepEqual(storageOptions({ storage: 'disk' }), { kind: 'disk' });
    refuses({ 's3-endpoint': 'http://127.0.0.1:9000' }, /--s3-endpoint applies to an object store only/);
  });

  it("takes the storage origin's hosts on the data directory: a count, or host:port entries (--storage-hosts)", () => {
    assert.deepEqual(storageOptions({ 'storage-hosts': '3' }), { kind: 'disk', hosts: 3 });
    assert.deepEqual(storageOptions({ 'storage-hosts': '198.18.0.2:4501, [::1]:4502,store.test:0' }), {
      kind: 'disk',
      hosts: [
        { host: '198.18.0.2', port: 4501 },
        { host: '::1', port: 4502 },
        { host: 'store.test', port: 0 },
      ],
    });
    // A count on a loopback --host: that many loopback addresses on one port; on another host, that many ports.
    assert.deepEqual(storageListens(2, '127.0.0.1', 4501), [
      { host: '127.0.0.1', port: 4501 },
      { host: '127.0.0.2', port: 4501 },
    ]);
    assert.deepEqual(storageListens(3, '198.18.0.2', 4501), [
      { host: '198.18.0.2', port: 4501 },
      { host: '198.18.0.2', port: 4502 },
      { host: '198.18.0.2', port: 4503 },
    ]);
    assert.deepEqual(storageListens(2, '0.0.0.0', 0), [
      { host: '0.0.0.0', port: 0 },
      { host: '0.0.0.0', port: 0 },
    ]);
    refuses({ 'storage-hosts': Array(17).fill('127.0.0.1:0').join(',') }, /--storage-hosts lists 17 hosts; at most 16/);
  });

  it('reads bucket and prefix, endpoint, region and path style from flags, before the AWS variables', () => {
    const env = { AWS_ENDPOINT_URL: 'https://s3.example.com', AWS_REGION: 'eu-west-3' };
    assert.deepEqual(s3({ storage: 's3://media/videos//prod/' }, env), {
      bucket: 'media',
      prefix: 'videos/prod/',
      endpoint: 'https://s3.example.com',
      region: 'eu-west-3',
      forcePathStyle: false,
    });
    const flagged = s3(
      {
        storage: 's3://media',
        's3-endpoint': 'http://127.0.0.1:7480/',
        's3-region': 'auto',
        's3-path-style': true,
        'media-base-url': 'https://cdn.example.com/',
      },
      { ...env, AWS_ENDPOINT_URL_S3: 'https://other.example.com' },
    );
    assert.deepEqual(flagged, {
      bucket: 'media',
      prefix: '',
      endpoint: 'http://127.0.0.1:7480',
      region: 'auto',
      forcePathStyle: true,
      mediaBaseUrl: 'https://cdn.example.com',
    });
    assert.equal(
      s3({ storage: 's3://media' }, { AWS_ENDPOINT_URL_S3: 'https://a.example', AWS_ENDPOINT_URL: 'https://b.example' })
        .endpoint,
      'https://a.example',
    );
    assert.equal(s3({ storage: 's3://media' }, { AWS_DEFAULT_REGION: 'ap-south-1' }).region, 'ap-south-1');
    assert.equal(s3({ storage: 's3://media' }).region, 'us-east-1');
    assert.equal(s3({ storage: 's3://media' }).endpoint, undefined, 'AWS S3 when no endpoint is named');
  });

  it('takes credentials from the environment only, both halves or none, and never shows them', () => {
    const env = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI', AWS_SESSION_TOKEN: 'tok' };
    const options = s3({ storage: 's3://media/p', 's3-endpoint': 'http://127.0.0.1:7480' }, env);
    assert.deepEqual(options.credentials, {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI',
      sessionToken: 'tok',
    });
    assert.equal(s3({ storage: 's3://media' }).credentials, undefined, "the SDK's default chain");
    assert.equal(describeStore(options), 's3://media/p/ (at http://127.0.0.1:7480)');
    assert.equal(describeStore(s3({ storage: 's3://media' })), 's3://media/ (at AWS S3, us-east-1)');
    assert.throws(
      () => storageOptions({ storage: 's3://media' }, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE' }),
      (err: Error) => /AWS_SECRET_ACCESS_KEY is not set/.test(err.message) && !err.message.includes('AKIDEXAMPLE'),
    );
  });

  it('refuses a bad value naming the flag and the value', () => {
    refuses({ storage: 'gs://media' }, /--storage must be "disk" or s3:\/\/BUCKET\[\/PREFIX\]; got "gs:\/\/media"/);
    refuses({ storage: 's3://' }, /--storage must be/);
    refuses({ storage: 's3://Media_Bucket' }, /bucket "Media_Bucket", which is not a valid S3 bucket name/);
    refuses({ storage: 's3://ab' }, /bucket "ab"/);
    refuses({ storage: 's3://media/../x' }, /prefix must not contain/);
    refuses(
      { storage: 's3://media', 's3-endpoint': 'ftp://host' },
      /--s3-endpoint must be an http\(s\) address.*"ftp:\/\/host"/,
    );
    // The refused address is shown without the credentials in it: the message reaches a terminal and the logs.
    assert.throws(
      () => storageOptions({ storage: 's3://media', 's3-endpoint': 'http://key:secret@host' }),
      (err: Error) =>
        /without query or credentials.*; got "http:\/\/\*\*\*@host"/.test(err.message) &&
        !err.message.includes('secret'),
    );
    refuses({ storage: 's3://media' }, /AWS_ENDPOINT_URL must be an http\(s\) address/, {
      AWS_ENDPOINT_URL: 'nonsense',
    });
    refuses({ storage: 's3://media', 's3-region': 'EU West' }, /--s3-region must be a region name.*"EU West"/);
    refuses({ storage: 's3://media', 'media-base-url': '/media' }, /--media-base-url must be an http\(s\) address/);
    refuses(
      { storage: 's3://media', 's3-cors-origins': 'https://app.example.com/upload' },
      /--s3-cors-origins must be \* or origins separated by commas.*"https:\/\/app.example.com\/upload"/,
    );
    refuses({ 's3-cors-origins': '*' }, /--s3-cors-origins applies to an object store only/);
  });

  it("takes the bucket's CORS origins from --s3-cors-origins, and leaves the bucket's own without it", () => {
    assert.deepEqual(
      s3({ storage: 's3://media', 's3-cors-origins': 'https://app.example.com, http://127.0.0.1:8080' }).corsOrigins,
      ['https://app.example.com', 'http://127.0.0.1:8080'],
    );
    assert.deepEqual(s3({ storage: 's3://media', 's3-cors-origins': '*' }).corsOrigins, ['*']);
    assert.equal(s3({ storage: 's3://media' }).corsOrigins, undefined);
  });
});

describe("the store's key layout (service/storage/s3.ts, Keys)", () => {
  it("puts each organization's media under one prefix, and refuses a segment that could climb out of it", () => {
    const keys = new Keys('prod/');
    assert.equal(keys.source('org-1', 'a'.repeat(24)), `prod/orgs/org-1/videos/${'a'.repeat(24)}/source`);
    assert.equal(keys.media('org-1', 'v1', 'main/seg0000.ts'), 'prod/orgs/org-1/videos/v1/media/main/seg0000.ts');
    assert.equal(keys.recording('org-1', 'r1'), 'prod/orgs/org-1/recordings/r1/');
    assert.ok(keys.video('org-1', 'v1').startsWith(keys.organization('org-1')));
    assert.equal(keys.incoming('org-1', 'v1', 'l1'), 'prod/incoming/org-1/v1/l1', "a #2 link's own key");
    assert.ok(keys.incoming('org-1', 'v1', 'l1').startsWith(keys.incomingRoot()));
    assert.throws(() => keys.incoming('org-1', 'v1', '../source'), /Not a key segment/);
    for (const bad of ['..', 'a/b', '', 'ü']) assert.throws(() => keys.video(bad, 'v1'), /Not a key segment/);
  });
});

describe("#6's checks against the store's parts (service/storage/parts.ts)", () => {
  const stored = [
    { partNumber: 1, etag: 'aa', size: 5 * MiB },
    { partNumber: 2, etag: 'bb', size: 5 * MiB },
    { partNumber: 3, etag: 'cc', size: 10 },
    { partNumber: 4, etag: 'dd', size: 10 },
  ];
  const field = (err: unknown) => (err as ServiceError).field;

  it('accepts chunks 1..N in any order with their quoted eTags, and leaves unlisted parts out', () => {
    assert.deepEqual(
      matchParts(
        [
          { chunkId: 3, eTag: '"CC"' },
          { chunkId: 1, eTag: '"aa"' },
          { chunkId: 2, eTag: 'bb' },
        ],
        stored,
        5 * MiB,
      ),
      {
        parts: [
          { partNumber: 1, etag: 'aa' },
          { partNumber: 2, etag: 'bb' },
          { partNumber: 3, etag: 'cc' },
        ],
        size: 10 * MiB + 10,
      },
    );
  });

  it('refuses a gap, a duplicate, a chunk never stored, a wrong eTag, and a small chunk before the last', () => {
    assert.throws(() => matchParts([{ chunkId: 2, eTag: 'bb' }], stored), /chunk 1 is missing/);
    assert.throws(
      () =>
        matchParts(
          [
            { chunkId: 1, eTag: 'aa' },
            { chunkId: 1, eTag: 'aa' },
          ],
          stored,
        ),
      /chunkId 1 is listed twice/,
    );
    assert.throws(
      () =>
        matchParts(
          [1, 2, 3, 4, 5].map((n) => ({ chunkId: n, eTag: 'x' })),
          stored.slice(0, 4).map((p) => ({ ...p, etag: 'x' })),
        ),
      (err) => field(err) === 'chunks[4].chunkId' && /Chunk 5 was never uploaded/.test((err as Error).message),
    );
    assert.throws(
      () =>
        matchParts(
          [
            { chunkId: 2, eTag: '"bb"' },
            { chunkId: 1, eTag: '"ab"' },
          ],
          stored,
        ),
      (err) => field(err) === 'chunks[1].eTag' && /stored chunk has "aa"/.test((err as Error).message),
    );
    assert.throws(
      () =>
        matchParts(
          [1, 2, 3, 4].map((n, i) => ({ chunkId: n, eTag: stored[i]!.etag })),
          stored,
          5 * MiB,
        ),
      (err) => field(err) === 'chunks[2]' && /at least 5242880/.test((err as Error).message),
    );
  });
});

describe('playlists with signed segment links (service/storage/playlist-links.ts)', () => {
  it("replaces a rendition playlist's relative URIs, lines and attributes, and leaves absolute ones", async () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXTINF:4.0,',
      'seg0000.ts',
      '#EXTINF:4.0,',
      'https://elsewhere.example/seg0001.ts',
      '#EXT-X-ENDLIST',
      '',
    ].join('\n');
    const signed = await signPlaylist(text, async (uri) => `https://store.example/${uri}?X-Amz-Signature=1`);
    assert.equal(
      signed,
      [
        '#EXTM3U',
        '#EXT-X-MAP:URI="https://store.example/init.mp4?X-Amz-Signature=1"',
        '#EXTINF:4.0,',
        'https://store.example/seg0000.ts?X-Amz-Signature=1',
        '#EXTINF:4.0,',
        'https://elsewhere.example/seg0001.ts',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });

  it('resolves a URI to the key beside its playlist, never above the video', () => {
    const root = 'orgs/o/videos/v/media/';
    assert.equal(keyBeside(`${root}main/stream.m3u8`, 'seg0001.ts', root), `${root}main/seg0001.ts`);
    assert.equal(keyBeside(`${root}index.m3u8`, '360p/stream.m3u8', root), `${root}360p/stream.m3u8`);
    assert.equal(keyBeside(`${root}main/stream.m3u8`, '../../../w/media/x.ts', root), null);
    assert.equal(keyBeside(`${root}main/stream.m3u8`, '//evil/x.ts', root), null);
  });
});

describe('playback links (service/storage/s3.ts, getUrl; presigning reads no network)', () => {
  const options = {
    bucket: 'media',
    prefix: '',
    endpoint: 'http://127.0.0.1:9',
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI' },
  };
  const at = (iso: string) => () => Date.parse(iso);

  it('are the same from every process within the hour, valid 6 to 7 hours, and new the next hour', async () => {
    const key = 'orgs/o/videos/v/media/download.mp4';
    const one = new S3Store({ ...options, now: at('2026-11-26T03:00:01Z') });
    const two = new S3Store({ ...options, now: at('2026-11-26T03:59:59Z') });
    const next = new S3Store({ ...options, now: at('2026-11-26T04:00:00Z') });
    const url = new URL(await one.getUrl(key));
    assert.equal(url.toString(), await two.getUrl(key));
    assert.notEqual(url.toString(), await next.getUrl(key));
    assert.equal(url.pathname, `/media/${key}`);
    assert.equal(url.searchParams.get('X-Amz-Date'), '20261126T030000Z');
    assert.equal(Number(url.searchParams.get('X-Amz-Expires')) * 1000, PLAYBACK_LINK_MS);
    assert.doesNotMatch(url.toString(), /wJalrXUtnFEMI/);
    for (const store of [one, two, next]) store.destroy();
  });

  it('are the public base and the key when --media-base-url is set: no signature, relative playlist URIs resolve beside it', async () => {
    const store = new S3Store({ ...options, mediaBaseUrl: 'https://cdn.example.com/v' });
    const master = await store.getUrl('prod/orgs/o/videos/v1/media/index.m3u8');
    assert.equal(master, 'https://cdn.example.com/v/prod/orgs/o/videos/v1/media/index.m3u8');
    assert.equal(new URL('main/stream.m3u8', master).pathname, '/v/prod/orgs/o/videos/v1/media/main/stream.m3u8');
    store.destroy();
  });

  it('for #4 are the same from every process: signed as of the session, valid until it expires', async () => {
    const signedAt = Date.parse('2026-11-26T01:00:00Z');
    const window = { signedAt, expiresAt: signedAt + 6 * 60 * 60 * 1000 };
    const [a, b] = [new S3Store(options), new S3Store(options)];
    const url = await a.partUrl('orgs/o/videos/v/source', 'upload-1', 3, window);
    assert.equal(url, await b.partUrl('orgs/o/videos/v/source', 'upload-1', 3, window));
    const params = new URL(url).searchParams;
    assert.equal(params.get('partNumber'), '3');
    assert.equal(params.get('uploadId'), 'upload-1');
    assert.equal(params.get('X-Amz-Expires'), String(6 * 60 * 60));
    assert.equal(params.get('x-amz-checksum-crc32'), null, 'no checksum of an empty body in the link');
    a.destroy();
    b.destroy();
  });
});

describe('links on several hosts of the store (--storage-hosts, issue 32; presigning reads no network)', () => {
  const env = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI' };
  const signedAt = Date.parse('2026-11-26T01:00:00Z');
  const window = { signedAt, expiresAt: signedAt + 60 * 60 * 1000 };
  /** Parts 1 to 3's links and a #2 link, as `host` + path each, from a store configured by these flags. */
  async function links(flags: Parameters<typeof storageOptions>[0]) {
    const store = new S3Store(s3(flags, env));
    const parts = await Promise.all([1, 2, 3].map((n) => store.partUrl('k', 'upload-1', n, window)));
    const single = await store.putUrl('k', window);
    store.destroy();
    return { parts: parts.map((url) => new URL(url)), single: new URL(single) };
  }
  const where = (url: URL) => url.host + url.pathname;

  it('AWS S3: part N on the regional or the dual-stack name, virtual-hosted (path style for a dotted bucket)', async () => {
    const aws = await links({ storage: 's3://media', 's3-region': 'eu-west-3', 'storage-hosts': '2' });
    assert.deepEqual(aws.parts.map(where), [
      'media.s3.eu-west-3.amazonaws.com/k',
      'media.s3.dualstack.eu-west-3.amazonaws.com/k',
      'media.s3.eu-west-3.amazonaws.com/k',
    ]);
    assert.equal(where(aws.single), 'media.s3.eu-west-3.amazonaws.com/k', 'a #2 link on the first');
    const dotted = await links({ storage: 's3://my.media', 's3-region': 'eu-west-3', 'storage-hosts': '2' });
    assert.deepEqual(dotted.parts.slice(0, 2).map(where), [
      's3.eu-west-3.amazonaws.com/my.media/k',
      's3.dualstack.eu-west-3.amazonaws.com/my.media/k',
    ]);
  });

  it('another store: its address, then path style where it is a name; one host by IP address, with --s3-path-style, or with 1', async () => {
    const named = await links({ storage: 's3://media', 's3-endpoint': 'https://store.example', 'storage-hosts': '2' });
    assert.deepEqual(named.parts.map(where), [
      'media.store.example/k',
      'store.example/media/k',
      'media.store.example/k',
    ]);
    for (const flags of [
      { 's3-endpoint': 'http://10.0.0.5:9000' },
      { 's3-endpoint': 'https://store.example', 's3-path-style': true },
      { 's3-endpoint': 'https://store.example', 'storage-hosts': '1' },
    ]) {
      const one = await links({ storage: 's3://media', 'storage-hosts': '2', ...flags });
      assert.equal(new Set(one.parts.map(where)).size, 1, JSON.stringify(flags));
    }
  });

  it('takes base URLs, path style or {bucket}., each link signed for its own host; refuses what is not one', async () => {
    const { parts, single } = await links({
      storage: 's3://media',
      's3-endpoint': 'http://127.0.0.1:7480',
      's3-path-style': true,
      'storage-hosts': 'http://127.0.0.1:7480, http://{bucket}.localhost:7480',
    });
    assert.deepEqual(parts.map(where), ['127.0.0.1:7480/media/k', 'media.localhost:7480/k', '127.0.0.1:7480/media/k']);
    assert.equal(where(single), '127.0.0.1:7480/media/k');
    assert.equal(parts[0]!.searchParams.get('X-Amz-SignedHeaders'), 'host');
    assert.notEqual(parts[0]!.searchParams.get('X-Amz-Signature'), parts[1]!.searchParams.get('X-Amz-Signature'));
    for (const bad of ['ftp://store.example', 'http://store.example/media', 'http://{bucket}', 'store.example:7480'])
      refuses(
        { storage: 's3://media', 'storage-hosts': bad },
        new RegExp(`--storage-hosts on an object store must be a count .*; got "${bad.replace(/[{}.]/g, '\\$&')}"`),
      );
    refuses({ storage: 's3://media', 'storage-hosts': '17' }, /--storage-hosts must be a count from 1 to 16/);
  });
});

describe("a store's failure as the log and a client read it", () => {
  it('names the object by its s3:// address and the endpoint in the log, neither to a client', async () => {
    const store = new S3Store({
      bucket: 'media',
      prefix: 'prod/',
      endpoint: 'http://10.0.0.5:9000',
      region: 'us-east-1',
      forcePathStyle: true,
    });
    const key = store.keys.source('org-1', 'v1');
    const notThere = Object.assign(new Error('The specified key does not exist.'), {
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    const failure = store.failure(notThere, 'download', key);
    const { message } = failure;
    store.destroy();
    assert.equal(
      message,
      'The object store could not download s3://media/prod/orgs/org-1/videos/v1/source (at http://10.0.0.5:9000): ' +
        'it answered NoSuchKey (HTTP 404). Try again later.',
    );
    // A request that meets it is answered 503 without the bucket, the prefix or the address; the log has them.
    const logged: unknown[] = [];
    const answer = errorAnswer(failure, { error: (...line: unknown[]) => logged.push(line) });
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.body.error, {
      status: 503,
      code: 'storage_unavailable',
      message: 'The object store the service keeps media in failed to answer; try again later.',
    });
    assert.equal(logged.length, 1);

    // A failure reason (Videos.markFailed) loses server paths, not the addresses it names (an import's URL, say).
    const domain = await domainUnderTest();
    try {
      const { body: video } = await domain.call('POST', '/videos', { token: domain.key });
      await domain.context.videos.startProcessing(video._id, 1, 'import');
      const said = 'could not read s3://media/prod/a or https://cdn.example.com/b/c.mp4';
      await domain.context.videos.markFailed(video._id, `Processing failed: ${said} (/srv/data/videos/x/source)`);
      const { body: failed } = await domain.call('GET', `/videos/${video._id}`, { token: domain.key });
      assert.equal(failed.failure_reason, `Processing failed: ${said} (source)`);
    } finally {
      await domain.close();
    }
  });
});
