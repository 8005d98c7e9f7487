import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { en } from '../../src/locale/en.js';
import { OptionError, parseDuration, parseResolution, type MediaLimits } from '../../src/options.js';
import { factsSent, formatDuration, refusal } from '../../src/upload/media-check.js';
import { isolated } from '../helpers/bidi.js';

const none: MediaLimits = { maxDuration: null, minDuration: null, maxResolution: null, minResolution: null };

describe('media restrictions (src/options.ts, src/upload/media-check.ts)', () => {
  it('reads lengths as seconds, in units or as a clock', () => {
    for (const [text, seconds] of [
      ['90s', 90],
      ['90', 90],
      ['10m', 600],
      ['10 min', 600],
      ['1h30m', 5400],
      ['1h 30m 10s', 5410],
      ['1.5h', 5400],
      ['01:30:00', 5400],
      ['1:30', 90],
      ['0:05.5', 5.5],
    ] as const)
      assert.equal(parseDuration('max-duration', text), seconds, text);
    for (const bad of ['soon', '', '0s', '-5s', '1:2:3:4', '5 days'])
      assert.throws(
        () => parseDuration('max-duration', bad),
        (err: OptionError) => err.expected === 'duration' && err.message.startsWith(`max-duration="${bad}"`),
      );
  });

  it('reads resolutions as their longer and shorter side', () => {
    assert.deepEqual(parseResolution('max-resolution', '1080p'), { long: 1920, short: 1080 });
    assert.deepEqual(parseResolution('max-resolution', '720p'), { long: 1280, short: 720 });
    assert.deepEqual(parseResolution('max-resolution', '3840x2160'), { long: 3840, short: 2160 });
    assert.deepEqual(parseResolution('max-resolution', '1080x1920'), { long: 1920, short: 1080 });
    for (const bad of ['hd', '1080', '0x0', '1920*1080'])
      assert.throws(() => parseResolution('max-resolution', bad), /use a resolution such as 1080p or 3840x2160/);
  });

  it('refuses by length and by frame, a portrait video judged as its landscape twin, naming value and limit', () => {
    const facts = { duration: 8, width: 1080, height: 1920 };
    assert.equal(
      refusal('long walk.mp4', facts, { ...none, maxDuration: 5 }, en),
      `${isolated('long walk.mp4')} is 8 s long; videos up to 5 s are accepted.`,
    );
    assert.equal(
      refusal('a.mp4', facts, { ...none, minDuration: 600 }, en),
      `${isolated('a.mp4')} is 8 s long; videos of at least 10 min are accepted.`,
    );
    assert.equal(refusal('a.mp4', facts, { ...none, maxResolution: { long: 1920, short: 1080 } }, en), undefined);
    assert.equal(
      refusal('a.mp4', facts, { ...none, maxResolution: { long: 1280, short: 720 } }, en),
      `${isolated('a.mp4')} is 1080×1920; videos up to 1280×720 are accepted.`,
    );
    assert.equal(
      refusal('a.mp4', facts, { ...none, minResolution: { long: 3840, short: 2160 } }, en),
      `${isolated('a.mp4')} is 1080×1920; videos of at least 3840×2160 are accepted.`,
    );
    assert.equal(refusal('a.mp4', facts, { ...none, maxDuration: 8 }, en), undefined, 'the limit itself passes');
  });

  it('refuses a file it cannot read when a limit needs what it cannot read (the documented rule)', () => {
    const unreadable = (name: string) =>
      `${isolated(name)} could not be read as a video, so its length and resolution cannot be checked; it was not added.`;
    assert.equal(refusal('x.bin', null, { ...none, maxDuration: 5 }, en), unreadable('x.bin'));
    const noLength = { duration: null, width: 640, height: 360 };
    assert.equal(refusal('x.webm', noLength, { ...none, maxDuration: 5 }, en), unreadable('x.webm'));
    assert.equal(refusal('x.webm', noLength, { ...none, maxResolution: { long: 1920, short: 1080 } }, en), undefined);
  });

  it('judges what is sent: a trim takes a longer video at max-duration, max-upload-resolution fits the frame to its box', () => {
    const limits = { ...none, maxDuration: 60, maxResolution: parseResolution('max-resolution', '1080p') };
    const phone = { duration: 600, width: 2160, height: 3840 };
    const t = en;
    assert.match(refusal('a.mov', phone, limits, t)!, /is 10 min long; videos up to 1 min/);
    const sent = factsSent(phone, limits, { trim: true, shrinkTo: parseResolution('max-upload-resolution', '1080p') });
    assert.deepEqual(sent, { duration: 60, width: 1080, height: 1920 });
    assert.equal(refusal('a.mov', sent, limits, t), undefined);
    // Without them, the same video is judged as it is.
    assert.deepEqual(factsSent(phone, limits, { trim: false, shrinkTo: null }), phone);
  });

  it('says lengths as a person reads them', () => {
    assert.deepEqual([8, 7.46, 65, 3600, 5410].map(formatDuration), [
      '8 s',
      '7.5 s',
      '1 min 5 s',
      '1 h',
      '1 h 30 min 10 s',
    ]);
  });
});
