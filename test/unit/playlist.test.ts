import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { composePlaylist, partPlaylist, partStarts, playlistSegments, type Part } from '../../service/live/playlist.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const part = (seq: number, startedAt: number, ...durations: number[]): Part => ({
  seq,
  startedAt,
  segments: durations.map((duration, i) => ({ duration, file: `seg${String(i).padStart(5, '0')}.ts` })),
});

describe('recording playlists (service/live/playlist.ts)', () => {
  it("reads the finished segments of a recorder's playlist, and none of an empty one", () => {
    assert.deepEqual(
      playlistSegments(
        '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.002,\nseg00000.ts\n#EXTINF:1.5,\nseg00001.ts\n#EXTINF:2.0,\n',
      ),
      [
        { duration: 2.002, file: 'seg00000.ts' },
        { duration: 1.5, file: 'seg00001.ts' },
      ],
    );
    assert.deepEqual(playlistSegments(''), []);
  });

  it('lays parts one after another with a 0.2 s gap', () => {
    assert.deepEqual(
      partStarts([part(1, T0, 2, 2), part(2, T0 + 60_000, 1.5), part(3, T0 + 90_000, 2)]),
      [0, 4.2, 5.9],
    );
  });

  it('is an EVENT playlist while it can grow and VOD with an end once complete; a discontinuity where a publisher came back', () => {
    const parts = [part(1, T0, 2, 1.5), part(2, T0 + 30_000, 2.4)];
    const live = composePlaylist(parts, false);
    assert.match(live, /#EXT-X-PLAYLIST-TYPE:EVENT/);
    assert.doesNotMatch(live, /ENDLIST/);
    assert.match(live, /#EXT-X-TARGETDURATION:3\n/);
    const lines = composePlaylist(parts, true).trim().split('\n');
    assert.equal(lines.at(-1), '#EXT-X-ENDLIST');
    assert.match(lines.join('\n'), /#EXT-X-PLAYLIST-TYPE:VOD/);
    assert.equal(lines.filter((l) => l === '#EXT-X-DISCONTINUITY').length, 1);
    assert.deepEqual(
      lines.filter((l) => l.startsWith('#EXT-X-PROGRAM-DATE-TIME')),
      [
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-23T10:00:00.000Z',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-23T10:00:02.000Z',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-23T10:00:30.000Z',
      ],
    );
    assert.deepEqual(
      lines.filter((l) => l.endsWith('.ts')),
      ['part1/seg00000.ts', 'part1/seg00001.ts', 'part2/seg00000.ts'],
    );
  });

  it("writes one part's own playlist from its segments, names in its folder, with an end once it has ended", () => {
    const { segments } = part(1, T0, 2.002, 2.4);
    const growing = partPlaylist(segments, false);
    assert.deepEqual(playlistSegments(growing), segments, 'the segments read back as they were written');
    assert.match(growing, /#EXT-X-PLAYLIST-TYPE:EVENT\n/);
    assert.match(growing, /#EXT-X-TARGETDURATION:3\n/);
    assert.doesNotMatch(growing, /ENDLIST/);
    assert.equal(partPlaylist(segments, true).trim().split('\n').at(-1), '#EXT-X-ENDLIST');
  });
});
