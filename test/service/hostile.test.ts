import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startWithToken, upload, waitForVideo, type RunningService } from '../helpers/service.js';

/**
 * The service as a stranger on its ports would try it (the hardening issue). Each test proves the attack
 * fails, and that the service still serves other users afterwards.
 */
describe('hostile input', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  const stillServes = async () => assert.equal((await service.call('POST', '/videos', { token })).status, 200, 'the service still serves');

  it('answers malformed percent-encoding in a path with 400, not 500', async () => {
    for (const path of ['/videos/%E0%A4%A', '/videos/%', '/videos/%ZZ', '/live_streams/%C0%AF']) {
      const r = await service.call('GET', path, { token });
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, 'invalid_path');
    }
    await stillServes();
  });

  it('keeps test hooks away from pages: no CORS headers, and JSON only', async () => {
    const preflight = await fetch(`${service.api}/__test__/faults`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const read = await fetch(`${service.api}/__test__/storage-requests`, { headers: { origin: 'https://evil.example' } });
    assert.equal(read.headers.get('access-control-allow-origin'), null);
    // A form or text/plain POST needs no preflight from a page: it is refused.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await fetch(`${service.api}/__test__/faults`, { method: 'POST', headers: { 'content-type': type }, body: '{"rules":[{"target":"chunk-put","action":"reset"}]}' });
      assert.equal(r.status, 415, type);
    }
    // The API itself still answers pages.
    const api = await fetch(`${service.api}/videos`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    assert.equal(api.headers.get('access-control-allow-origin'), '*');
    await stillServes();
  });

  it('refuses an uploaded HLS playlist that names a file of the server, and shows no server path', async () => {
    // A file the server has, and a "video" that is a playlist pointing at it.
    const secret = join(service.data, 'secret.ts');
    await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-t', '2', '-c:v', 'libx264', '-f', 'mpegts', '-y', secret]);
    const playlist = join(service.data, 'upload.m3u8');
    await writeFile(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n${secret}\n#EXT-X-ENDLIST\n`);
    const id = await upload(service, token, playlist, 'holiday.mp4');
    const video = await waitForVideo(service, token, id);
    assert.equal(video.status, 'failed');
    assert.match(video.failure_reason, /not a video container: it was read as "hls"/);
    assert.doesNotMatch(video.failure_reason, /\//, 'no path in the reason');
    await stillServes();
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
