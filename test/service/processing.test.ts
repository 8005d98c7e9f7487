import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { AUDIO_FIELDS, GENERAL_FIELDS, VIDEO_FIELDS } from '../../src/api/mediainfo-fields.js';
import { media, probeDuration, type MediaName } from '../helpers/media.js';
import {
  put,
  serviceDatabase,
  startService,
  startWithToken,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

const run = promisify(execFile);

describe('processing to HLS (#8 after upload)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  const uploadFile = (path: string, fileName: string) => upload(service, token, path, fileName);

  const cases: [MediaName, { width?: number; audio: boolean }][] = [
    ['h264-aac-720p-10s.mp4', { width: 1280, audio: true }],
    ['vp9-opus-4s.webm', { width: 640, audio: true }],
    ['h264-aac-4s.mov', { width: 640, audio: true }],
    ['hevc-aac-4s.mkv', { width: 960, audio: true }],
    ['mpeg2-mp2-4s.ts', { width: 720, audio: true }],
    ['audio-only-4s.mp3', { audio: true }],
  ];
  for (const [name, expected] of cases) {
    it(`makes ${name} ready, with HLS that ffprobe reads at the source's duration ± 0.5 s`, async () => {
      const source = await media(name);
      const id = await uploadFile(source, name);
      const video = await waitForVideo(service, token, id);
      assert.equal(video.status, 'ready', video.failure_reason);
      const sourceDuration = await probeDuration(source);
      const hlsDuration = await probeDuration(video.playback.hls_url);
      assert.ok(Math.abs(hlsDuration - sourceDuration) <= 0.5, `HLS ${hlsDuration}s vs source ${sourceDuration}s`);
      assert.ok(Math.abs(video.duration - sourceDuration) <= 0.5);

      const general = video.mediainfo.track.find((t: any) => t['@type'] === 'General');
      const vtrack = video.mediainfo.track.find((t: any) => t['@type'] === 'Video');
      const atrack = video.mediainfo.track.find((t: any) => t['@type'] === 'Audio');
      assert.match(video.mediainfo.duration, /^\d+\.\d{3}$/);
      for (const f of GENERAL_FIELDS) assert.equal(typeof general[f], 'string', `General.${f}`);
      assert.equal(general.FileExtension, 'mp4');
      assert.equal(Boolean(atrack), expected.audio);
      for (const f of AUDIO_FIELDS) assert.equal(typeof atrack[f], 'string', `Audio.${f}`);
      if (expected.width) {
        for (const f of VIDEO_FIELDS)
          assert.ok(typeof vtrack[f] === 'string' && vtrack[f] !== '', `Video.${f} = ${vtrack[f]}`);
        assert.equal(vtrack.Format, 'AVC', 'browsers get H.264');
        assert.equal(vtrack.Width, String(expected.width));
        const poster = await fetch(video.playback.poster_url);
        assert.equal(poster.headers.get('content-type'), 'image/jpeg');
      } else {
        assert.equal(vtrack, undefined);
        assert.equal(video.playback.poster_url, null, 'audio-only: no poster');
      }
      const download = await fetch(video.download_url, { headers: { range: 'bytes=0-99' } });
      assert.equal(download.status, 206);
      assert.equal((await download.arrayBuffer()).byteLength, 100);
      // A player or CDN that has the file asks again with its validators, and gets 304 without the bytes. (fetch
      // would add `Cache-Control: no-cache` to a conditional request, which asks for the bytes: a CDN sends max-age=0.)
      const revalidate = { 'cache-control': 'max-age=0' };
      const whole = await fetch(video.download_url);
      await whole.arrayBuffer();
      const [etag, modified] = [whole.headers.get('etag'), whole.headers.get('last-modified')];
      assert.ok(etag && modified, 'ETag and Last-Modified');
      assert.equal(
        (await fetch(video.download_url, { headers: { ...revalidate, 'if-none-match': etag! } })).status,
        304,
      );
      assert.equal(
        (await fetch(video.download_url, { headers: { ...revalidate, 'if-modified-since': modified! } })).status,
        304,
      );
      assert.equal(
        (await fetch(video.download_url, { headers: { ...revalidate, 'if-none-match': '"other"' } })).status,
        200,
      );
    });
  }

  it('copies H.264/AAC streams as they are, and encodes HEVC with a second 360p rung', async () => {
    const copied = await waitForVideo(service, token, await uploadFile(await media('h264-aac-720p-10s.mp4'), 'a.mp4'));
    const master = await (await fetch(copied.playback.hls_url)).text();
    assert.equal(master.match(/#EXT-X-STREAM-INF/g)?.length, 1, master);
    const encoded = await waitForVideo(service, token, await uploadFile(await media('hevc-aac-4s.mkv'), 'b.mkv'));
    const ladder = await (await fetch(encoded.playback.hls_url)).text();
    assert.match(ladder, /RESOLUTION=960x540/);
    assert.match(ladder, /RESOLUTION=640x360/);
  });

  it("plays a phone's upright video upright: stored on its side with a display matrix, its HLS is turned", async () => {
    const video = await waitForVideo(
      service,
      token,
      await uploadFile(await media('h264-aac-1080p-turned-3s.mp4'), 'upright.mp4'),
    );
    assert.equal(video.status, 'ready', video.failure_reason);
    // MPEG-TS keeps no display matrix: a copy would be shown on its side. Encoded, the pixels stand upright.
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0'],
      video.playback.hls_url,
    ]);
    const sizes = stdout.split('\n').filter(Boolean);
    assert.ok(sizes.length > 0 && sizes.every((size) => size === '1080,1920'), stdout);
  });

  it('fails a text file renamed .mp4 with a reason a person understands, and keeps serving', async () => {
    const fake = join(tmpdir(), 'not-a-video.mp4');
    await writeFile(fake, 'This is a shopping list, not a video.\n'.repeat(50));
    const video = await waitForVideo(service, token, await uploadFile(fake, 'not-a-video.mp4'));
    assert.equal(video.status, 'failed');
    assert.match(video.failure_reason, /could not be read as video or audio/);
    assert.match(video.failure_reason, /Invalid data/);
    assert.equal((await fetch(video.playback.hls_url)).status, 404);
    assert.equal((await service.call('POST', '/videos', { token })).status, 200);
  });

  it('serves embed_url as a page that plays in an iframe with hls.js', async () => {
    const video = await waitForVideo(service, token, await uploadFile(await media('h264-aac-320p-4s.mp4'), 'c.mp4'));
    const page = await fetch(video.playback.embed_url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /frame-ancestors \*/);
    assert.equal(page.headers.get('x-frame-options'), null);
    const html = await page.text();
    assert.ok(html.includes(JSON.stringify(video.playback.hls_url)));
    const script = await fetch(new URL('/embed/hls.min.js', video.playback.embed_url));
    assert.equal(script.status, 200);
    assert.ok((await script.text()).length > 100_000, 'hls.js is served');
  });
});

describe('processing survives a restart', () => {
  it('runs an interrupted processing job again after SIGKILL', async () => {
    let service = await startService();
    const token = await service.token('acme');
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
    assert.equal((await put(body.url, await readFile(await media('vp9-opus-4s.webm')))).status, 200);
    await service.kill();
    const db = await serviceDatabase(service);
    const job = await db
      .selectFrom('jobs')
      .select('state')
      .where('payload', 'like', `%${video._id}%`)
      .executeTakeFirstOrThrow()
      .finally(() => db.destroy());
    assert.notEqual(job.state, 'done', 'the kill came before processing finished');
    service = await startService({ data: service.data, ports: service });
    try {
      assert.equal((await waitForVideo(service, token, video._id)).status, 'ready');
    } finally {
      await service.stop();
    }
  });
});
