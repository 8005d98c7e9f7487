/**
 * Links on several hosts of an S3 store (issue 32, `--storage-hosts`): the run's Ceph store answers path style on
 * 127.0.0.1:PORT and virtual-hosted on BUCKET.localhost:PORT (`rgw_dns_name = localhost`, engines/ceph.ts), two hosts
 * to a browser, which opens six connections to each. The service signs each part's link for its own host (SigV4
 * signs the host), its own calls stay on `--s3-endpoint`. The PUTs are plain `node:http` requests whose `lookup`
 * answers *.localhost with 127.0.0.1, as a browser resolves it itself (Node here does not).
 */
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request, type RequestOptions } from 'node:http';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { scaleEngines } from '../helpers/engines/environment.js';
import { media } from '../helpers/media.js';
import { completeMultipart, startService, waitForVideo, type RunningService } from '../helpers/service.js';
import { S3Store } from '../../service/storage/s3.js';

const engines = scaleEngines();
const { endpoint, region, credentials } = engines.s3;
/** S3's smallest part but the last. */
const PART_BYTES = 5 * 1024 * 1024;

/** `*.localhost` is this machine, as browsers take it (RFC 6761); anything else as the system resolves it. */
const localhostLookup: RequestOptions['lookup'] = (hostname, options, callback) => {
  if (!hostname.endsWith('.localhost')) return void callback(new Error(`not a test host: ${hostname}`), '', 4);
  if (options.all) return void (callback as any)(null, [{ address: '127.0.0.1', family: 4 }]);
  callback(null, '127.0.0.1', 4);
};

/** PUTs bytes to a link as a page would (no Authorization); the answer's status, ETag and body. */
function put(url: string, body: Uint8Array): Promise<{ status: number; etag: string | null; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', lookup: localhostLookup, headers: { 'content-length': body.length } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, etag: (res.headers.etag as string) ?? null, text }));
    });
    req.end(body);
  });
}

describe('links on two hosts of the S3 store (--storage-hosts)', () => {
  const bucket = `hosts-${randomBytes(4).toString('hex')}`;
  const port = new URL(endpoint).port;
  const virtualHost = `${bucket}.localhost:${port}`;
  let service: RunningService;
  let token: string;

  before(async () => {
    service = await startService({
      args: [
        ...['--storage', `s3://${bucket}/media`, '--s3-endpoint', endpoint, '--s3-path-style'],
        ...['--storage-hosts', `${endpoint},http://{bucket}.localhost:${port}`],
      ],
    });
    token = await service.token('acme');
  });

  after(async () => {
    await service?.stop();
    const store = new S3Store({ bucket, prefix: '', endpoint, region, forcePathStyle: true, credentials });
    await store.deletePrefix('').catch(() => undefined);
    const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    store.destroy();
    s3.destroy();
  });

  it('puts part N on host N-1, each host takes its parts, a link fails on the other host, and the video plays', async () => {
    const file = await readFile(await media('h264-aac-720p-10s-12mb.mp4'));
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const parts = [0, 1, 2].map((i) => file.subarray(i * PART_BYTES, (i + 1) * PART_BYTES));
    assert.ok(parts[2]!.length > 0 && file.length <= 3 * PART_BYTES, 'three parts');
    const urls = await Promise.all(
      parts.map(async (_, i) => {
        const { status, body } = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: session.key, chunkId: i + 1 },
        });
        assert.equal(status, 200);
        return new URL(body.url);
      }),
    );
    assert.deepEqual(
      urls.map((url) => url.host),
      [new URL(endpoint).host, virtualHost, new URL(endpoint).host],
    );
    assert.ok(urls[0]!.pathname.startsWith(`/${bucket}/media/`), 'path style on the endpoint');
    assert.ok(urls[1]!.pathname.startsWith('/media/'), 'virtual-hosted on the bucket name');

    // The same request on the other host (the same bucket and key, the other style) is refused: signed for its own.
    const onOtherHost = (url: URL) =>
      url.host === virtualHost
        ? `${endpoint}/${bucket}${url.pathname}${url.search}`
        : `http://${virtualHost}${url.pathname.slice(bucket.length + 1)}${url.search}`;
    for (const url of urls.slice(0, 2)) {
      const refused = await put(onOtherHost(url), parts[0]!);
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.text, /SignatureDoesNotMatch/);
    }

    const eTags = await Promise.all(
      parts.map(async (part, i) => {
        const sent = await put(urls[i]!.href, part);
        assert.equal(sent.status, 200, sent.text);
        return sent.etag;
      }),
    );
    const done = await completeMultipart(service, token, session.key, eTags, { video: video._id });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const ready = await waitForVideo(service, token, video._id);
    assert.equal(ready.status, 'ready', ready.failure_reason);
    const download = await fetch(ready.download_url);
    assert.equal(download.status, 200);
    const mp4 = Buffer.from(await download.arrayBuffer());
    assert.equal(mp4.subarray(4, 8).toString('latin1'), 'ftyp', 'the video downloads as an MP4');

    // A #2 link names the first host, the endpoint, and its bytes arrive whole.
    const { body: other } = await service.call('POST', '/videos', { token });
    const { body: link } = await service.call('POST', `/videos/${other._id}/uploads`, { token });
    assert.ok(link.url.startsWith(`${endpoint}/${bucket}/`), link.url);
    assert.equal((await put(link.url, file)).status, 200);
    const single = await waitForVideo(service, token, other._id);
    assert.equal(single.status, 'ready', single.failure_reason);
  });
});
