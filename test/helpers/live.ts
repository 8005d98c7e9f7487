import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { LiveStream } from '../../src/api/types.js';
import { testPattern } from './media.js';
import { until, type RunningService } from './service.js';

/** What `push` sends unless told: H.264 + AAC with a keyframe every 2 s, as OBS sends by default. */
const OBS_LIKE = [
  ...['-c:v', 'libx264', '-preset', 'veryfast', '-g', '60', '-b:v', '2M', '-pix_fmt', 'yuv420p'],
  ...['-c:a', 'aac', '-b:a', '128k'],
];

export interface PushOptions {
  /** ffmpeg's output codecs in place of the default: FLV's own Sorenson video and MP3, say, to make the service encode. */
  codecs?: string[];
  /** false: sent as fast as it encodes (a recording to test against, made in a second or two). */
  realTime?: boolean;
  /**
   * The picture's size, 640x360 unless told: what the tests of a recording need is its frames and segments, and a
   * 720p publisher costs about three times the CPU (7.3 s for 10 s here, against 2.6), on cores the whole suite shares.
   * 1280x720 where a test needs the service's own work on it to take a while.
   */
  size?: string;
}

/**
 * A real RTMP publisher: ffmpeg pushing a test pattern and a tone in real time (`-re`) at 2 Mbit/s.
 * Resolves with ffmpeg's exit code.
 */
export function push(
  url: string,
  seconds: number,
  { codecs = OBS_LIKE, realTime = true, size = '640x360' }: PushOptions = {},
): Promise<number | null> {
  const child = spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-v',
      'error',
      ...(realTime ? ['-re'] : []),
      ...testPattern(size, 30, 'frequency=440:sample_rate=48000'),
      '-t',
      String(seconds),
      ...codecs,
      '-f',
      'flv',
      url,
    ],
    { stdio: 'ignore' },
  );
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** #9 of a stream, and a wait for its recording `index` (0: oldest) to exist and be `ok`. */
export function recordingsOf(service: RunningService, token: string, streamId: string) {
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

/** What #9 and #10 need of a stream: its id and ingest URL, and calls on its recordings. */
export function streamOf(service: RunningService, token: string, stream: LiveStream) {
  return {
    ...stream,
    ...recordingsOf(service, token, stream._id),
    convert: (recordingId: string, body?: unknown) =>
      service.call('POST', `/live_streams/${stream._id}/temporary_recordings/${recordingId}`, { token, body }),
  };
}

/** A new live stream (`POST /live_streams`, a key's call), with `streamOf`'s calls. */
export async function createStream(service: RunningService, token: string, name = 'studio') {
  const r = await service.call('POST', '/live_streams', { token, body: { name } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return streamOf(service, token, r.body as LiveStream);
}
