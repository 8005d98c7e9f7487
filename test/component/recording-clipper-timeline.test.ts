import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { resetMouse, sendKeys, sendMouse } from '@web/test-runner-commands';
import '../../src/clipper/timeline.js';
import type { RecordingClipperTimeline, TimelineRequests } from '../../src/clipper/timeline.js';
import type { Tile } from '../../src/clipper/storyboard.js';
import { clipperEn } from '../../src/locale/clipper.js';

/**
 * <recording-clipper>'s timeline on its own: it shows the state it is given and asks for every change by an event,
 * moving nothing itself (the clipper decides, and gives it the new state).
 */
async function timeline(dir: 'ltr' | 'rtl' = 'ltr'): Promise<RecordingClipperTimeline> {
  const el = await fixture<RecordingClipperTimeline>(
    html`<recording-clipper-timeline
      dir=${dir}
      style="width: 400px"
      .edge=${20}
      .frame=${1 / 25}
      .selection=${{ start: 2, duration: 5 }}
      .playhead=${5}
    ></recording-clipper-timeline>`,
  );
  await el.updateComplete;
  return el;
}

const thumb = (el: RecordingClipperTimeline, name: 'Start' | 'End') =>
  el.shadowRoot!.querySelector<HTMLElement>(`[role="slider"][aria-label="${name}"]`)!;
const aria = (el: RecordingClipperTimeline, name: 'Start' | 'End', attribute: string) =>
  thumb(el, name).getAttribute(`aria-${attribute}`);

/** As in recording-clipper.test.ts: WebKitGTK's classic WebDriver gets the keydown the browser would dispatch. */
const webdriver = /AppleWebKit/.test(navigator.userAgent) && !/Chrome/.test(navigator.userAgent);

/** Presses `key` on a thumb; answers the request it made (undefined when none) and whether the key was taken. */
async function press(el: RecordingClipperTimeline, name: 'Start' | 'End', key: string) {
  const requests: TimelineRequests['thumb-request'][] = [];
  let taken = false;
  const onRequest = (e: Event) => requests.push((e as CustomEvent).detail);
  const onKey = (e: KeyboardEvent) => (taken = e.defaultPrevented);
  el.addEventListener('thumb-request', onRequest);
  // Heard after the thumb's own listener: the event has bubbled out of the timeline.
  document.addEventListener('keydown', onKey);
  thumb(el, name).focus();
  const [first, second] = key.split('+');
  if (webdriver) {
    const init = { key: second ?? first!, shiftKey: first === 'Shift' && !!second, bubbles: true, composed: true };
    thumb(el, name).dispatchEvent(new KeyboardEvent('keydown', { ...init, cancelable: true }));
  } else if (!second) await sendKeys({ press: key });
  else {
    await sendKeys({ down: first! });
    await sendKeys({ press: second });
    await sendKeys({ up: first! });
  }
  el.removeEventListener('thumb-request', onRequest);
  document.removeEventListener('keydown', onKey);
  return { request: requests[0], taken, count: requests.length };
}

/** The page point at `ratio` along the track, in its middle height. */
function along(el: RecordingClipperTimeline, ratio: number): [number, number] {
  const track = el.shadowRoot!.querySelector('.track')!.getBoundingClientRect();
  return [Math.round(track.left + ratio * track.width), Math.round(track.top + track.height / 2)];
}

describe('<recording-clipper-timeline>', () => {
  afterEach(() => resetMouse());

  it('shows the part it is given: two named sliders, their bounds, values and time codes', async () => {
    const el = await timeline();
    expect(el.shadowRoot!.querySelector('[role="group"]')!.getAttribute('aria-label')).to.equal('Part to convert');
    expect(aria(el, 'Start', 'valuenow')).to.equal('2');
    expect(aria(el, 'Start', 'valuemin')).to.equal('0');
    expect(aria(el, 'Start', 'valuemax'), '1 s before the end').to.equal('6');
    expect(aria(el, 'Start', 'valuetext')).to.equal('00:00:02.000');
    expect(aria(el, 'End', 'valuenow')).to.equal('7');
    expect(aria(el, 'End', 'valuemin'), '1 s after the start').to.equal('3');
    expect(aria(el, 'End', 'valuemax'), 'the edge').to.equal('20');
    expect(aria(el, 'End', 'disabled')).to.equal('false');
    expect(thumb(el, 'End').tabIndex).to.equal(0);
    expect(thumb(el, 'End').title).to.equal('End 00:00:07.000 (live edge: 00:00:20.000)');
    // Laid out along the track: the part from 10 % to 35 %, the playhead at 25 %.
    const track = el.shadowRoot!.querySelector('.track')!.getBoundingClientRect();
    const x = (selector: string) =>
      (el.shadowRoot!.querySelector(selector)!.getBoundingClientRect().left - track.left) / track.width;
    expect(x('.range')).to.be.closeTo(0.1, 0.01);
    expect(x('.playhead')).to.be.closeTo(0.25, 0.01);
    expect(el.shadowRoot!.querySelectorAll('.tile')).to.have.length(0);
    expect(el.shadowRoot!.querySelector('#keys')!.textContent).to.equal(clipperEn.keysHelp);
  });

  it('shows new state when given it, and the storyboard once it has tiles', async () => {
    const el = await timeline();
    const tiles: Tile[] = [
      { start: 0, end: 10, style: { 'background-color': 'rgb(255, 0, 0)' } },
      { start: 10, end: 20, style: { 'background-color': 'rgb(0, 0, 255)' } },
    ];
    el.selection = { start: 4.04, duration: 3 };
    el.tiles = tiles;
    el.strings = { ...clipperEn, start: 'Begin' };
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[aria-label="Begin"]')!.getAttribute('aria-valuetext')).to.equal(
      '00:00:04.040',
    );
    const shown = [...el.shadowRoot!.querySelectorAll<HTMLElement>('.tile')].map((t) => t.style.backgroundColor);
    expect(shown, 'ten thumbnails, each from the part of the recording it stands for').to.deep.equal([
      ...Array(5).fill('rgb(255, 0, 0)'),
      ...Array(5).fill('rgb(0, 0, 255)'),
    ]);
    el.edge = 0.5;
    await el.updateComplete;
    expect(aria(el, 'End', 'disabled'), 'less than a second recorded').to.equal('true');
    expect(thumb(el, 'End').tabIndex).to.equal(-1);
  });

  it('asks for each key of the slider pattern, and moves nothing itself', async () => {
    const el = await timeline();
    expect((await press(el, 'Start', 'ArrowRight')).request).to.deep.equal({ thumb: 'start', seconds: 3 });
    expect(aria(el, 'Start', 'valuenow'), 'until the clipper says so').to.equal('2');
    expect((await press(el, 'Start', 'Shift+ArrowRight')).request!.seconds, 'one frame').to.be.closeTo(2.04, 1e-6);
    expect((await press(el, 'Start', 'PageDown')).request).to.deep.equal({ thumb: 'start', seconds: 0 });
    expect((await press(el, 'Start', 'End')).request, 'the end less a second').to.deep.equal({
      thumb: 'start',
      seconds: 6,
    });
    expect((await press(el, 'End', 'ArrowLeft')).request).to.deep.equal({ thumb: 'end', seconds: 6 });
    expect((await press(el, 'End', 'Shift+ArrowRight')).request, 'whole seconds').to.deep.equal({
      thumb: 'end',
      seconds: 8,
    });
    expect((await press(el, 'End', 'PageUp')).request).to.deep.equal({ thumb: 'end', seconds: 17 });
    expect((await press(el, 'End', 'End')).request, 'the edge').to.deep.equal({ thumb: 'end', seconds: 20 });
    expect((await press(el, 'End', 'Home')).request, '1 s after the start').to.deep.equal({ thumb: 'end', seconds: 3 });
    const other = await press(el, 'Start', 'i');
    expect(other.count, 'I is the clipper’s').to.equal(0);
    expect(other.taken, 'and left to it').to.equal(false);
  });

  it('right to left, the left and right arrows go the way the track is laid out', async () => {
    const el = await timeline('rtl');
    expect((await press(el, 'Start', 'ArrowLeft')).request, 'left is later').to.deep.equal({
      thumb: 'start',
      seconds: 3,
    });
    expect((await press(el, 'Start', 'ArrowRight')).request, 'right is earlier').to.deep.equal({
      thumb: 'start',
      seconds: 1,
    });
    expect((await press(el, 'End', 'ArrowUp')).request, 'up is later whatever the direction').to.deep.equal({
      thumb: 'end',
      seconds: 8,
    });
  });

  for (const dir of ['ltr', 'rtl'] as const) {
    it(`asks for a thumb where it is dragged, the start onto a frame (${dir})`, async () => {
      const el = await timeline(dir);
      const requests: TimelineRequests['thumb-request'][] = [];
      el.addEventListener('thumb-request', (e) => requests.push((e as CustomEvent).detail));
      const rect = thumb(el, 'Start').getBoundingClientRect();
      await sendMouse({ type: 'move', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + 4)] });
      await sendMouse({ type: 'down' });
      await sendMouse({ type: 'move', position: along(el, 0.3) });
      await sendMouse({ type: 'up' });
      expect(requests.length, 'a request as it moves').to.be.greaterThan(0);
      const { thumb: which, seconds } = requests.at(-1)!;
      expect(which).to.equal('start');
      // 30 % along the track: 6 s from the start of a left-to-right track, 14 s in a right-to-left one (±1 px).
      expect(seconds).to.be.closeTo(dir === 'ltr' ? 6 : 14, 0.1);
      expect(Math.abs(seconds * 25 - Math.round(seconds * 25)), 'a whole frame').to.be.below(1e-6);
      expect(el.shadowRoot!.activeElement, 'the dragged thumb has the focus').to.equal(thumb(el, 'Start'));
    });
  }

  it('lays itself out again when its dir alone changes', async () => {
    const el = await timeline();
    el.setAttribute('dir', 'rtl');
    await el.updateComplete;
    // The start at 2 s of 20: 10 % from the track's right end now.
    const track = el.shadowRoot!.querySelector('.track')!.getBoundingClientRect();
    const start = thumb(el, 'Start').getBoundingClientRect();
    expect((track.right - (start.left + start.width / 2)) / track.width).to.be.closeTo(0.1, 0.01);
  });

  it('ends a drag when the browser cancels the pointer', async () => {
    const el = await timeline();
    const requests: TimelineRequests['thumb-request'][] = [];
    el.addEventListener('thumb-request', (e) => requests.push((e as CustomEvent).detail));
    const rect = thumb(el, 'Start').getBoundingClientRect();
    await sendMouse({ type: 'move', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + 4)] });
    await sendMouse({ type: 'down' });
    // As a browser does when a touch becomes the page's scroll, or a pen leaves the screen.
    thumb(el, 'Start').dispatchEvent(new PointerEvent('pointercancel', { bubbles: true, composed: true }));
    await sendMouse({ type: 'move', position: along(el, 0.6) });
    await sendMouse({ type: 'up' });
    expect(requests, 'no move asked once cancelled').to.deep.equal([]);
  });

  it('asks for the playhead where the track is clicked', async () => {
    const el = await timeline();
    const asked = oneEvent(el, 'seek-request');
    await sendMouse({ type: 'click', position: along(el, 0.75) });
    expect((await asked).detail.seconds).to.be.closeTo(15, 0.1);
  });
});
