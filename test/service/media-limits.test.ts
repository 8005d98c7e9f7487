import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { testPattern } from '../helpers/media.js';
import { startWithToken, upload, waitForVideo, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);

/**
 * An MPEG-TS whose stream changes as it goes: each piece is encoded on its own (same PIDs, its timestamps
 * following the last), and their bytes are joined. ffprobe's stream header then shows only the first piece.
 */
async function changingStream(
  dir: string,
  name: string,
  pieces: { size: string; rate: number; seconds?: number }[],
): Promise<string> {
  const files: Buffer[] = [];
  let at = 0;
  for (const [i, { size, rate, seconds = 2 }] of pieces.entries()) {
    const piece = join(dir, `${name}-${i}.ts`);
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', ...testPattern(size, rate), '-t', String(seconds)],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', String(rate)],
      ...['-output_ts_offset', String(at), '-f', 'mpegts', piece],
    ]);
    files.push(await readFile(piece));
    at += seconds;
  }
  const out = join(dir, `${name}.ts`);
  await writeFile(out, Buffer.concat(files));
  return out;
}

/** The picture size of every keyframe of a file or URL. */
async function keyframeSizes(source: string): Promise<string[]> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-skip_frame', 'nokey', '-select_streams', 'v:0'],
    ...['-show_entries', 'frame=width,height', '-of', 'csv=p=0', source],
  ]);
  // csv leaves a trailing comma on some frames' lines, and blank lines between them.
  return stdout
    .split('\n')
    .map((line) => line.replace(/,+$/, ''))
    .filter(Boolean);
}

describe('media limits that cannot be dodged (processing/pipeline.ts, processing/ffmpeg.ts)', () => {
  let dir: string;
  before(async () => (dir = await tempDir('media-limits-')));

  describe('a stream that changes after its first parameters', () => {
    let service: RunningService;
    let token: string;
    before(
      async () =>
        ({ service, token } = await startWithToken('acme', {
          args: ['--max-resolution', '640x480', '--max-frame-rate', '60'],
        })),
    );
    after(() => service.stop());

    it('fails a video whose picture grows past the limit at a later keyframe, naming the limit', async () => {
      const file = await changingStream(dir, 'grows', [
        { size: '320x240', rate: 25 },
        { size: '1280x720', rate: 25 },
      ]);
      const video = await waitForVideo(service, token, await upload(service, token, file));
      assert.equal(video.status, 'failed');
      assert.match(video.failure_reason, /pictures up to 640×480 \(either way up\) are accepted/);
    });

    it('fails a video whose frames crowd in after its first seconds, counting every packet', async () => {
      // 25 frames a second for longer than ffprobe reads ahead (5 s), then 240: its header says 25, but the
      // whole stream has 680 frames in 10 s.
      const file = await changingStream(dir, 'crowds', [
        { size: '320x240', rate: 25, seconds: 8 },
        { size: '320x240', rate: 240, seconds: 2 },
      ]);
      const video = await waitForVideo(service, token, await upload(service, token, file));
      assert.equal(video.status, 'failed');
      assert.match(video.failure_reason, /frames per second; up to 60 are accepted/);
    });
  });

  it('encodes, never copies, a stream whose picture size changes inside the limits: one size is delivered', async () => {
    const { service, token } = await startWithToken('acme');
    try {
      const file = await changingStream(dir, 'changes', [
        { size: '320x240', rate: 25 },
        { size: '640x360', rate: 25 },
      ]);
      assert.deepEqual(new Set(await keyframeSizes(file)), new Set(['320,240', '640,360']), 'the source changes');
      const video = await waitForVideo(service, token, await upload(service, token, file));
      assert.equal(video.status, 'ready', video.failure_reason);
      assert.equal(new Set(await keyframeSizes(video.download_url)).size, 1, 'one picture size is delivered');
    } finally {
      await service.stop();
    }
  });

  it('stops ffprobe at its time limit (--probe-timeout-seconds), and the video fails saying so', async () => {
    const { service, token } = await startWithToken('acme', { args: ['--probe-timeout-seconds', '0.001'] });
    try {
      const file = await changingStream(dir, 'plain', [{ size: '320x240', rate: 25 }]);
      const video = await waitForVideo(service, token, await upload(service, token, file));
      assert.equal(video.status, 'failed');
      assert.equal(video.failure_reason, 'ffprobe took longer than 0.001 s to read the file, so it was stopped.');
      // The service goes on: another upload is taken.
      const again = await service.call('POST', '/videos', { token });
      assert.equal(again.status, 200);
    } finally {
      await service.stop();
    }
  });
});
