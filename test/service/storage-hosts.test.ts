import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { media, sha256 } from '../helpers/media.js';
import {
  completeMultipart,
  put,
  runService,
  startService,
  startWithToken,
  storedSha256,
  tempData,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

/**
 * The storage origin on several hosts (issue 32, `--storage-hosts`): browsers open six connections per host and port,
 * so chunk links spread over hosts let an upload use more. The default is two: 127.0.0.1 and 127.0.0.2 on a loopback
 * `--host`.
 */
describe('storage links on several hosts (--storage-hosts)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  async function session() {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    return { id: video._id as string, key: body.key as string };
  }
  async function chunkUrl(key: string, chunkId: number): Promise<string> {
    const { status, body } = await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
      token,
      body: { key, chunkId },
    });
    assert.equal(status, 200);
    return body.url;
  }

  it('listens on two loopback hosts by default, and the ready line names both', () => {
    assert.deepEqual(
      service.storageOrigins.map((origin) => new URL(origin).hostname),
      ['127.0.0.1', '127.0.0.2'],
    );
    assert.equal(service.storage, service.storageOrigins[0], 'the first is the one the line has always named');
  });

  it("names chunk N's link on host N-1, round the hosts; each host takes its chunks and the video plays", async () => {
    const file = await readFile(await media('h264-aac-720p-10s.mp4'));
    const size = Math.ceil(file.length / 4);
    const parts = [0, 1, 2, 3].map((i) => file.subarray(i * size, (i + 1) * size));
    const { id, key } = await session();
    const urls = await Promise.all(parts.map((_, i) => chunkUrl(key, i + 1)));
    const [first, second] = service.storageOrigins;
    assert.deepEqual(
      urls.map((url) => new URL(url).origin),
      [first, second, first, second],
    );
    const eTags = await Promise.all(
      parts.map(async (part, i) => {
        const res = await put(urls[i]!, part);
        assert.equal(res.status, 200, res.text);
        return res.etag;
      }),
    );
    assert.equal((await completeMultipart(service, token, key, eTags)).status, 200);
    const video = await waitForVideo(service, token, id);
    assert.equal(video.status, 'ready', JSON.stringify(video));
    assert.equal(await storedSha256(service.data, id), await sha256(await media('h264-aac-720p-10s.mp4')));
    const playlist = await fetch(video.playback.hls_url);
    assert.equal(playlist.status, 200);
    assert.match(await playlist.text(), /^#EXTM3U/);
  });

  it('takes a link on any of its hosts (the host is not signed), and a single link names the first', async () => {
    const { key } = await session();
    const onHost = (url: string, origin: string) => Object.assign(new URL(url), { host: new URL(origin).host }).href;
    const [first, second] = service.storageOrigins as [string, string];
    const chunk1 = await chunkUrl(key, 1);
    assert.equal(new URL(chunk1).origin, first);
    assert.equal((await put(onHost(chunk1, second), new Uint8Array(100))).status, 200);
    const chunk2 = await chunkUrl(key, 2);
    assert.equal((await put(onHost(chunk2, first), new Uint8Array(100))).status, 200);

    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: link } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    assert.equal(new URL(link.url).origin, first);
    assert.equal((await put(onHost(link.url, second), new Uint8Array(100))).status, 200);
  });

  it('listens on one host with --storage-hosts 1, and on the hosts a list names', async () => {
    const one = await startService({ args: ['--storage-hosts', '1'] });
    const listed = await startService({ args: ['--storage-hosts', '127.0.0.3:0,127.0.0.1:0,127.0.0.4:0'] });
    try {
      assert.deepEqual(one.storageOrigins, [one.storage]);
      assert.deepEqual(
        listed.storageOrigins.map((origin) => new URL(origin).hostname),
        ['127.0.0.3', '127.0.0.1', '127.0.0.4'],
      );
      assert.equal(listed.storage, listed.storageOrigins[0]);
      for (const origin of listed.storageOrigins)
        assert.equal((await fetch(`${origin}/uploads/x`, { method: 'OPTIONS' })).status, 204, origin);
    } finally {
      await Promise.all([one.stop(), listed.stop()]);
    }
  });
});

describe('a bad --storage-hosts', () => {
  const serviceWith = async (value: string) =>
    runService(
      ['--port', '0', '--storage-port', '0', '--rtmp-port', '0', '--data', await tempData(), '--storage-hosts', value],
      { timeoutMs: 60_000 },
    );

  for (const [value, why] of [
    ['0', /^video service: --storage-hosts must be a count from 1 to 16, or a list of hosts; got "0"\.$/],
    ['17', /^video service: --storage-hosts must be a count from 1 to 16, or a list of hosts; got "17"\.$/],
    ['many', /^video service: --storage-hosts must be a count from 1 to 16, or up to 16 host:port .*; got "many"\.$/],
    [
      '127.0.0.1:4501,127.0.0.2',
      /^video service: --storage-hosts must be a count from 1 to 16, or up to 16 host:port .*; got "127\.0\.0\.2"\.$/,
    ],
    ['127.0.0.1:70000', /^video service: --storage-hosts must .*; got "127\.0\.0\.1:70000"\.$/],
  ] as const) {
    it(`refuses ${JSON.stringify(value)} in one line naming the flag and the value, and exits`, async () => {
      const { code, stderr } = await serviceWith(value);
      assert.equal(code, 2, stderr);
      assert.match(stderr.trim(), why);
    });
  }
});
