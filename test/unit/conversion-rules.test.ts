import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { domainUnderTest, type DomainUnderTest } from '../helpers/domain.js';

/** The range checks of #10 on a recording the test lays out itself: rows through the domain, a playlist as text. */
describe('conversion rules (#10, domain on an in-memory database)', () => {
  let domain: DomainUnderTest;
  beforeEach(async () => {
    domain = await domainUnderTest();
  });
  afterEach(() => domain.close());

  /** A stopped recording of one publish: 5 segments of 2 s, as its recorder's playlist lists them. */
  const stoppedRecording = async () => {
    const { body: stream } = await domain.call('POST', '/live_streams', {
      token: domain.key,
      body: { name: 'studio' },
    });
    const { recordings, streams, clock } = domain.context;
    const startAt = clock.now();
    const part = await recordings.beginPart((await streams.byKey(stream.stream_key))!, startAt, 'test-node');
    await mkdir(part.dir, { recursive: true });
    const segments = [0, 1, 2, 3, 4].map((i) => `#EXTINF:2.000000,\nseg${String(i).padStart(5, '0')}.ts`);
    await writeFile(join(part.dir, 'stream.m3u8'), `#EXTM3U\n${segments.join('\n')}\n#EXT-X-ENDLIST\n`);
    clock.advance(10_000);
    await recordings.endPart(part.recordingId, part.seq, clock.now());
    const at = (ms: number) => new Date(startAt + ms).toISOString();
    const convert = (body: unknown) =>
      domain.call('POST', `/live_streams/${stream._id}/temporary_recordings/${part.recordingId}`, {
        token: domain.key,
        body,
      });
    return { at, convert };
  };

  it('converts a part only inside what is recorded: from outside or a duration past the end is 400 naming the field', async () => {
    const { at, convert } = await stoppedRecording();
    for (const [body, field, message] of [
      [{ from: at(-5_000), duration: 3 }, 'from', /is not inside the recording/],
      [{ from: at(12_000), duration: 3 }, 'from', /is not inside the recording/],
      [{ from: at(2_000), duration: 9 }, 'duration', /runs past what is recorded so far in this publish: 8\.000 s/],
      [{ from: at(1000) }, 'duration', /duration is missing/],
      [{ from: '2026-11-22T10:00:00', duration: 3 }, 'from', /ISO 8601 timestamp with a time zone/],
    ] as const) {
      const r = await convert(body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.field, field, JSON.stringify(body));
      assert.match(r.body.error.message, message);
    }
    const whole = await convert({});
    assert.equal(whole.body.error.code, 'recording_not_complete', 'the whole waits until the recording is complete');
    const inside = await convert({ from: at(2_000), duration: 8 });
    assert.equal(inside.status, 200, JSON.stringify(inside.body));
    assert.deepEqual(inside.body, { from: at(2_000), duration: 8, bytes: 0, status: 'PROCESSING', download_url: null });
  });
});
