/**
 * The S3 store of the scale suite (Ceph's RADOS Gateway, started by scripts/with-engines.ts) does what the service
 * will ask of any store: the browser PUTs a chunk straight to it with a presigned UploadPart link, across origins,
 * reads the chunk's ETag, and the service completes the upload with those ETags; and the store's own log shows
 * each PUT, as the scale suite's "the chunks land in the store directly" needs.
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutBucketCorsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { StoreRequest } from '../helpers/engines/ceph.js';
import { scaleEngines } from '../helpers/engines/environment.js';

const engines = scaleEngines();
/** A page of an integrator's site, which is never the store's origin. */
const PAGE_ORIGIN = 'https://app.example.com';
/** S3's smallest part but the last. */
const PART_BYTES = 5 * 1024 * 1024;

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');

describe('the S3 store', () => {
  const { endpoint, region, credentials } = engines.s3;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  // A bucket of this file's own: its CORS rules are the test's, not the run's shared bucket's.
  const bucket = `store-test-${randomBytes(4).toString('hex')}`;
  const keys: string[] = [];

  before(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    // The rule the service sets on its bucket: the widget PUTs from any page and must read each part's ETag.
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: bucket,
        CORSConfiguration: {
          CORSRules: [
            { AllowedOrigins: ['*'], AllowedMethods: ['PUT'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'] },
          ],
        },
      }),
    );
  });

  after(async () => {
    for (const key of keys) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    s3.destroy();
  });

  it("answers a browser's preflight for a PUT from another origin", async () => {
    const key = 'preflight/video.mp4';
    // What Chromium sends before a cross-origin PUT with a Content-Type of its own.
    const response = await fetch(`${endpoint}/${bucket}/${key}?partNumber=1&uploadId=anything`, {
      method: 'OPTIONS',
      headers: {
        Origin: PAGE_ORIGIN,
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    assert.equal(response.status, 200, await response.text());
    assert.ok(['*', PAGE_ORIGIN].includes(response.headers.get('access-control-allow-origin') ?? ''));
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /\bPUT\b/);
    assert.match(response.headers.get('access-control-allow-headers') ?? '', /content-type/i);
  });

  it('takes presigned UploadPart PUTs from plain fetch, and completes the upload with the ETags they returned', async () => {
    const key = `multipart/${randomBytes(4).toString('hex')}.mp4`;
    keys.push(key);
    const parts = [randomBytes(PART_BYTES), randomBytes(1234)];
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    if (!UploadId) throw new Error('CreateMultipartUpload answered no UploadId');

    const uploaded: { PartNumber: number; ETag: string }[] = [];
    for (const [i, body] of parts.entries()) {
      const PartNumber = i + 1;
      const link: string = await getSignedUrl(
        s3,
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber }),
        {
          expiresIn: 600,
        },
      );
      // As the widget does it: no SDK, no credentials, a page of another origin.
      const response: Response = await fetch(link, { method: 'PUT', body, headers: { Origin: PAGE_ORIGIN } });
      assert.equal(response.status, 200, await response.text());
      const ETag = response.headers.get('etag');
      // The browser reads the ETag only if the store exposes it to the page.
      assert.match(response.headers.get('access-control-expose-headers') ?? '', /\bETag\b/i);
      // S3's ETag of a part is the quoted MD5 of its bytes: the chunk's eTag of the spec.
      assert.equal(ETag, `"${md5(body)}"`);
      uploaded.push({ PartNumber, ETag: ETag! });
    }

    await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: uploaded } }),
    );
    // Ceph 16 answers CompleteMultipartUpload with an ETag the SDK reads as "": the object's own is asked for.
    const { ETag } = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    assert.match(ETag ?? '', /^"[0-9a-f]{32}-2"$/, 'a multipart ETag names its number of parts');
    const stored = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = await stored.Body!.transformToByteArray();
    assert.equal(md5(bytes), md5(Buffer.concat(parts)));

    // The store's own log: each part's PUT reached it, signed (a user of the store, not anonymous), answered 200.
    const path = `/${bucket}/${key}`;
    const seen = await engines.waitForStoreRequests((requests) =>
      [1, 2].every((part) => requests.some((r) => r.method === 'PUT' && isPart(r.path, path, part, UploadId))),
    );
    for (const part of [1, 2]) {
      const put: StoreRequest = seen.find((r) => r.method === 'PUT' && isPart(r.path, path, part, UploadId))!;
      assert.equal(put.status, 200);
      assert.notEqual(put.user, 'anonymous');
    }
  });
});

/** Whether a logged path is the UploadPart of `part` of `uploadId` at `path`. */
function isPart(logged: string, path: string, part: number, uploadId: string): boolean {
  const url = new URL(logged, 'http://store');
  return (
    decodeURIComponent(url.pathname) === path &&
    url.searchParams.get('partNumber') === String(part) &&
    url.searchParams.get('uploadId') === uploadId
  );
}
