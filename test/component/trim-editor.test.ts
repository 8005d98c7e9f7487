import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { resetMouse, sendMouse } from '@web/test-runner-commands';
import { shrinkEn, shrinkStrings } from '../../src/locale/shrink.js';
import '../../src/shrink/trim-editor.js';
import type { TrimRange, VideoTrimEditor } from '../../src/shrink/trim-editor.js';
import { pressKeys } from './helpers.js';

/** 12 s of VP9 at 50 frames a second, made by ffmpeg for the test run (test/helpers/media.ts): a frame is 0.02 s. */
let file: Promise<Blob> | undefined;
const video12s = () => (file ??= fetch('/__media/vp9-50fps-12s.webm').then((r) => r.blob()));
const FRAME = 0.02;

/** The editor on the 12 s file, the part from 3.5 s to 8 s, as the uploader would give it; its video loaded. */
async function editor(dir: 'ltr' | 'rtl' = 'ltr', part: Partial<TrimRange> = { start: 3.5, end: 8 }) {
  const src = await video12s();
  const wrapper = await fixture<HTMLDivElement>(
    html`<div dir=${dir} style="width: 500px">
      <video-trim-editor .src=${src} .duration=${12} frame-rate="50" .start=${part.start ?? 0} .end=${part.end}>
      </video-trim-editor>
    </div>`,
  );
  const el = wrapper.querySelector('video-trim-editor')!;
  await el.updateComplete;
  await waitUntil(() => playerOf(el).readyState >= 1, 'the video loaded', { timeout: 10_000 });
  return el;
}

const playerOf = (el: VideoTrimEditor) => el.shadowRoot!.querySelector('video')!;
const thumb = (el: VideoTrimEditor, name: 'start' | 'end') =>
  el.shadowRoot!.querySelector<HTMLElement>(`[role="slider"].${name}`)!;
const aria = (el: VideoTrimEditor, name: 'start' | 'end', attribute: string) =>
  thumb(el, name).getAttribute(`aria-${attribute}`);
const now = (el: VideoTrimEditor, name: 'start' | 'end') => Number(aria(el, name, 'valuenow'));

/** Presses each of `keys` (`Shift+ArrowLeft` for a chord) on a thumb, and answers the `trim-change` events heard. */
async function press(el: VideoTrimEditor, name: 'start' | 'end', ...keys: string[]): Promise<TrimRange[]> {
  const heard: TrimRange[] = [];
  const listener = (e: CustomEvent<TrimRange>) => heard.push(e.detail);
  el.addEventListener('trim-change', listener);
  await pressKeys(thumb(el, name), keys, () => el.updateComplete);
  el.removeEventListener('trim-change', listener);
  return heard;
}

/** Until the video has ended its seeks and drawn since: the frame asked for is the one shown. */
async function shown(el: VideoTrimEditor): Promise<void> {
  const player = playerOf(el);
  await waitUntil(() => !player.seeking && player.readyState >= 2, 'the frame shown', { timeout: 10_000 });
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
}

/** The page point at `ratio` along the track (from its left edge), in its middle height. */
function along(el: VideoTrimEditor, ratio: number): [number, number] {
  const track = el.shadowRoot!.querySelector('.track')!.getBoundingClientRect();
  return [Math.round(track.left + ratio * track.width), Math.round(track.top + track.height / 2)];
}

/** Where a thumb's middle is along the track, from the track's left edge (0 to 1). */
function placeOf(el: VideoTrimEditor, name: 'start' | 'end'): number {
  const track = el.shadowRoot!.querySelector('.track')!.getBoundingClientRect();
  const rect = thumb(el, name).getBoundingClientRect();
  return (rect.left + rect.width / 2 - track.left) / track.width;
}

const onFrame = (seconds: number) => Math.abs(seconds / FRAME - Math.round(seconds / FRAME)) < 1e-6;

describe('<video-trim-editor>', () => {
  afterEach(() => resetMouse());

  it('renders the video and the part it is given: two named sliders, their bounds, time codes and the length kept', async () => {
    const el = await editor();
    const root = el.shadowRoot!;
    const player = playerOf(el);
    expect(player.src).to.match(/^blob:/);
    expect(player.muted, 'muted').to.equal(true);
    expect(player.hasAttribute('playsinline')).to.equal(true);
    expect(player.autoplay).to.equal(false);
    expect(player.paused).to.equal(true);
    expect(root.querySelector('[role="group"]')!.getAttribute('aria-label')).to.equal('Part of the video to keep');
    expect(aria(el, 'start', 'label')).to.equal('Start of the part to keep');
    expect(aria(el, 'start', 'valuenow')).to.equal('3.5');
    expect(aria(el, 'start', 'valuemin')).to.equal('0');
    expect(aria(el, 'start', 'valuemax'), 'a frame before the end').to.equal('7.98');
    expect(aria(el, 'start', 'valuetext')).to.equal('00:03.500');
    expect(aria(el, 'end', 'label')).to.equal('End of the part to keep');
    expect(aria(el, 'end', 'valuenow')).to.equal('8');
    expect(aria(el, 'end', 'valuemin'), 'a frame after the start').to.equal('3.52');
    expect(aria(el, 'end', 'valuemax'), 'the end of the video').to.equal('12');
    expect(aria(el, 'end', 'valuetext')).to.equal('00:08.000');
    for (const name of ['start', 'end'] as const) {
      expect(thumb(el, name).tabIndex).to.equal(0);
      expect(aria(el, name, 'disabled')).to.equal('false');
      expect(root.getElementById(aria(el, name, 'describedby')!)!.textContent).to.equal(shrinkEn.trimKeys);
    }
    expect(root.querySelector('[part="length"]')!.textContent).to.equal('Keeps 4.5 s of 12 s');
    // Laid out along the track: the start at 3.5 / 12, the end at 8 / 12.
    expect(placeOf(el, 'start')).to.be.closeTo(3.5 / 12, 0.01);
    expect(placeOf(el, 'end')).to.be.closeTo(8 / 12, 0.01);
    expect([el.start, el.end]).to.deep.equal([3.5, 8]);
  });

  it('is accessible', async () => {
    const el = await editor();
    await expect(el).to.be.accessible();
  });

  it('keeps the whole video until given a part, and puts a part given onto frames', async () => {
    const el = await editor('ltr', {});
    expect([now(el, 'start'), now(el, 'end')]).to.deep.equal([0, 12]);
    expect([el.start, el.end]).to.deep.equal([0, 12]);
    el.start = 2.011;
    el.end = 7.487;
    await el.updateComplete;
    expect([el.start, el.end], 'the nearest frames').to.deep.equal([2.02, 7.48]);
    expect(aria(el, 'end', 'valuetext')).to.equal('00:07.480');
  });

  it('moves a thumb by the slider keys: arrows 1 s, Shift+arrows one frame, Page Up and Page Down 10 s, Home and End', async () => {
    const el = await editor();
    await press(el, 'start', 'ArrowRight');
    expect(now(el, 'start')).to.equal(4.5);
    await press(el, 'start', 'Shift+ArrowLeft');
    expect(now(el, 'start'), 'one frame').to.equal(4.48);
    expect(aria(el, 'start', 'valuetext')).to.equal('00:04.480');
    await press(el, 'start', 'ArrowUp');
    expect(now(el, 'start'), 'up is later').to.equal(5.48);
    await press(el, 'start', 'PageDown');
    expect(now(el, 'start'), 'not before the beginning').to.equal(0);
    await press(el, 'start', 'End');
    expect(now(el, 'start'), 'a frame before the end').to.equal(7.98);
    await press(el, 'start', 'Home');
    expect(now(el, 'start')).to.equal(0);
    await press(el, 'end', 'Shift+ArrowRight');
    expect(now(el, 'end'), 'the end to the frame too').to.equal(8.02);
    await press(el, 'end', 'ArrowDown', 'ArrowLeft');
    expect(now(el, 'end')).to.equal(6.02);
    await press(el, 'end', 'PageUp');
    expect(now(el, 'end'), 'not past the end of the video').to.equal(12);
    await press(el, 'end', 'Home');
    expect(now(el, 'end'), 'a frame after the start').to.equal(0.02);
    await press(el, 'end', 'End');
    expect(now(el, 'end')).to.equal(12);
    expect([el.start, el.end], 'the properties follow').to.deep.equal([0, 12]);
  });

  it('never lets the start reach the end: a frame between them at least, whichever moves', async () => {
    const el = await editor();
    await press(el, 'start', 'End', 'ArrowRight', 'Shift+ArrowRight', 'PageUp');
    expect(now(el, 'start')).to.equal(7.98);
    await press(el, 'end', 'Shift+ArrowLeft', 'ArrowLeft', 'Home', 'PageDown');
    expect(now(el, 'end')).to.equal(8);
    expect(aria(el, 'end', 'valuemin')).to.equal('8');
    el.start = 10;
    await el.updateComplete;
    expect(el.start, 'a start given past the end').to.equal(7.98);
  });

  it('shows the frame where the cut lands while a thumb moves: the first kept, then the last kept', async () => {
    const el = await editor();
    const player = playerOf(el);
    await press(el, 'start', 'ArrowRight');
    await shown(el);
    // The middle of the frame at 4.5 s: no rounding can show its neighbour.
    expect(player.currentTime).to.be.closeTo(4.5 + FRAME / 2, 0.005);
    await press(el, 'end', 'ArrowLeft');
    await shown(el);
    expect(player.currentTime, 'the frame before 7 s: the last one kept').to.be.closeTo(7 - FRAME / 2, 0.005);
    expect(player.paused).to.equal(true);
  });

  it('I makes the frame the video shows the first kept, O the last kept', async () => {
    const el = await editor();
    const player = playerOf(el);
    player.currentTime = 2.5 + FRAME / 2;
    await shown(el);
    const started = await press(el, 'start', 'i');
    expect(now(el, 'start')).to.equal(2.5);
    expect(started, 'said once the key is up').to.deep.equal([{ start: 2.5, end: 8 }]);
    player.currentTime = 9.2 + FRAME / 4;
    await shown(el);
    // O from the start thumb as from anywhere in the element: the frame at 9.2 s is the last kept.
    await press(el, 'start', 'o');
    expect(now(el, 'end')).to.equal(9.22);
    expect(aria(el, 'end', 'valuetext')).to.equal('00:09.220');
    // On a layout whose key in I's place types another letter (ш on a Russian one), that key is still I.
    player.currentTime = 1 + FRAME / 2;
    await shown(el);
    thumb(el, 'end').dispatchEvent(
      new KeyboardEvent('keydown', { key: 'ш', code: 'KeyI', bubbles: true, composed: true, cancelable: true }),
    );
    await el.updateComplete;
    expect(now(el, 'start'), 'I by its place').to.equal(1);
  });

  it('right to left, the track runs from the right and the left and right arrows go its way', async () => {
    const el = await editor('rtl');
    const he = shrinkStrings('he', {});
    el.strings = he;
    await el.updateComplete;
    expect(aria(el, 'start', 'label')).to.equal(he.trimStart);
    expect(el.shadowRoot!.querySelector('[part="length"]')!.textContent).to.contain('4.5 s');
    expect(1 - placeOf(el, 'start'), 'the start from the right').to.be.closeTo(3.5 / 12, 0.01);
    expect(1 - placeOf(el, 'end')).to.be.closeTo(8 / 12, 0.01);
    await press(el, 'start', 'ArrowLeft');
    expect(now(el, 'start'), 'left is later').to.equal(4.5);
    await press(el, 'start', 'ArrowRight', 'ArrowRight');
    expect(now(el, 'start'), 'right is earlier').to.equal(2.5);
    await press(el, 'start', 'Shift+ArrowLeft');
    expect(now(el, 'start'), 'a frame later').to.equal(2.52);
    await press(el, 'end', 'ArrowUp');
    expect(now(el, 'end'), 'up is later whatever the direction').to.equal(9);
  });

  for (const dir of ['ltr', 'rtl'] as const) {
    it(`drags a thumb onto the frame under the pointer, and says so once let go (${dir})`, async () => {
      const el = await editor(dir);
      const heard: TrimRange[] = [];
      el.addEventListener('trim-change', (e) => heard.push(e.detail));
      const rect = thumb(el, 'start').getBoundingClientRect();
      await sendMouse({ type: 'move', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + 4)] });
      await sendMouse({ type: 'down' });
      // A quarter of the track from where it begins: its left end, or right to left its right end.
      const from = (ratio: number) => along(el, dir === 'ltr' ? ratio : 1 - ratio);
      await sendMouse({ type: 'move', position: from(0.4) });
      await sendMouse({ type: 'move', position: from(0.25) });
      await el.updateComplete;
      expect(heard, 'nothing said while the pointer is down').to.deep.equal([]);
      await sendMouse({ type: 'up' });
      const start = now(el, 'start');
      expect(start, '3 s of 12 (±1 px)').to.be.closeTo(3, 0.05);
      expect(onFrame(start), 'a whole frame').to.equal(true);
      expect(heard, 'said once, when let go').to.deep.equal([{ start, end: 8 }]);
      expect(el.shadowRoot!.activeElement, 'the dragged thumb has the focus').to.equal(thumb(el, 'start'));
    });
  }

  it('drags the end past the start no further than a frame after it', async () => {
    const el = await editor();
    const rect = thumb(el, 'end').getBoundingClientRect();
    await sendMouse({ type: 'move', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + 4)] });
    await sendMouse({ type: 'down' });
    await sendMouse({ type: 'move', position: along(el, 0.05) });
    await sendMouse({ type: 'up' });
    expect(now(el, 'end')).to.equal(3.52);
    expect(now(el, 'start')).to.equal(3.5);
  });

  it('says nothing for a property set, nor for a key that moves nothing', async () => {
    const el = await editor();
    const heard: TrimRange[] = [];
    el.addEventListener('trim-change', (e) => heard.push(e.detail));
    el.start = 0;
    el.end = 2;
    await el.updateComplete;
    await press(el, 'start', 'Home', 'ArrowLeft', 'a');
    expect(heard).to.deep.equal([]);
    expect(await press(el, 'end', 'Shift+ArrowRight'), 'a frame: said').to.deep.equal([{ start: 0, end: 2.02 }]);
  });

  it('moves the playhead to the frame where the track is clicked', async () => {
    const el = await editor();
    await sendMouse({ type: 'click', position: along(el, 0.75) });
    await shown(el);
    // 9 s along a 12 s track (±1 px): the middle of a frame there.
    const player = playerOf(el);
    expect(player.currentTime).to.be.closeTo(9, 0.05);
    expect(onFrame(player.currentTime - FRAME / 2)).to.equal(true);
    const line = el.shadowRoot!.querySelector('.playhead')!.getBoundingClientRect();
    const track = el.shadowRoot!.querySelector('.track')!.getBoundingClientRect();
    expect((line.left + line.width / 2 - track.left) / track.width).to.be.closeTo(0.75, 0.01);
    expect([now(el, 'start'), now(el, 'end')], 'the part stays').to.deep.equal([3.5, 8]);
  });

  it('revokes the object URL it made when the file changes and when it leaves the page', async () => {
    const el = await editor();
    const first = playerOf(el).src;
    el.src = new Blob([await (await video12s()).arrayBuffer()], { type: 'video/webm' });
    await el.updateComplete;
    const second = playerOf(el).src;
    expect(second)
      .to.match(/^blob:/)
      .and.not.equal(first);
    const readable = (url: string) =>
      fetch(url).then(
        () => true,
        () => false,
      );
    expect(await readable(first), 'the first file’s URL').to.equal(false);
    expect(await readable(second)).to.equal(true);
    el.remove();
    expect(await readable(second), 'once the element is gone').to.equal(false);
  });
});
