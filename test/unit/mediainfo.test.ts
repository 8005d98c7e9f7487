import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readMediaInfo } from '../../service/processing/mediainfo.js';
import { media } from '../helpers/media.js';

describe('MediaInfo, in a worker thread of its own (service/processing/mediainfo.ts)', () => {
  it("reads the spec's tracks of an MP4", async () => {
    const info = await readMediaInfo(await media('h264-aac-320p-4s.mp4'));
    assert.deepEqual(
      info.track.map((t) => t['@type']),
      ['General', 'Video', 'Audio'],
    );
    assert.equal(info.track[0]!.Format, 'MPEG-4');
    assert.ok(Math.abs(Number(info.duration) - 4) < 0.2, info.duration);
  });

  it('is ended at its time limit, with a reason that says so, and the next file is read as usual', async () => {
    const file = await media('h264-aac-320p-4s.mp4');
    await assert.rejects(readMediaInfo(file, { timeoutMs: 1 }), {
      message: 'MediaInfo took longer than 0.001 s to read the file, so it was stopped.',
    });
    assert.equal((await readMediaInfo(file)).track.length, 3);
  });
});
