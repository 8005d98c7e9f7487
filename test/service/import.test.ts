import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { media, probeDuration } from '../helpers/media.js';
import { LOCAL_RECEIVERS, startWithToken, until, waitForVideo, type RunningService } from '../helpers/service.js';

const LIMIT = 1024 * 1024; // --import-max-mb 1

/**
 * A third party's file server, on 127.0.0.1: a video, a 404, a web page, bytes that are no media, files over
 * the limit (with and without Content-Length), redirects, and a video sent in two halves on the test's signal.
 */
async function fileServer(
  video: Buffer,
): Promise<{ url: string; server: Server; release: () => void; redirectClosed: () => boolean }> {
  let release = () => {};
  let redirectClosed = false;
  const held = new Promise<void>((resolve) => (release = resolve));
  const send = (res: ServerResponse, type: string, body: Buffer | string) =>
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
  const server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/video.mp4') return send(res, 'video/mp4', video);
    if (path === '/page.html')
      return send(res, 'text/html; charset=utf-8', '<!doctype html><title>Not a video</title>');
    if (path === '/noise.bin') return send(res, 'application/octet-stream', Buffer.alloc(50_000, 7));
    if (path === '/big.mp4') return send(res, 'video/mp4', Buffer.alloc(LIMIT + 1));
    if (path === '/big-chunked.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      for (let i = 0; i < 3; i++) res.write(Buffer.alloc(LIMIT / 2));
      return res.end();
    }
    if (path === '/moved') return res.writeHead(302, { location: '/video.mp4' }).end();
    if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (path === '/moved-endless') {
      // A redirect whose body never ends: the service must not read it, and must let the connection go.
      req.socket.once('close', () => (redirectClosed = true));
      res.writeHead(302, { location: '/video.mp4' });
      return void res.write(Buffer.alloc(64 * 1024));
    }
    if (path === '/slow.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': video.length });
      res.write(video.subarray(0, video.length / 2));
      return void held.then(() => res.end(video.subarray(video.length / 2)));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such file');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    release,
    redirectClosed: () => redirectClosed,
  };
}

describe('upload from a URL: POST /videos/{id}/import', () => {
  let service: RunningService;
  let token: string;
  let files: Awaited<ReturnType<typeof fileServer>>;
  let path: string;

  before(async () => {
    path = await media('h264-aac-320p-4s.mp4');
    assert.ok((await stat(path)).size < LIMIT, 'the test video is under the limit');
    files = await fileServer(await readFile(path));
    ({ service, token } = await startWithToken('acme', { args: [...LOCAL_RECEIVERS.args, '--import-max-mb', '1'] }));
  });
  after(async () => {
    files.release();
    files.server.closeAllConnections();
    files.server.close();
    await service.stop();
  });

  const importFrom = async (url: string) => {
    const { body: video } = await service.call('POST', '/videos', { token, body: { file_name: 'imported.mp4' } });
    const answer = await service.call('POST', `/videos/${video._id}/import`, { token, body: { url } });
    return { id: video._id as string, answer };
  };

  it('imports a served file, shows its progress on #8, and processes it into a video that plays', async () => {
    const { id, answer } = await importFrom(`${files.url}/slow.mp4`);
    assert.equal(answer.status, 202);
    assert.equal(answer.body.status, 'processing');
    assert.equal(answer.body.upload_method, 'import');
    const size = (await stat(path)).size;
    const halfway = await until('the first half on #8', async () => {
      const { body } = await service.call('GET', `/videos/${id}`, { token });
      return body.import?.bytes >= Math.floor(size / 2) ? body.import : undefined;
    });
    assert.deepEqual(halfway, { bytes: Math.floor(size / 2), total: size });
    files.release();
    const video = await waitForVideo(service, token, id);
    assert.equal(video.status, 'ready', video.failure_reason);
    assert.equal(video.import, null);
    assert.equal(video.size, size);
    assert.ok(Math.abs((await probeDuration(video.playback.hls_url)) - 4) < 0.5, 'the HLS plays 4 s');
  });

  it('follows a redirect, each hop checked', async () => {
    const { id } = await importFrom(`${files.url}/moved`);
    assert.equal((await waitForVideo(service, token, id)).status, 'ready');
  });

  it("drops a redirect's body at once: a redirect that never ends holds no connection", async () => {
    const { id } = await importFrom(`${files.url}/moved-endless`);
    assert.equal((await waitForVideo(service, token, id)).status, 'ready');
    await until('the redirect connection to close', async () => (files.redirectClosed() ? true : undefined), 5000);
  });

  it('says why an import failed: an HTTP status, a web page, too big (declared or not), too many redirects, not media', async () => {
    for (const [file, reason] of [
      ['/missing.mp4', 'The import failed: the URL answered HTTP 404 Not Found.'],
      ['/page.html', 'The import failed: the URL answered a text/html document, not a media file.'],
      ['/big.mp4', `The import failed: the file is ${LIMIT + 1} bytes; an import takes at most ${LIMIT} bytes.`],
      ['/big-chunked.mp4', `The import failed: the file passed ${LIMIT} bytes, the most an import takes.`],
      ['/loop', 'The import failed: it redirected more than 5 times.'],
    ] as const) {
      const { id } = await importFrom(files.url + file);
      const video = await waitForVideo(service, token, id);
      assert.equal(video.status, 'failed', file);
      assert.equal(video.failure_reason, reason, file);
      assert.equal(video.import, null);
    }
    const { id } = await importFrom(`${files.url}/noise.bin`);
    const noise = await waitForVideo(service, token, id);
    assert.equal(noise.status, 'failed');
    assert.match(noise.failure_reason, /could not be read as video or audio/);
  });

  it('refuses at once what it can: a file: URL, another scheme, credentials, a missing url; a video with its file', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x.mp4', 'http://user:pw@127.0.0.1/x.mp4', 'not a url']) {
      const { answer } = await importFrom(url);
      assert.equal(answer.status, 400, url);
      assert.equal(answer.body.error.code, 'invalid_field');
      assert.equal(answer.body.error.field, 'url');
      assert.match(answer.body.error.message, /^url ".*" is refused: /, url);
    }
    const { body: video } = await service.call('POST', '/videos', { token });
    const missing = await service.call('POST', `/videos/${video._id}/import`, { token, body: {} });
    assert.equal(missing.body.error.message, 'url is missing.');
    const { id } = await importFrom(`${files.url}/video.mp4`);
    const again = await service.call('POST', `/videos/${id}/import`, {
      token,
      body: { url: `${files.url}/video.mp4` },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'already_uploaded');
    await waitForVideo(service, token, id);
  });
});

describe('upload from a URL without --allow-private-network', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('refuses a loopback or private address in any spelling, naming why; the video can still be uploaded', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    for (const url of [
      'http://127.0.0.1:9/a.mp4',
      'http://2130706433/a.mp4',
      'http://[::1]/a.mp4',
      'http://10.1.2.3/',
    ]) {
      const r = await service.call('POST', `/videos/${video._id}/import`, { token, body: { url } });
      assert.equal(r.status, 400, url);
      assert.match(r.body.error.message, /the service does not connect to internal addresses/, url);
    }
    const meta = await service.call('POST', `/videos/${video._id}/import`, {
      token,
      body: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    assert.match(meta.body.error.message, /link-local address \(cloud metadata lives there\)/);
    assert.equal((await service.call('POST', `/videos/${video._id}/uploads`, { token })).status, 200);
  });

  it('refuses ports other than 80 and 443 for an import and a webhook, naming the rule', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const refused = [
      await service.call('POST', `/videos/${video._id}/import`, {
        token,
        body: { url: 'http://93.184.215.14:8080/a.mp4' },
      }),
      await service.call('POST', '/webhooks', { token, body: { url: 'https://93.184.215.14:8080/hook' } }),
    ];
    for (const r of refused) {
      assert.equal(r.status, 400);
      assert.equal(r.body.error.field, 'url');
      assert.match(
        r.body.error.message,
        /is refused: port 8080 is refused; the service connects to ports 80 and 443 only\.$/,
      );
    }
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).body.status, 'waiting');
  });
});

describe('upload from a URL: a server that answers slowly', () => {
  let service: RunningService;
  let token: string;
  let slow: Server;
  let url: string;

  before(async () => {
    // A third party's server that never sends its answer's head, or sends it and a byte, then nothing.
    slow = createServer((req, res) => {
      if (req.url === '/trickle.mp4') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 1000 });
        res.write('x');
      }
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    ({ service, token } = await startWithToken('acme', {
      args: [...LOCAL_RECEIVERS.args, '--import-header-timeout-seconds', '1', '--import-idle-timeout-seconds', '2'],
    }));
  });
  after(async () => {
    slow.closeAllConnections();
    slow.close();
    await service.stop();
  });

  it('gives up when the head does not come in time, or the body stops, naming the timeout', async () => {
    for (const [file, reason] of [
      ['/late.mp4', 'The import failed: the URL sent no response headers within 1 s.'],
      ['/trickle.mp4', 'The import failed: the download sent nothing for 2 s.'],
    ] as const) {
      const { body: video } = await service.call('POST', '/videos', { token });
      const answer = await service.call('POST', `/videos/${video._id}/import`, { token, body: { url: url + file } });
      assert.equal(answer.status, 202);
      const failed = await waitForVideo(service, token, video._id, 30_000);
      assert.equal(failed.status, 'failed', file);
      assert.equal(failed.failure_reason, reason, file);
    }
  });
});
