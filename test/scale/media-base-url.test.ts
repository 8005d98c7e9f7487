/**
 * Playback from a CDN in front of the store (issue 30, item 3: "playback and download URLs are presigned, or under a
 * public base URL (--media-base-url) for a CDN"). The CDN is nginx in front of the run's Ceph store, whose bucket lets
 * anyone read the videos' media (a bucket policy, as an integrator would set for a CDN's origin). #8 names the CDN in
 * every media address, so a player reaches neither the API nor a presigned link: the CDN's log shows each GET.
 */
import { DeleteBucketCommand, DeleteBucketPolicyCommand, PutBucketPolicyCommand, S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { scaleEngines } from '../helpers/engines/environment.js';
import { startNginx, type Balancer } from '../helpers/engines/nginx.js';
import { media, probeDuration } from '../helpers/media.js';
import { startService, waitForVideo, type RunningService } from '../helpers/service.js';
import { S3Store } from '../../service/storage/s3.js';

const engines = scaleEngines();
const { endpoint, region, credentials } = engines.s3;

describe('--media-base-url: playback from a CDN in front of the store', () => {
  const bucket = `cdn-${randomBytes(4).toString('hex')}`;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  let cdn: Balancer;
  let service: RunningService;
  let token: string;

  before(async () => {
    cdn = await startNginx([endpoint]);
    service = await startService({
      args: [
        ...['--storage', `s3://${bucket}/media`, '--s3-endpoint', endpoint, '--s3-path-style'],
        ...['--media-base-url', `${cdn.url}/${bucket}`],
      ],
    });
    // The service made the bucket at start. Its media folders are public; sources and recordings stay private.
    await s3.send(
      new PutBucketPolicyCommand({
        Bucket: bucket,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: `arn:aws:s3:::${bucket}/media/orgs/*/videos/*/media/*`,
            },
          ],
        }),
      }),
    );
    token = await service.token('acme');
  });

  after(async () => {
    await service?.stop();
    await cdn?.stop();
    const store = new S3Store({ bucket, prefix: '', endpoint, region, forcePathStyle: true, credentials });
    await store.deletePrefix('').catch(() => undefined);
    await s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket })).catch(() => undefined);
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    store.destroy();
    s3.destroy();
  });

  it('#8 names the CDN for the playlist, the poster and the MP4; each plays from it, not from the API', async () => {
    const file = await readFile(await media('h264-aac-320p-4s.mp4'));
    const { body: video } = await service.call('POST', '/videos', { token });
    const link = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    assert.equal((await fetch(link.body.url, { method: 'PUT', body: file })).status, 200);
    const ready = await waitForVideo(service, token, video._id);
    assert.equal(ready.status, 'ready', ready.failure_reason);

    const folder = `${cdn.url}/${bucket}/media/orgs/`;
    for (const url of [ready.playback.hls_url, ready.playback.poster_url, ready.download_url])
      assert.ok(url.startsWith(folder) && url.includes(`/videos/${video._id}/media/`), `under the CDN: ${url}`);

    // The player's path: master, rendition, segment, each from the CDN (no redirect, no signature).
    const master = await fetch(ready.playback.hls_url, { redirect: 'error' });
    assert.equal(master.status, 200);
    const rendition = await fetch(new URL(firstUri(await master.text()), master.url), { redirect: 'error' });
    assert.equal(rendition.status, 200);
    const segment = new URL(firstUri(await rendition.text()), rendition.url);
    assert.ok(segment.href.startsWith(folder) && segment.search === '', `a plain CDN address: ${segment.href}`);
    const ts = new Uint8Array(await (await fetch(segment, { redirect: 'error' })).arrayBuffer());
    assert.equal(ts[0], 0x47, 'an MPEG-TS segment (sync byte 0x47)');
    const duration = await probeDuration(ready.download_url);
    assert.ok(Math.abs(duration - 4) < 0.2, `the MP4 is the 4 s video: ${duration}`);

    // ffprobe reads the MP4 by ranges (206).
    const served = (r: { path: string; status: number }) => r.status === 200 || r.status === 206;
    const gets = (await cdn.waitForRequests((r) => r.some((g) => g.path.endsWith('/download.mp4')))).filter(served);
    assert.ok(
      gets.some((r) => r.path.endsWith('/index.m3u8')),
      'the CDN served the master playlist',
    );
    assert.ok(
      gets.some((r) => r.path.endsWith('.ts')),
      'the CDN served a segment',
    );
    assert.ok(
      gets.some((r) => r.path.endsWith('/download.mp4')),
      'the CDN served the MP4',
    );

    // What stays private stays private: the source is not under the public policy.
    const source = await fetch(`${cdn.url}/${bucket}/media/orgs/${video.organization}/videos/${video._id}/source`);
    assert.equal(source.status, 403);
  });
});

function firstUri(playlist: string): string {
  return playlist.split('\n').find((line) => line.trim() && !line.startsWith('#'))!;
}
