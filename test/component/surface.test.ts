import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type { LitElement } from 'lit';
import '../../src/clipper.js';
import type { RecordingClipper } from '../../src/clipper.js';
import { RECORDING_CLIPPER_CSS_PROPERTIES, RECORDING_CLIPPER_PARTS } from '../../src/clipper/surface.js';
import { RecordingClipperTimeline } from '../../src/clipper/timeline.js';
import { VIDEO_UPLOADER_CSS_PROPERTIES, VIDEO_UPLOADER_PARTS } from '../../src/surface.js';
import { asClipper, bytes, env, nextEvent, pick, uploader } from './helpers.js';

/**
 * The lists of src/surface.ts and src/clipper/surface.ts (what the manifest documents, and what the packed manifest is
 * checked against) against what each element really does: every `--video-uploader-…` its styles read, and every part
 * it renders in the states a page sees.
 */

/** The package's custom properties read (`var(--video-uploader-…)`) by the styles of `elements`. */
function customProperties(...elements: (typeof LitElement)[]): string[] {
  const text = elements
    .flatMap((element) => element.elementStyles)
    .map((style) =>
      'cssText' in style ? style.cssText : [...(style as CSSStyleSheet).cssRules].map((r) => r.cssText).join('\n'),
    )
    .join('\n');
  return [...new Set([...text.matchAll(/var\(\s*(--video-uploader-[\w-]+)/g)].map((m) => m[1]!))].sort();
}

/** The parts a page can style in `root`: its elements' `part`s and those a sub-element exports (`exportparts`). */
function parts(root: ShadowRoot): string[] {
  const names = [...root.querySelectorAll('[part]')].flatMap((el) => el.getAttribute('part')!.split(/\s+/));
  const exported = [...root.querySelectorAll('[exportparts]')].flatMap((el) =>
    el
      .getAttribute('exportparts')!
      .split(',')
      .map((p) => p.split(':').at(-1)!.trim()),
  );
  return [...names, ...exported].filter(Boolean);
}

const sorted = (list: readonly string[]) => [...new Set(list)].sort();

describe('the public surface the code lists (src/surface.ts, src/clipper/surface.ts)', () => {
  it('<video-uploader>: every custom property its styles read is listed', () => {
    const element = customElements.get('video-uploader') as typeof LitElement;
    expect(customProperties(element)).to.deep.equal(sorted(VIDEO_UPLOADER_CSS_PROPERTIES));
  });

  it('<recording-clipper>: every custom property its styles and its timeline’s read is listed', () => {
    const element = customElements.get('recording-clipper') as typeof LitElement;
    expect(customProperties(element, RecordingClipperTimeline)).to.deep.equal(sorted(RECORDING_CLIPPER_CSS_PROPERTIES));
  });

  it('<video-uploader>: every part it renders is listed, and each listed is rendered', async () => {
    const seen = new Set<string>();
    // Refused (no base-url): its message.
    const refused = await fixture<LitElement>(html`<video-uploader></video-uploader>`);
    await waitUntil(() => refused.shadowRoot!.querySelector('[part~="error"]'), 'the configuration message');
    parts(refused.shadowRoot!).forEach((p) => seen.add(p));
    // Working, with a file the service cannot process: its list of previews, the file's preview.
    const el = await uploader({ 'auto-proceed': '' });
    parts(el.shadowRoot!).forEach((p) => seen.add(p));
    const failed = nextEvent(el, 'video-failed');
    await pick(el, bytes(50_000, 'garbage.mp4'));
    await failed;
    await el.updateComplete;
    parts(el.shadowRoot!).forEach((p) => seen.add(p));
    expect(
      [...seen].filter((p) => !(VIDEO_UPLOADER_PARTS as readonly string[]).includes(p)),
      'not listed',
    ).to.deep.equal([]);
    // A processed video's player (`video`) needs a video processed: video-uploader.test.ts and the e2e specs play one.
    expect(
      VIDEO_UPLOADER_PARTS.filter((p) => !seen.has(p)),
      'listed, never rendered',
    ).to.deep.equal(['video']);
  });

  it('<recording-clipper>: every part it renders is listed, and each listed is rendered', async function () {
    this.timeout(90_000);
    const { api, clip } = await env();
    const seen = new Set<string>();
    const add = (el: RecordingClipper) => parts(el.shadowRoot!).forEach((p) => seen.add(p));
    // Refused (no stream-id): its message.
    const refused = await fixture<RecordingClipper>(html`<recording-clipper base-url=${api}></recording-clipper>`);
    refused.tokenProvider = async () => clip.token;
    await waitUntil(() => refused.shadowRoot!.querySelector('[part~="error"]'), 'the configuration message');
    add(refused);
    // Working: its recordings, the chosen one's player, timeline, fields and actions, the stream's videos, and the
    // result player once a video's play button is pressed.
    await converted(clip.recordingId);
    const el = await fixture<RecordingClipper>(
      html`<recording-clipper base-url=${api} stream-id=${clip.streamId}></recording-clipper>`,
    );
    el.tokenProvider = async () => clip.token;
    const play = () => el.shadowRoot!.querySelector<HTMLButtonElement>('.videos button.play:enabled');
    await waitUntil(play, 'a video of the stream, ready', { timeout: 60_000 });
    await waitUntil(() => el.shadowRoot!.querySelector('[part~="timeline"]'), 'the recording chosen');
    play()!.click();
    await el.updateComplete;
    add(el);
    expect(
      [...seen].filter((p) => !(RECORDING_CLIPPER_PARTS as readonly string[]).includes(p)),
      'not listed',
    ).to.deep.equal([]);
    expect(
      RECORDING_CLIPPER_PARTS.filter((p) => !seen.has(p)),
      'listed, never rendered',
    ).to.deep.equal([]);
  });
});

/** A video made from the test stream's recording (#10, its first second), once converted. */
async function converted(recordingId: string): Promise<void> {
  const [recording] = await asClipper('GET', '/temporary_recordings');
  const entry = await asClipper('POST', `/temporary_recordings/${recordingId}`, {
    from: recording.start_time,
    duration: 1,
  });
  await waitUntil(
    async () => {
      const [r] = await asClipper('GET', '/temporary_recordings');
      return r.export_data.some((e: any) => e.from === entry.from && e.duration === 1 && e.status === 'EXPORTED');
    },
    'the conversion done',
    { timeout: 60_000, interval: 500 },
  );
}
