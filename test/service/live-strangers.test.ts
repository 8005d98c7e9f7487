import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LiveStream } from '../../src/api/types.js';
import { createStream, push, recordingsOf } from '../helpers/live.js';
import { startWithToken, type RunningService } from '../helpers/service.js';

const MINUTE = 60_000;
/** An audio-only publish: the test pattern's tone, no picture. */
const AUDIO_ONLY = ['-vn', '-c:a', 'aac', '-b:a', '128k'];

const segmentsOf = (playlist: string) => playlist.split('\n').filter((l) => l.endsWith('.ts')).length;
const cuesOf = (vtt: string) => vtt.match(/ --> /g)?.length ?? 0;
const text = async (url: string) => {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  return res.text();
};

describe('publish keys stay with keys (issue 28, item 1)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('keys')));
  after(() => service.stop());

  const clipToken = async (streamId: string) => {
    const r = await service.call('POST', '/tokens', { token, body: { scope: 'clip', live_stream_id: streamId } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.token as string;
  };

  it("a clip token's #9 shows the stream key masked, never the key itself; a key sees it whole", async () => {
    const stream = await createStream(service, token, 'masked');
    assert.equal(await push(stream.ingest.url, 3, { realTime: false }), 0);
    await recordingsOf(service, token, stream._id).waitFor('the publish to stop', (r) => r.status === 'stopped');
    const clip = await clipToken(stream._id);

    const asClip = await service.call('GET', `/live_streams/${stream._id}/temporary_recordings`, { token: clip });
    assert.equal(asClip.status, 200);
    assert.equal(asClip.body[0].stream_key, `lv_…${stream.stream_key.slice(-4)}`);
    assert.ok(!JSON.stringify(asClip.body).includes(stream.stream_key), 'the key is nowhere in the answer');
    assert.equal((await recordingsOf(service, token, stream._id).list())[0].stream_key, stream.stream_key);

    // Nor may it read the stream (its ingest URL) or change its key.
    for (const [method, path] of [
      ['GET', `/live_streams/${stream._id}`],
      ['POST', `/live_streams/${stream._id}/stream-key`],
    ] as const) {
      const r = await service.call(method, path, { token: clip });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(r.body.error.code, 'insufficient_scope');
    }
  });

  it('a new key cuts the publisher using the old one and refuses the old key; the new key continues the recording, and every recording stays', async () => {
    const stream = await createStream(service, token, 'rotated');
    const recordings = recordingsOf(service, token, stream._id);
    // An earlier recording, complete, with a conversion of it.
    assert.equal(await push(stream.ingest.url, 3, { realTime: false }), 0);
    await recordings.waitFor('the first publish to stop', (r) => r.status === 'stopped');
    await service.advanceClock(MINUTE + 1_000);
    const earlier = await recordings.waitFor('the first recording to be complete', (r) => r.status === 'complete');
    const converted = await service.call('POST', `/live_streams/${stream._id}/temporary_recordings/${earlier._id}`, {
      token,
      body: {},
    });
    assert.equal(converted.status, 200, JSON.stringify(converted.body));

    const pushed = push(stream.ingest.url, 30);
    const live = await recordings.waitFor('the publish to record', (r) => r.status === 'live' && r.duration >= 2, 1);
    const rotated = await service.call('POST', `/live_streams/${stream._id}/stream-key`, { token });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const renewed = rotated.body as LiveStream;
    assert.match(renewed.stream_key, /^lv_[A-Za-z0-9_-]{20,}$/);
    assert.notEqual(renewed.stream_key, stream.stream_key);
    assert.equal(renewed.ingest.url, `${stream.ingest.server}/${renewed.stream_key}`);
    assert.equal(renewed.status, 'idle', 'the publish was cut before the answer');
    assert.deepEqual((await service.call('GET', `/live_streams/${stream._id}`, { token })).body, renewed);
    assert.notEqual(await pushed, 0, 'the publisher with the old key was cut, not left to finish its 30 s');

    assert.notEqual(await push(stream.ingest.url, 3), 0, 'the old key is refused');
    assert.equal(await push(renewed.ingest.url, 3), 0, 'the new key publishes');
    const back = await recordings.waitFor(
      'the publish with the new key to stop',
      (r) => r.status === 'stopped' && r.duration > live.duration,
      1,
    );
    assert.equal(back._id, live._id, 'back within the merge window: the same recording goes on');
    assert.equal((await text(back.playback.temporary_playback)).match(/#EXT-X-DISCONTINUITY\n/g)?.length, 1);

    const all = await recordings.list();
    assert.deepEqual(
      all.map((r) => r._id),
      [earlier._id, live._id],
      'every recording stays',
    );
    assert.equal(all[0].export_data.length, 1, 'and its conversion');
    assert.equal(all[0].stream_key, renewed.stream_key);
    assert.equal((await fetch(earlier.download_url)).status, 200);
  });
});

describe('recording routes do their work once (issue 28, item 7)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('storyboards')));
  after(() => service.stop());

  const work = async () =>
    (await service.call('GET', '/__test__/recording-work')).body as { fileCalls: number; ffmpegRuns: number };

  it('answers the storyboard, its sheets and the playlist of complete recordings again without touching a segment or running ffmpeg', async () => {
    const video = await createStream(service, token, 'picture');
    const audio = await createStream(service, token, 'audio only');
    assert.equal(await push(video.ingest.url, 6, { realTime: false }), 0);
    assert.equal(await push(audio.ingest.url, 6, { codecs: AUDIO_ONLY, realTime: false }), 0);
    const streams = [video, audio].map((s) => recordingsOf(service, token, s._id));
    for (const s of streams) await s.waitFor('the publish to stop', (r) => r.status === 'stopped');
    await service.advanceClock(MINUTE + 1_000);
    const [withPicture, without] = await Promise.all(
      streams.map((s) => s.waitFor('the recording to be complete', (r) => r.status === 'complete')),
    );

    const round = async () => {
      const vtt = await text(withPicture.playback.storyboard);
      const sheet = await fetch(new URL(vtt.match(/^storyboard\/\S+$/m)![0], withPicture.playback.storyboard));
      assert.equal(sheet.status, 200);
      return {
        vtt,
        sheet: (await sheet.arrayBuffer()).byteLength,
        playlist: await text(withPicture.playback.temporary_playback),
        audioVtt: await text(without.playback.storyboard),
        audioPlaylist: await text(without.playback.temporary_playback),
        listed: await Promise.all(streams.map((s) => s.list())),
      };
    };
    const first = await round();
    assert.equal(cuesOf(first.vtt), segmentsOf(first.playlist), 'a thumbnail per segment');
    assert.ok(segmentsOf(first.audioPlaylist) >= 2);
    assert.equal(first.audioVtt, 'WEBVTT\n', 'segments without a picture have no thumbnail, and no error');
    const done = await work();
    for (let i = 0; i < 5; i++) assert.deepEqual(await round(), first);
    assert.deepEqual(await work(), done, 'five more rounds read no segment, playlist or thumbnail and ran nothing');
  });

  it('lists a new segment of a live publish in the next answer', async () => {
    const stream = await createStream(service, token, 'growing');
    const pushed = push(stream.ingest.url, 14);
    const live = await recordingsOf(service, token, stream._id).waitFor(
      'the publish to record',
      (r) => r.status === 'live' && r.duration >= 2,
    );
    const onDisk = join(service.data, 'recordings', live._id, 'part1', 'stream.m3u8');
    const served: number[] = [];
    for (let i = 0; i < 5; i++) {
      // What the recorder has finished before the request: the answer lists at least that much.
      const finished = segmentsOf(await readFile(onDisk, 'utf8'));
      const playlist = segmentsOf(await text(live.playback.temporary_playback));
      const cues = cuesOf(await text(live.playback.storyboard));
      assert.ok(playlist >= finished, `round ${i}: ${playlist} segments served, ${finished} on disk`);
      assert.ok(cues >= finished, `round ${i}: ${cues} thumbnails served, ${finished} segments on disk`);
      served.push(playlist);
      await new Promise((r) => setTimeout(r, 2_500));
    }
    assert.ok(served.at(-1)! > served[0]!, `the recording grew while asked for: ${served}`);
    assert.equal(await pushed, 0);
  });
});

describe('completing recordings is fair per organization (issue 28, item 2)', () => {
  let service: RunningService;
  before(async () => ({ service } = await startWithToken('unused')));
  after(() => service.stop());

  it("completes one organization's recording alongside another's six, not behind them", async () => {
    // 720p: each MP4 takes long enough to make that fair or not shows in the order they complete.
    const AT_720P = { realTime: false, size: '1280x720' };
    const many = await service.token('many-recordings');
    const one = await service.token('one-recording');
    const theirs = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => createStream(service, many, `many ${n}`)));
    assert.deepEqual(await Promise.all(theirs.map((s) => push(s.ingest.url, 2, AT_720P))), [0, 0, 0, 0, 0, 0]);
    const manyRecordings = theirs.map((s) => recordingsOf(service, many, s._id));
    for (const r of manyRecordings) await r.waitFor('the publish to stop', (x) => x.status === 'stopped');
    // Stopped last, so it is the last to be due.
    const mine = await createStream(service, one, 'one');
    assert.equal(await push(mine.ingest.url, 2, AT_720P), 0);
    const myRecording = recordingsOf(service, one, mine._id);
    await myRecording.waitFor('the publish to stop', (x) => x.status === 'stopped');

    await service.advanceClock(MINUTE + 1_000);
    // How many of theirs are complete when mine is seen complete (read just after it: at most that many then).
    // Behind them it would be 6; beside the first of them, 1 (or 2 had it taken twice as long as theirs).
    for (const end = Date.now() + 60_000; ; assert.ok(Date.now() < end, 'mine to be complete within a minute')) {
      const [[me], ...them] = await Promise.all([myRecording.list(), ...manyRecordings.map((r) => r.list())]);
      if (me.status !== 'complete') continue;
      const completeOfTheirs = them.filter(([r]) => r.status === 'complete').length;
      assert.ok(completeOfTheirs <= 3, `${completeOfTheirs} of the other organization's 6 were complete first`);
      break;
    }
    await Promise.all(manyRecordings.map((r) => r.waitFor('complete', (x) => x.status === 'complete')));
  });
});
