import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LiveStream } from '../../src/api/types.js';
import { Receiver } from '../helpers/receiver.js';
import { createStream, push, streamOf } from '../helpers/live.js';
import { decodeProblems, firstFrameLikeness, media, probeDuration } from '../helpers/media.js';
import {
  LOCAL_RECEIVERS,
  jobsEnded,
  startService,
  startWithToken,
  until,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

const MINUTE = 60_000;

const segmentsOf = (playlist: string) => playlist.split('\n').filter((l) => l.endsWith('.ts')).length;

describe('live streams, RTMP ingest and temporary recordings (#9)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme', LOCAL_RECEIVERS)));
  after(() => service.stop());

  it('creates, lists, gets and deletes live streams, each with an lv_ key and its RTMP ingest URL', async () => {
    const created = await service.call('POST', '/live_streams', { token, body: { name: 'Morning show' } });
    assert.equal(created.status, 200);
    const stream = created.body;
    assert.match(stream._id, /^[0-9a-f]{24}$/);
    assert.match(stream.stream_key, /^lv_[A-Za-z0-9_-]{20,}$/);
    assert.equal(stream.ingest.server, service.rtmp);
    assert.equal(stream.ingest.url, `${service.rtmp}/${stream.stream_key}`);
    assert.equal(stream.status, 'idle');
    assert.deepEqual((await service.call('GET', `/live_streams/${stream._id}`, { token })).body, stream);
    assert.ok((await service.call('GET', '/live_streams', { token })).body.some((s: any) => s._id === stream._id));

    const other = await service.token('someone-else');
    assert.equal((await service.call('GET', `/live_streams/${stream._id}`, { token: other })).status, 404);
    assert.deepEqual((await service.call('GET', '/live_streams', { token: other })).body, []);
    assert.equal((await service.call('GET', '/live_streams', { token: null })).status, 401);
    const bad = await service.call('POST', '/live_streams', { token, body: { name: 42 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'name');

    assert.deepEqual((await service.call('DELETE', `/live_streams/${stream._id}`, { token })).body, { success: true });
    assert.equal((await service.call('GET', `/live_streams/${stream._id}`, { token })).status, 404);
    assert.equal(
      (await service.call('GET', `/live_streams/${stream._id}/temporary_recordings`, { token })).status,
      404,
    );
  });

  it('deleting a stream that is live ends its publish and deletes its recording and files', async () => {
    const stream = await createStream(service, token, 'short-lived');
    const pushed = push(stream.ingest.url, 30);
    const live = await stream.waitFor('the recording to have media', (r) => r.duration >= 2);
    assert.deepEqual((await service.call('DELETE', `/live_streams/${stream._id}`, { token })).body, { success: true });
    assert.notEqual(await pushed, 0, 'the publisher was cut off, not left to finish its 30 s');
    assert.equal(
      (await service.call('GET', `/live_streams/${stream._id}/temporary_recordings`, { token })).status,
      404,
    );
    assert.equal((await fetch(live.playback.temporary_playback)).status, 404);
    await assert.rejects(readdir(join(service.data, 'recordings', live._id)), { code: 'ENOENT' });
  });

  it('a storyboard asked for while its recording is deleted: found or not found, and no file of it left behind', async () => {
    const stream = await createStream(service, token, 'viewed-while-deleted');
    const pushed = push(stream.ingest.url, 30);
    const live = await stream.waitFor('the recording to have media', (r) => r.duration >= 4);
    // Viewers keep asking for the storyboard and its first sheet, as a clipper open on the recording does.
    const statuses = new Set<number>();
    let deleted = false;
    const viewer = async () => {
      for (let settledAfter = 0; settledAfter < 10; settledAfter += deleted ? 1 : 0)
        for (const url of [live.playback.storyboard, new URL('storyboard/0.jpg', live.playback.storyboard).href])
          statuses.add((await fetch(url)).status);
    };
    const viewers = Array.from({ length: 6 }, viewer);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual((await service.call('DELETE', `/live_streams/${stream._id}`, { token })).body, { success: true });
    deleted = true;
    await Promise.all(viewers);
    await pushed;
    assert.deepEqual([...statuses].sort(), [200, 404]);
    await assert.rejects(readdir(join(service.data, 'recordings', live._id)), { code: 'ENOENT' });
  });

  it('refuses a publish whose stream key no live stream has', async () => {
    const stream = await createStream(service, token);
    const code = await push(`${service.rtmp}/lv_${'x'.repeat(24)}`, 4);
    assert.notEqual(code, 0, 'ffmpeg should fail to publish');
    assert.notEqual(
      await push(`${service.rtmp.replace(/\/live$/, '/other')}/${stream.stream_key}`, 2),
      0,
      'only the live app takes publishes',
    );
    assert.deepEqual(await stream.list(), []);
  });

  let recorded: { stream: ReturnType<typeof streamOf>; recording: any };

  it('lists a recording within 5 s, merges a return within the window, and completes after it', async () => {
    const stream = await createStream(service, token);
    const first = push(stream.ingest.url, 6);
    const live = await stream.waitFor('the recording in #9', () => true, 0, 5_000);
    assert.equal(live.status, 'live');
    assert.equal(live.stream_key, stream.stream_key);
    assert.equal(live.end_time, null);
    assert.equal(live.download_url, null);
    assert.deepEqual(live.export_data, []);
    assert.equal((await service.call('GET', `/live_streams/${stream._id}`, { token })).body.status, 'live');
    // The playlist plays while live: it grows, as an EVENT playlist with program date times.
    const playlist = await until('a segment in temporary_playback', async () => {
      const text = await (await fetch(live.playback.temporary_playback)).text();
      return segmentsOf(text) > 0 ? text : undefined;
    });
    assert.match(playlist, /#EXT-X-PLAYLIST-TYPE:EVENT/);
    assert.match(playlist, /#EXT-X-PROGRAM-DATE-TIME:\d{4}-\d\d-\d\dT/);
    assert.doesNotMatch(playlist, /#EXT-X-ENDLIST/);
    assert.equal(await first, 0);
    await stream.waitFor('the first publish to stop', (r) => r.status === 'stopped');

    // Back within the merge window (one minute): the same recording goes on.
    assert.equal(await push(stream.ingest.url, 4), 0);
    const merged = await stream.waitFor('the second publish to stop', (r) => r.status === 'stopped');
    assert.equal((await stream.list()).length, 1);
    assert.equal(merged._id, live._id);
    assert.equal(merged.start_time, live.start_time);
    const both = await (await fetch(live.playback.temporary_playback)).text();
    assert.equal(both.match(/#EXT-X-DISCONTINUITY\n/g)?.length, 1);

    // Stopped for more than the window: complete, with its end, whole seconds and an MP4 of it all.
    await service.advanceClock(MINUTE + 1_000);
    const complete = await stream.waitFor('the recording to be complete', (r) => r.status === 'complete');
    assert.ok(Date.parse(complete.end_time) > Date.parse(complete.start_time));
    assert.ok(
      Number.isInteger(complete.duration) && complete.duration >= 9 && complete.duration <= 11,
      `duration ${complete.duration}`,
    );
    const mp4 = await probeDuration(complete.download_url);
    assert.deepEqual(await decodeProblems(complete.download_url), [], 'the two publishes join cleanly in the MP4');
    assert.ok(Math.abs(mp4 - complete.duration) <= 0.6, `MP4 ${mp4}s vs ${complete.duration}s`);
    const vod = await (await fetch(live.playback.temporary_playback)).text();
    assert.match(vod, /#EXT-X-PLAYLIST-TYPE:VOD/);
    assert.match(vod, /#EXT-X-ENDLIST/);
    recorded = { stream, recording: complete };

    // After the window, a new publish is a new recording.
    assert.equal(await push(stream.ingest.url, 3), 0);
    const second = await stream.waitFor('a second recording', (r) => r.status === 'stopped', 1);
    assert.notEqual(second._id, live._id);
    assert.equal((await stream.list()).length, 2);
    // Not complete yet (inside the window): it cannot be converted.
    const early = await stream.convert(second._id, {});
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'recording_not_complete');
  });

  it('refuses a second publisher on a live key while the first keeps recording', async () => {
    const stream = await createStream(service, token, 'contested');
    const first = push(stream.ingest.url, 8);
    await stream.waitFor('the first publish to record', (r) => r.status === 'live' && r.duration >= 1);
    assert.notEqual(await push(stream.ingest.url, 3), 0, 'the second publisher is refused');
    assert.equal(await first, 0, 'the first publish ran to its end');
    const stopped = await stream.waitFor('the first publish to stop', (r) => r.status === 'stopped');
    assert.ok(stopped.duration >= 7, `the first kept recording: ${stopped.duration} s of 8`);
    assert.equal((await stream.list()).length, 1);
  });

  it('encodes a stream that is not H.264/AAC into H.264/AAC segments', async () => {
    const stream = await createStream(service, token, 'old encoder');
    assert.equal(
      await push(stream.ingest.url, 4, { codecs: ['-c:v', 'flv', '-q:v', '5', '-c:a', 'libmp3lame', '-ar', '44100'] }),
      0,
    );
    const recording = await stream.waitFor('the publish to stop', (r) => r.status === 'stopped' && r.duration >= 2);
    const { stdout } = await promisify(execFile)('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=codec_name',
      '-of',
      'csv=p=0',
      recording.playback.temporary_playback,
    ]);
    assert.deepEqual(
      [
        ...new Set(
          stdout
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean),
        ),
      ].sort(),
      ['aac', 'h264'],
    );
  });

  describe('conversion (#10, #11) and video-ready', () => {
    let receiver: Receiver;
    before(async () => {
      receiver = await new Receiver().listen();
      const hook = await service.call('POST', '/webhooks', {
        token,
        body: { url: receiver.url, events: ['video-ready'] },
      });
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
    });
    after(() => receiver.close());

    it('converts a part (accurately) and the whole recording at once into permanent videos', async () => {
      const { stream, recording } = recorded;
      const from = new Date(Date.parse(recording.start_time) + 2_500).toISOString();
      // The part is converted as a clipping element in a browser would: with a clip token for this stream.
      const clip = (
        await service.call('POST', '/tokens', { token, body: { scope: 'clip', live_stream_id: stream._id } })
      ).body.token as string;
      const [part, whole] = await Promise.all([
        service.call('POST', `/live_streams/${stream._id}/temporary_recordings/${recording._id}`, {
          token: clip,
          body: { from, duration: 4 },
        }),
        stream.convert(recording._id),
      ]);
      assert.equal(part.status, 200, JSON.stringify(part.body));
      assert.deepEqual(part.body, { from, duration: 4, bytes: 0, status: 'PROCESSING', download_url: null });
      assert.equal(whole.status, 200, JSON.stringify(whole.body));
      assert.deepEqual(whole.body, {
        from: recording.start_time,
        duration: recording.duration,
        bytes: 0,
        status: 'PROCESSING',
        download_url: null,
      });

      const done = await stream.waitFor(
        'both exports',
        (r) => r.export_data.length === 2 && r.export_data.every((e: any) => e.status === 'EXPORTED'),
        0,
        120_000,
      );
      const partEntry = done.export_data.find((e: any) => e.from === from && e.duration === 4);
      const wholeEntry = done.export_data.find(
        (e: any) => e.from === recording.start_time && e.duration === recording.duration,
      );
      for (const [entry, seconds] of [
        [partEntry, 4],
        [wholeEntry, recording.duration],
      ] as const) {
        assert.match(entry.video_id, /^[0-9a-f]{24}$/);
        const download = await fetch(entry.download_url);
        assert.equal(
          entry.bytes,
          (await download.arrayBuffer()).byteLength,
          'bytes is the size of the file at download_url',
        );
        const probed = await probeDuration(entry.download_url);
        assert.ok(Math.abs(probed - seconds) <= 0.5, `export of ${seconds}s probes at ${probed}s`);
        // Where a re-encoded edge meets the copied middle, or one publish the next, a player must find nothing wrong.
        assert.deepEqual(await decodeProblems(entry.download_url), [], `the export of ${seconds}s`);
        const video = (await service.call('GET', `/videos/${entry.video_id}`, { token })).body;
        assert.equal(video.status, 'ready');
        assert.equal(
          (await service.call('GET', `/videos/${entry.video_id}`, { token: clip })).status,
          200,
          'the clip token reads #8 of what its stream made',
        );
        assert.equal(video.live_stream_id, stream._id);
        assert.ok(Math.abs((await probeDuration(video.playback.hls_url)) - seconds) <= 0.5);
      }
      const listed = (await service.call('GET', `/live_streams/${stream._id}/recordings`, { token })).body;
      assert.deepEqual(listed.map((v: any) => v._id).sort(), done.export_data.map((e: any) => e.video_id).sort());

      // Each export announced itself: video-ready with the new video's id and its mediainfo.
      const ids = await until('two video-ready deliveries', async () => {
        const got = receiver.received
          .map((r) => JSON.parse(r.body))
          .filter((b) => b.event === 'video-ready')
          .map((b) => b.payload._id);
        return got.length >= 2 ? got : undefined;
      });
      assert.deepEqual(ids.sort(), done.export_data.map((e: any) => e.video_id).sort());
    });

    it('answers 400 naming the field for a bad conversion body, 404 for an unknown recording', async () => {
      const { stream, recording } = recorded;
      const start = Date.parse(recording.start_time);
      const at = (ms: number) => new Date(start + ms).toISOString();
      const cases: [unknown, string][] = [
        [{ from: at(1000) }, 'duration'],
        [{ duration: 3 }, 'from'],
        [{ from: 'yesterday', duration: 3 }, 'from'],
        [{ from: 1700000000, duration: 3 }, 'from'],
        [{ from: '2026-11-22T10:00:00', duration: 3 }, 'from'],
        [{ from: at(-5_000), duration: 3 }, 'from'],
        [{ from: at((recording.duration + 30) * 1000), duration: 3 }, 'from'],
        [{ from: at(1000), duration: 0 }, 'duration'],
        [{ from: at(1000), duration: -2 }, 'duration'],
        [{ from: at(1000), duration: 2.5 }, 'duration'],
        [{ from: at(1000), duration: '3' }, 'duration'],
        [{ from: at(1000), duration: recording.duration + 5 }, 'duration'],
      ];
      for (const [body, field] of cases) {
        const r = await stream.convert(recording._id, body);
        assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status}`);
        assert.equal(r.body.error.field, field, `${JSON.stringify(body)}: ${r.body.error.message}`);
        assert.ok(r.body.error.message.includes(field), r.body.error.message);
      }
      const notJson = await service.call('POST', `/live_streams/${stream._id}/temporary_recordings/${recording._id}`, {
        token,
        raw: '{from',
      });
      assert.equal(notJson.status, 400);
      assert.equal((await stream.convert('0'.repeat(24), {})).status, 404);
      assert.equal((await stream.convert('not-an-id', {})).status, 404);
    });

    it('refuses a conversion past the hosting-minute quota; temporary recordings do not count', async () => {
      const { stream, recording } = recorded;
      const used = (await service.call('GET', '/usage', { token })).body.hosting_minutes.used;
      // The two exports (4 s + the whole recording) are all that count; the recordings themselves do not.
      assert.ok(Math.abs(used - (4 + recording.duration) / 60) < 0.05, `used ${used}`);
      await service.cli('plan', '--org', 'acme', '--quota-minutes', String(used + 0.05));
      // A part not converted yet (the whole one is: asked again, it is the entry already made).
      const from = new Date(Date.parse(recording.start_time) + 1_000).toISOString();
      const refused = await stream.convert(recording._id, { from, duration: 5 });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'quota_exceeded');
      assert.match(refused.body.error.message, /quota/);
      const { body: usage } = await service.call('GET', '/usage', { token });
      assert.equal(usage.hosting_minutes.quota, Math.round((used + 0.05) * 1e6) / 1e6);
      await service.cli('plan', '--org', 'acme', '--quota-minutes', 'unlimited');
    });
  });
});

describe('clips while live (#10) and storyboards', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('clips', LOCAL_RECEIVERS)));
  after(() => service.stop());

  it('converts a part of a live recording inside what is recorded, on the same timeline as once complete; the whole waits', async () => {
    const stream = await createStream(service, token, 'instant clips');
    const pushed = push(stream.ingest.url, 14);
    const live = await stream.waitFor('6 s recorded', (r) => r.status === 'live' && r.duration >= 6, 0, 20_000);
    // Half a frame before the frame 1.5 s in, as the clipper sends it: each cut begins on that frame, whatever
    // milliseconds the playlist's timeline and the MP4's differ by.
    const from = new Date(Date.parse(live.start_time) + 1_500 - 17).toISOString();

    const pastTheEdge = await stream.convert(live._id, { from, duration: 40 });
    assert.equal(pastTheEdge.status, 400);
    assert.equal(pastTheEdge.body.error.field, 'duration');
    assert.match(pastTheEdge.body.error.message, /recorded so far/);
    const whole = await stream.convert(live._id, {});
    assert.equal(whole.status, 409);
    assert.equal(whole.body.error.code, 'recording_not_complete');
    assert.match(whole.body.error.message, /A part of what is already recorded can be converted now/);
    const part = await stream.convert(live._id, { from, duration: 3 });
    assert.equal(part.status, 200, JSON.stringify(part.body));
    assert.deepEqual(part.body, { from, duration: 3, bytes: 0, status: 'PROCESSING', download_url: null });
    assert.equal((await stream.list())[0].status, 'live', 'asked while the stream was live');
    // "From the start", as the clipper sends it: half a frame before the first frame, a moment before the publish
    // began, is the publish's start; a second and more before it is outside the recording.
    const headFrom = new Date(Date.parse(live.start_time) - 17).toISOString();
    const head = await stream.convert(live._id, { from: headFrom, duration: 2 });
    assert.equal(head.status, 200, JSON.stringify(head.body));
    assert.equal(head.body.from, live.start_time, 'the conversion begins where the recording does');
    const before = await stream.convert(live._id, {
      from: new Date(Date.parse(live.start_time) - 1_500).toISOString(),
      duration: 2,
    });
    assert.equal(before.status, 400);
    assert.equal(before.body.error.field, 'from');

    // The storyboard grows with the recording: a thumbnail per finished segment already.
    const vtt = await (await fetch(live.playback.storyboard)).text();
    assert.ok((vtt.match(/ --> /g)?.length ?? 0) >= 2, vtt);

    const exported = await stream.waitFor(
      'both live clips',
      (r) => r.export_data.length === 2 && r.export_data.every((e: any) => e.status === 'EXPORTED'),
      0,
      60_000,
    );
    const liveClip = exported.export_data.find((e: any) => e.from === from)!.download_url as string;
    const headClip = exported.export_data.find((e: any) => e.from === live.start_time)!.download_url as string;
    assert.ok(Math.abs((await probeDuration(headClip)) - 2) <= 0.05, 'the head clip is two seconds');
    assert.ok(Math.abs((await probeDuration(liveClip)) - 3) <= 0.05, 'three seconds to within a frame or so');
    assert.deepEqual(await decodeProblems(liveClip), []);

    assert.equal(await pushed, 0);
    await stream.waitFor('the publish to stop', (r) => r.status === 'stopped');
    await service.advanceClock(MINUTE + 1_000);
    const complete = await stream.waitFor('complete', (r) => r.status === 'complete');
    // 2 s: the same from and duration would be the conversion already made.
    assert.equal((await stream.convert(complete._id, { from, duration: 2 })).status, 200);
    const later = await stream.waitFor(
      'the same part from the MP4',
      (r) => r.export_data.find((e: any) => e.from === from && e.duration === 2)?.status === 'EXPORTED',
      0,
      60_000,
    );
    // The same part cut live (from the playlist) and once complete (from the MP4) begins on the same frame.
    const fromMp4 = later.export_data.find((e: any) => e.from === from && e.duration === 2)!.download_url as string;
    const likeness = await firstFrameLikeness(liveClip, fromMp4, 0, 3);
    assert.ok(likeness[0]! > 0.97 && likeness[0]! > likeness[1]! && likeness[0]! > likeness[2]!, `SSIM ${likeness}`);
  });

  it('serves a storyboard: a 160 × 90 thumbnail per segment in sprite sheets of 10 × 10, and its WebVTT', async () => {
    const stream = await createStream(service, token, 'storyboard');
    assert.equal(await push(stream.ingest.url, 5), 0);
    const recording = await stream.waitFor('the publish to stop', (r) => r.status === 'stopped');
    const playlist = await (await fetch(recording.playback.temporary_playback)).text();
    const extinf = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].map((m) => Number(m[1]));
    const res = await fetch(recording.playback.storyboard);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/vtt/);
    const cues = [...(await res.text()).matchAll(/^(\S+) --> (\S+)\n(\S+)$/gm)];
    assert.equal(cues.length, extinf.length, 'one cue per segment');
    assert.equal(cues[0]![1], '00:00:00.000');
    const seconds = (t: string) => t.split(':').reduce((sum, n) => sum * 60 + Number(n), 0);
    const total = extinf.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(seconds(cues.at(-1)![2]!) - total) < 0.002, 'the cues end where the playlist does');
    cues.forEach((cue, i) =>
      assert.equal(cue[3], `storyboard/0.jpg?n=${extinf.length}#xywh=${i * 160},0,160,90`, `cue ${i}`),
    );
    const sheet = new URL(cues[0]![3]!, recording.playback.storyboard).href;
    const image = await fetch(sheet);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/jpeg');
    const { stdout } = await promisify(execFile)('ffprobe', [
      ...['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', sheet.replace(/#.*$/, '')],
    ]);
    assert.equal(stdout.trim(), '1600,90');
    for (const name of ['1.jpg', 'x.jpg', '..%2Fpart1%2Fseg00000.ts'])
      assert.equal((await fetch(new URL(`storyboard/${name}`, recording.playback.storyboard))).status, 404, name);
    assert.equal((await fetch(`${service.api}/recordings/${'0'.repeat(24)}/storyboard.vtt`)).status, 404);
  });
});

describe('a publish across service restarts', () => {
  it('continues the same recording after SIGTERM and after SIGKILL, and completes it with a clean MP4', async () => {
    const started = await startWithToken('acme');
    const { token } = started;
    let { service } = started;
    try {
      const created = (await service.call('POST', '/live_streams', { token, body: { name: 'restarts' } }))
        .body as LiveStream;
      const recorded: string[] = [];
      let seconds = 0;
      for (const stop of ['stop', 'kill'] as const) {
        const stream = streamOf(service, token, created);
        const pushed = push(`${service.rtmp}/${created.stream_key}`, 60);
        const live = await stream.waitFor(
          '3 s more to be recorded',
          (r) => r.status === 'live' && r.duration >= seconds + 3,
        );
        seconds = live.duration;
        recorded.push(live._id);
        await service[stop]();
        assert.notEqual(await pushed, 0, `the publish was cut by ${stop === 'stop' ? 'SIGTERM' : 'SIGKILL'}`);
        service = await startService({ data: service.data, ports: service });
      }
      // The publisher returns within the merge window, to the restarted service.
      const stream = streamOf(service, token, created);
      assert.equal(await push(`${service.rtmp}/${created.stream_key}`, 4), 0);
      const returned = await stream.waitFor(
        'the return to stop',
        (r) => r.status === 'stopped' && r.duration >= seconds + 3,
      );
      assert.deepEqual(
        (await stream.list()).map((r) => r._id),
        [recorded[0]],
        'one recording across both restarts',
      );
      assert.deepEqual(recorded, [returned._id, returned._id]);
      const playlist = await (await fetch(returned.playback.temporary_playback)).text();
      assert.equal(playlist.match(/#EXT-X-DISCONTINUITY\n/g)?.length, 2, 'three publishes, two seams');

      await service.advanceClock(MINUTE + 1_000);
      const complete = await stream.waitFor('the recording to be complete', (r) => r.status === 'complete', 0, 60_000);
      assert.deepEqual(await decodeProblems(complete.download_url), [], 'the MP4 decodes cleanly across the restarts');
      const mp4 = await probeDuration(complete.download_url);
      assert.ok(Math.abs(mp4 - complete.duration) <= 0.6, `MP4 ${mp4}s vs ${complete.duration}s`);
      assert.ok(
        complete.duration >= seconds + 3,
        `what was recorded before the restarts and after: ${complete.duration} s`,
      );
    } finally {
      await service.stop();
    }
  });
});

describe('retention, plan end and quotas on the service clock', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('deletes a temporary recording and its files 3 days after it ends, and not before', async () => {
    const stream = await createStream(service, token);
    assert.equal(await push(stream.ingest.url, 3), 0);
    await stream.waitFor('the publish to stop', (r) => r.status === 'stopped');
    await service.advanceClock(MINUTE + 1_000);
    const recording = await stream.waitFor('the recording to be complete', (r) => r.status === 'complete');
    const dir = join(service.data, 'recordings', recording._id);
    assert.ok((await readdir(dir)).includes('recording.mp4'));

    await service.advanceClock(3 * 24 * 60 * MINUTE - MINUTE * 2);
    await service.sweep();
    assert.equal((await stream.list()).length, 1, 'kept until 3 days after its end');
    assert.equal((await fetch(recording.download_url)).status, 200);

    await service.advanceClock(3 * MINUTE);
    await until('the recording to be deleted', async () => ((await stream.list()).length === 0 ? true : undefined));
    assert.equal((await stream.convert(recording._id, {})).status, 404);
    assert.equal((await fetch(recording.download_url)).status, 404);
    await assert.rejects(readdir(dir), { code: 'ENOENT' });
  });

  it('deletes a recording whose MP4 could not be made 3 days after it stopped, as any other', async () => {
    const stream = await createStream(service, token);
    assert.equal(await push(stream.ingest.url, 3), 0);
    const stopped = await stream.waitFor('the publish to stop', (r) => r.status === 'stopped');
    // Its recorder's playlist made unreadable: ffmpeg cannot join the part, and the finish fails for good.
    const dir = join(service.data, 'recordings', stopped._id);
    await writeFile(join(dir, 'part1', 'stream.m3u8'), 'not a playlist');
    const failed = () => jobsEnded(service, 'finish-recording', 'failed');
    const before = await failed();
    await service.advanceClock(MINUTE + 1_000);
    await until('the finish to fail', async () => ((await failed()) > before ? true : undefined));
    assert.equal((await stream.list())[0].status, 'stopped', 'no MP4: it stays stopped');

    await service.advanceClock(3 * 24 * 60 * MINUTE);
    await until('the recording to be deleted', async () => ((await stream.list()).length === 0 ? true : undefined));
    await assert.rejects(readdir(dir), { code: 'ENOENT' });
  });

  it('deletes every file of an organization 15 days after its plan ends, and not before', async () => {
    const ending = await service.token('ending-plan');
    const id = await upload(service, ending, await media('h264-aac-320p-4s.mp4'));
    const kept = await upload(service, token, await media('h264-aac-320p-4s.mp4'));
    const video = await waitForVideo(service, ending, id);
    await waitForVideo(service, token, kept);
    const now = (await service.call('POST', '/__test__/clock', { body: { advanceMs: 0 } })).body.now as number;
    await service.cli('plan', '--org', 'ending-plan', '--ends', new Date(now).toISOString());
    const { body: usage } = await service.call('GET', '/usage', { token: ending });
    assert.equal(usage.plan.end_time, new Date(now).toISOString());
    assert.equal(usage.plan.files_deleted_time, new Date(now + 15 * 24 * 60 * MINUTE).toISOString());

    await service.advanceClock(15 * 24 * 60 * MINUTE - 60 * MINUTE);
    await service.sweep();
    assert.equal(
      (await service.call('GET', `/videos/${id}`, { token: ending })).status,
      200,
      'kept until 15 days after the plan ended',
    );
    assert.equal((await fetch(video.download_url)).status, 200);

    await service.advanceClock(2 * 60 * MINUTE);
    await until('the files to be deleted', async () =>
      (await fetch(video.download_url)).status === 404 ? true : undefined,
    );
    await assert.rejects(readdir(join(service.data, 'videos', id)), { code: 'ENOENT' });
    // Its keys end with it (issue 28, item 8; test/service/capabilities.test.ts).
    assert.equal((await service.call('GET', `/videos/${id}`, { token: ending })).body.error.code, 'capability_revoked');
    assert.equal(
      (await service.call('GET', `/videos/${kept}`, { token })).status,
      200,
      'another organization keeps its files',
    );
  });

  it('refuses an upload once the hosting-minute quota is used up, naming the quota', async () => {
    const small = await service.token('small-plan');
    await service.cli('plan', '--org', 'small-plan', '--quota-minutes', '0.05');
    const id = await upload(service, small, await media('h264-aac-320p-4s.mp4'));
    await waitForVideo(service, small, id);
    const { body: usage } = await service.call('GET', '/usage', { token: small });
    assert.equal(usage.hosting_minutes.quota, 0.05);
    assert.ok(Math.abs(usage.hosting_minutes.used - 4 / 60) < 0.01, `used ${usage.hosting_minutes.used}`);
    const { body: next } = await service.call('POST', '/videos', { token: small });
    for (const path of [`/videos/${next._id}/uploads`, `/videos/${next._id}/multipart-upload/begin`]) {
      const r = await service.call('POST', path, { token: small });
      assert.equal(r.status, 403, path);
      assert.equal(r.body.error.code, 'quota_exceeded');
      assert.match(r.body.error.message, /0\.05 minutes/);
    }
  });
});
