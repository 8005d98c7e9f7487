import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markKey, sliderMove, trackKey } from '../../src/range-slider.js';

const key = (k: string, code = '', mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey', boolean>> = {}) => ({
  key: k,
  code,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
});

describe('the two-thumb slider’s keys (src/range-slider.ts), shared by the clipper and the trim editor', () => {
  it('moves a thumb by the WAI-ARIA slider keys: arrows 1 s, Shift+arrows the fine step, pages 10 s, Home and End', () => {
    assert.deepEqual(sliderMove('ArrowRight', false, 0.02), { by: 1 });
    assert.deepEqual(sliderMove('ArrowUp', false, 0.02), { by: 1 });
    assert.deepEqual(sliderMove('ArrowLeft', false, 0.02), { by: -1 });
    assert.deepEqual(sliderMove('ArrowDown', true, 0.02), { by: -0.02 });
    assert.deepEqual(sliderMove('PageUp', true, 0.02), { by: 10 }, 'Shift leaves a page 10 s');
    assert.deepEqual(sliderMove('PageDown', false, 0.02), { by: -10 });
    assert.deepEqual(sliderMove('Home', false, 0.02), { to: 'least' });
    assert.deepEqual(sliderMove('End', true, 0.02), { to: 'most' });
    for (const other of ['Enter', ' ', 'i', 'Tab']) assert.equal(sliderMove(other, false, 0.02), undefined, other);
  });

  it('mirrors left and right on a right-to-left track, and nothing else', () => {
    assert.equal(trackKey('ArrowLeft', true), 'ArrowRight');
    assert.equal(trackKey('ArrowRight', true), 'ArrowLeft');
    assert.equal(trackKey('ArrowUp', true), 'ArrowUp');
    assert.equal(trackKey('Home', true), 'Home');
    assert.equal(trackKey('ArrowLeft', false), 'ArrowLeft');
  });

  it('reads I and O on any layout, and leaves shortcuts with Ctrl, Alt or Meta to the page', () => {
    assert.equal(markKey(key('i', 'KeyI')), 'start');
    assert.equal(markKey(key('O', 'KeyO')), 'end', 'with Shift or Caps Lock');
    assert.equal(markKey(key('ш', 'KeyI')), 'start', 'Russian: the key in I’s place');
    assert.equal(markKey(key('ם', 'KeyO')), 'end', 'Hebrew');
    assert.equal(markKey(key('c', 'KeyI')), undefined, 'Dvorak: C in QWERTY’s I place is C');
    assert.equal(markKey(key('i', 'KeyC')), 'start', 'and its I is I');
    assert.equal(markKey(key('i', 'KeyI', { ctrlKey: true })), undefined);
    assert.equal(markKey(key('o', 'KeyO', { metaKey: true })), undefined);
    assert.equal(markKey(key('i', 'KeyI', { altKey: true })), undefined);
    assert.equal(markKey(key('ArrowLeft', 'ArrowLeft')), undefined);
  });
});
