import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { media, testPattern } from '../helpers/media.js';
import {
  completeMultipart,
  put,
  startService,
  startWithToken,
  stillServes,
  storedSha256,
  until,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

const HOUR = 3_600_000;

/**
 * The service as a stranger on its ports would try it (the hardening issue). Each test proves the attack
 * fails, and that the service still serves other users afterwards.
 */
describe('hostile input', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('answers malformed percent-encoding in a path with 400, not 500', async () => {
    for (const path of ['/videos/%E0%A4%A', '/videos/%', '/videos/%ZZ', '/live_streams/%C0%AF']) {
      const r = await service.call('GET', path, { token });
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, 'invalid_path');
    }
    await stillServes(service, token);
  });

  it('reads a request target that starts with // as a path, on the API and the storage (found by the fuzz test)', async () => {
    // fetch() would normalise these paths away: a raw request sends them as they are.
    const raw = (origin: string, target: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(origin);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: target,
            method: 'GET',
            headers: { authorization: `Bearer ${token}` },
          },
          (res) => (res.resume(), resolve(res.statusCode!)),
        );
        req.on('error', reject);
        req.end();
      });
    assert.equal(await raw(service.api, '//%25E0%25A4%25A'), 404);
    assert.equal(await raw(service.api, '//videos'), 404);
    assert.equal(await raw(service.storage, '//%25E0%25A4%25A'), 405);
    await stillServes(service, token);
  });

  it('keeps test hooks away from pages: no CORS headers, and JSON only', async () => {
    const preflight = await fetch(`${service.api}/__test__/faults`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const read = await fetch(`${service.api}/__test__/storage-requests`, {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(read.headers.get('access-control-allow-origin'), null);
    // A form or text/plain POST needs no preflight from a page: it is refused.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await fetch(`${service.api}/__test__/faults`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: '{"rules":[{"target":"chunk-put","action":"reset"}]}',
      });
      assert.equal(r.status, 415, type);
    }
    // The API itself still answers pages.
    const api = await fetch(`${service.api}/videos`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    assert.equal(api.headers.get('access-control-allow-origin'), '*');
    await stillServes(service, token);
  });

  it('refuses an uploaded HLS playlist that names a file of the server, and shows no server path', async () => {
    // A file the server has, and a "video" that is a playlist pointing at it.
    const secret = join(service.data, 'secret.ts');
    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      ...testPattern('320x240', 25),
      '-t',
      '2',
      '-c:v',
      'libx264',
      '-f',
      'mpegts',
      '-y',
      secret,
    ]);
    const playlist = join(service.data, 'upload.m3u8');
    await writeFile(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n${secret}\n#EXT-X-ENDLIST\n`);
    const id = await upload(service, token, playlist, 'holiday.mp4');
    const video = await waitForVideo(service, token, id);
    assert.equal(video.status, 'failed');
    assert.match(video.failure_reason, /not a video container: it was read as "hls"/);
    assert.doesNotMatch(video.failure_reason, /\//, 'no path in the reason');
    await stillServes(service, token);
  });

  it('keeps its data directory to itself (0700)', async () => {
    assert.equal((await stat(service.data)).mode & 0o777, 0o700);
  });

  it('never shows a server path in failure_reason', async () => {
    const notes = join(service.data, 'notes.mp4');
    await writeFile(notes, 'Agenda: nothing to see here.\n'.repeat(50));
    const video = await waitForVideo(service, token, await upload(service, token, notes));
    assert.equal(video.status, 'failed');
    assert.ok(!video.failure_reason.includes(service.data) && !/\/\w/.test(video.failure_reason), video.failure_reason);
  });
});

describe('storage under abuse', () => {
  let service: RunningService;
  let token: string;
  // Bodies that send nothing for 1 s are cut (the default is 60 s).
  before(async () => ({ service, token } = await startWithToken('acme', { args: ['--stall-timeout-seconds', '1'] })));
  after(() => service.stop());

  const link = async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    return { id: video._id as string, url: body.url as string };
  };
  /** A PUT that declares `size` bytes, sends `sent` of them and waits; `finish()` sends the rest. */
  const slowPut = (url: string, size: number, sent: number) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(size) } });
    const answer = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => (res.resume(), resolve(res.statusCode!)));
      req.on('error', reject);
    });
    req.write(Buffer.alloc(sent, 1));
    return { answer, finish: () => req.end(Buffer.alloc(size - sent, 1)) };
  };

  it('cuts a PUT whose body stalls, and the link works again after', async () => {
    const { id, url } = await link();
    const stalled = slowPut(url, 100_000, 1_000);
    await assert.rejects(stalled.answer, /socket hang up|ECONNRESET/, 'the connection was cut');
    const temporary = async () =>
      (await readdir(join(service.data, 'videos', id)).catch(() => [])).filter((f) => f.includes('.part-'));
    await until(
      'the cut body to be cleaned up',
      async () => ((await temporary()).length === 0 ? true : undefined),
      5_000,
    );
    assert.equal((await put(url, new Uint8Array(5_000))).status, 200);
  });

  it('takes one PUT at a time per link and two per chunk (409), and the first ones still land', async () => {
    const { id, url } = await link();
    const first = slowPut(url, 10_000, 1_000);
    await until('the first body to start arriving', async () =>
      (await service.call('GET', `/__test__/received/${id}`)).body.bytes >= 1_000 ? true : undefined,
    );
    const second = await put(url, new Uint8Array(10_000));
    assert.equal(second.status, 409);
    assert.match(second.text, /upload_in_progress/);
    first.finish();
    assert.equal(await first.answer, 200);

    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const chunkUrl = (
      await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token,
        body: { key: session.key, chunkId: 1 },
      })
    ).body.url;
    // Two: an uploader's endgame sends a slow chunk again on another connection (src/upload/connections.ts).
    const slowChunks = [slowPut(chunkUrl, 10_000, 1_000), slowPut(chunkUrl, 10_000, 1_000)];
    await until('both to start arriving', async () =>
      (await service.call('GET', `/__test__/received/${session.key}`)).body.bytes >= 2_000 ? true : undefined,
    );
    assert.equal((await put(chunkUrl, new Uint8Array(10_000))).status, 409);
    for (const slow of slowChunks) slow.finish();
    assert.deepEqual(await Promise.all(slowChunks.map((slow) => slow.answer)), [200, 200]);
  });

  it('refuses chunks for a video that already has its file', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const chunkUrl = (
      await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token,
        body: { key: session.key, chunkId: 1 },
      })
    ).body.url;
    const { body: single } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    assert.equal((await put(single.url, new Uint8Array(2_000))).status, 200);
    const late = await put(chunkUrl, new Uint8Array(2_000));
    assert.equal(late.status, 409);
  });

  it('completes one of two sessions of a video completed at once, never a mix of both', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const sessions = await Promise.all(
      [1, 2].map(async (fill) => {
        const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
        const bytes = Buffer.alloc(3 * 1024 * 1024, fill);
        const url = (
          await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
            token,
            body: { key: session.key, chunkId: 1 },
          })
        ).body.url;
        const { etag } = await put(url, bytes);
        return { key: session.key as string, etag: etag!, sha: createHash('sha256').update(bytes).digest('hex') };
      }),
    );
    const answers = await Promise.all(sessions.map((s) => completeMultipart(service, token, s.key, [s.etag])));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    const stored = await storedSha256(service.data, video._id);
    assert.equal(stored, sessions[answers.findIndex((a) => a.status === 200)]!.sha);
  });

  it('aborts a session abandoned a day after it expired, and deletes its chunks', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const url = (
      await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token,
        body: { key: session.key, chunkId: 1 },
      })
    ).body.url;
    assert.equal((await put(url, new Uint8Array(1_000))).status, 200);
    await service.advanceClock(6 * HOUR + 23 * HOUR);
    await service.sweep();
    assert.ok((await readdir(join(service.data, 'chunks', session.key))).length > 0, 'kept for a day after it expired');
    await service.advanceClock(2 * HOUR);
    await service.sweep();
    await assert.rejects(readdir(join(service.data, 'chunks', session.key)), { code: 'ENOENT' });
    const late = await completeMultipart(service, token, session.key, ['0'.repeat(32)]);
    assert.equal(late.status, 409);
  });
});

describe('storage when the volume runs low, and after a crash', () => {
  it('refuses new bytes with 507 instead of filling the volume, and still serves', async () => {
    // A reserve larger than any disk: every upload would leave less free than that.
    const { service, token } = await startWithToken('acme', { args: ['--min-free-mb', String(1024 ** 3)] });
    try {
      const { body: video } = await service.call('POST', '/videos', { token });
      const { body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
      const refused = await put(body.url, new Uint8Array(10_000));
      assert.equal(refused.status, 507);
      assert.match(refused.text, /insufficient_storage/);
      assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).body.status, 'waiting');
    } finally {
      await service.stop();
    }
  });

  it('sweeps the temporary files a crash left, at the next start', async () => {
    const first = await startService();
    const left = join(first.data, 'videos', '0123456789abcdef01234567');
    await first.kill();
    await mkdir(left, { recursive: true });
    await writeFile(join(left, 'source.part-deadbeef'), 'half a body');
    const again = await startService({ data: first.data });
    try {
      assert.deepEqual(await readdir(left), []);
    } finally {
      await again.stop();
    }
  });
});

describe('uploaded media: limits and a fair queue', () => {
  const made = async (name: string, args: string[]) => {
    const dir = await tempDir('limits-');
    const out = join(dir, name);
    await promisify(execFile)('ffmpeg', ['-v', 'error', ...args, '-y', out]);
    return out;
  };
  const pattern = (size: string, rate: number, seconds: number) => [
    ...testPattern(size, rate),
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
  ];

  it('refuses a video past the duration, resolution or frame-rate limit, naming the limit and its value', async () => {
    const { service, token } = await startWithToken('acme', {
      args: ['--max-duration-seconds', '3', '--max-resolution', '400x300', '--max-frame-rate', '24'],
    });
    try {
      const cases: [string, RegExp][] = [
        [await made('long.mp4', pattern('320x240', 24, 4)), /is 4 s long; videos up to 3 s are accepted/],
        [
          await made('big.mp4', pattern('640x360', 24, 2)),
          /is 640×360; pictures up to 400×300 \(either way up\) are accepted/,
        ],
        [await made('fast.mp4', pattern('320x240', 30, 2)), /has 30 frames per second; up to 24 are accepted/],
      ];
      for (const [file, reason] of cases) {
        const video = await waitForVideo(service, token, await upload(service, token, file));
        assert.equal(video.status, 'failed', file);
        assert.match(video.failure_reason, reason);
      }
      // Upright is judged by its sides: 240×320 is within 400×300.
      const upright = await waitForVideo(
        service,
        token,
        await upload(service, token, await made('upright.mp4', pattern('240x320', 24, 2))),
      );
      assert.equal(upright.status, 'ready', upright.failure_reason);
    } finally {
      await service.stop();
    }
  });

  it('stops processing that takes longer than its time limit, saying so', async () => {
    const { service, token } = await startWithToken('acme', {
      args: ['--processing-base-seconds', '0.05', '--processing-seconds-per-media-second', '0.01'],
    });
    try {
      const video = await waitForVideo(service, token, await upload(service, token, await media('vp9-opus-4s.webm')));
      assert.equal(video.status, 'failed');
      assert.match(video.failure_reason, /Processing took longer than the 0\.1 s allowed for 4 s of media/);
      assert.equal((await service.call('POST', '/videos', { token })).status, 200);
    } finally {
      await service.stop();
    }
  });

  it("processes another organization's upload while one organization's long uploads wait their turn", async () => {
    const { service, token: crowd } = await startWithToken('busy');
    try {
      const other = await service.token('small');
      // 10 s of 720p VP9: each takes several times the small one's processing, and both are still waiting or
      // processing when it is ready (20 s made this test 145 s of the service step's time, with the same outcome).
      const long = await made('long.webm', [
        ...testPattern('1280x720', 30),
        '-t',
        '10',
        '-c:v',
        'libvpx-vp9',
        '-deadline',
        'realtime',
        '-cpu-used',
        '8',
        '-b:v',
        '2M',
      ]);
      const heavy = [await upload(service, crowd, long), await upload(service, crowd, long)];
      const small = await upload(service, other, await media('h264-aac-320p-4s.mp4'));
      assert.equal((await waitForVideo(service, other, small)).status, 'ready');
      // The small one was done while both of the busy organization's were still in the queue or processing.
      const states = await Promise.all(
        heavy.map(async (id) => (await service.call('GET', `/videos/${id}`, { token: crowd })).body.status),
      );
      assert.deepEqual(states, ['processing', 'processing']);
      for (const id of heavy) assert.equal((await waitForVideo(service, crowd, id)).status, 'ready');
    } finally {
      await service.stop();
    }
  });
});
