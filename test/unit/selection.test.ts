import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyStep, moveStart } from '../../src/clipper/selection.js';
import { parseTimecode, timecode } from '../../src/timecode.js';

const bounds = { edge: 30, frame: 1 / 30 };

describe('the clipper’s selection (src/clipper/selection.ts)', () => {
  it('moves the start by keys, keeping the end within whole seconds of it', () => {
    const s = { start: 5, duration: 10 };
    assert.deepEqual(keyStep(s, 'start', 'ArrowRight', false, bounds), { start: 6, duration: 9 });
    assert.deepEqual(keyStep(s, 'start', 'ArrowLeft', false, bounds), { start: 4, duration: 11 });
    // A frame: the end moves by the frame too (the length stays whole seconds).
    assert.deepEqual(keyStep(s, 'start', 'ArrowRight', true, bounds), { start: 5.033333, duration: 10 });
    assert.deepEqual(keyStep(s, 'start', 'PageDown', false, bounds), { start: 0, duration: 15 });
    assert.deepEqual(keyStep(s, 'start', 'End', false, bounds), { start: 14, duration: 1 });
    assert.deepEqual(keyStep(s, 'start', 'Home', false, bounds), { start: 0, duration: 15 });
    assert.equal(keyStep(s, 'start', 'a', false, bounds), undefined);
  });

  it('moves the end in whole seconds, from 1 s after the start to the edge', () => {
    const s = { start: 5, duration: 10 };
    assert.deepEqual(keyStep(s, 'end', 'ArrowUp', true, bounds), { start: 5, duration: 11 });
    assert.deepEqual(keyStep(s, 'end', 'PageUp', false, bounds), { start: 5, duration: 20 });
    assert.deepEqual(keyStep({ start: 5, duration: 20 }, 'end', 'PageUp', false, bounds), { start: 5, duration: 25 });
    assert.deepEqual(keyStep(s, 'end', 'Home', false, bounds), { start: 5, duration: 1 });
    assert.deepEqual(keyStep(s, 'end', 'End', false, { edge: 17.9, frame: 1 / 30 }), { start: 5, duration: 12 });
  });

  it('never lets the end pass the live edge, nor the start come within 1 s of it', () => {
    assert.deepEqual(moveStart({ start: 0, duration: 10 }, 29.5, bounds), { start: 29, duration: 1 });
    assert.deepEqual(moveStart({ start: 0, duration: 10 }, -3, bounds), { start: 0, duration: 10 });
    assert.deepEqual(moveStart({ start: 0, duration: 10 }, 0, { edge: 6.2, frame: 1 / 30 }), { start: 0, duration: 6 });
  });

  it('writes and reads time codes', () => {
    assert.equal(timecode(3725.25), '01:02:05.250');
    assert.equal(timecode(2 + 1 / 30), '00:00:02.033');
    assert.equal(timecode(3.5, { hours: false }), '00:03.500');
    assert.equal(timecode(3725.25, { hours: false }), '62:05.250');
    assert.equal(parseTimecode('01:02:05.250'), 3725.25);
    assert.equal(parseTimecode('2:05.5'), 125.5);
    assert.equal(parseTimecode('90'), 90);
    assert.equal(parseTimecode(' 00:00:01.5 '), 1.5);
    for (const bad of ['', 'soon', '1:75', '1:2:3:4', '00:00:01.2345', '-1', '1,5'])
      assert.equal(parseTimecode(bad), undefined, bad);
  });
});
