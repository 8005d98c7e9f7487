import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LiveStream } from '../../src/api/types.js';
import { push } from '../helpers/live.js';
import { startWithToken, until, type RunningService } from '../helpers/service.js';

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

async function createStream(service: RunningService, token: string, name: string): Promise<LiveStream> {
  const r = await service.call('POST', '/live_streams', { token, body: { name } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** #9 of a stream, and a wait for its recording `index` (0: oldest) to exist and be `ok`. */
function recordingsOf(service: RunningService, token: string, streamId: string) {
  const list = async () => {
    const r = await service.call('GET', `/live_streams/${streamId}/temporary_recordings`, { token });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as any[];
  };
  const waitFor = (what: string, ok: (r: any) => boolean, index = 0, timeoutMs = 30_000) =>
    until(
      what,
      async () => {
        const r = (await list())[index];
        return r && ok(r) ? r : undefined;
      },
      timeoutMs,
    );
  return { list, waitFor };
}

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
    assert.equal(await push(video.ingest.url, 6, undefined, false), 0);
    assert.equal(await push(audio.ingest.url, 6, AUDIO_ONLY, false), 0);
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
