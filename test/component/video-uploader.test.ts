import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import type { VideoUploader } from '../../src/index.js';
import { isolated } from '../helpers/bidi.js';
import { bytes, env, interceptStoragePuts, nextEvent, pick, shortLivedTokens, uploader, video } from './helpers.js';

const MiB = 1024 ** 2;

describe('<video-uploader>', () => {
  it('renders the Uppy Dashboard inline in its shadow root, with Uppy CSS adopted there', async () => {
    const el = await uploader();
    const dashboard = el.shadowRoot!.querySelector('.uppy-Dashboard');
    expect(dashboard, 'dashboard').not.to.equal(null);
    expect(
      Boolean(
        dashboard!.classList.contains('uppy-Dashboard--isInnerWrapVisible') ||
        dashboard!.querySelector('.uppy-Dashboard-inner'),
      ),
    ).to.equal(true);
    const inner = el.shadowRoot!.querySelector<HTMLElement>('.uppy-Dashboard-inner')!;
    expect(getComputedStyle(inner).position, 'Uppy CSS applies inside the shadow root').to.equal('relative');
    expect(document.querySelector('.uppy-Dashboard'), 'nothing leaks into the page').to.equal(null);
  });

  it('is accessible', async () => {
    const el = await uploader();
    await expect(el).to.be.accessible();
  });

  it('has a dark theme, and one that follows the system, each accessible, contrast included', async () => {
    const dashboardTheme = (el: VideoUploader) =>
      el.shadowRoot!.querySelector('.uppy-Dashboard')!.getAttribute('data-uppy-theme');
    const el = await uploader({ theme: 'dark' });
    expect(dashboardTheme(el)).to.equal('dark');
    const background = () => getComputedStyle(el.shadowRoot!.querySelector('.uppy-Dashboard-inner')!).backgroundColor;
    const dark = background();
    await expect(el).to.be.accessible();
    el.theme = 'light';
    await el.updateComplete;
    expect(dashboardTheme(el)).to.equal('light');
    expect(background(), "Uppy's dark rules are in the build").not.to.equal(dark);
    expect(el.getAttribute('theme'), 'reflected, for the CSS').to.equal('light');
    // Chromium emulates a dark system; Firefox over BiDi cannot, so its session is launched preferring dark.
    await emulateMedia({ colorScheme: 'dark' }).catch(() => undefined);
    expect(matchMedia('(prefers-color-scheme: dark)').matches, 'the system prefers dark').to.equal(true);
    try {
      const auto = await uploader({ theme: 'auto' });
      await waitUntil(() => dashboardTheme(auto) === 'dark', 'auto follows prefers-color-scheme');
      expect(getComputedStyle(auto).getPropertyValue('--video-uploader-text').trim()).to.equal('#e8e8e8');
      await expect(auto).to.be.accessible();
    } finally {
      await emulateMedia({ colorScheme: 'light' }).catch(() => undefined);
    }
  });

  it('names a theme it does not have', async () => {
    const el = await uploader();
    const event = nextEvent(el, 'config-error');
    el.setAttribute('theme', 'blue');
    const { detail } = await event;
    expect(detail.message).to.contain('theme="blue"');
  });

  it('reads counts as numbers, and names the text of one that is not', async () => {
    const el = await uploader({ 'parallel-uploads': '3', 'max-files': '2' });
    expect(el.parallelUploads).to.equal(3);
    expect(el.maxFiles).to.equal(2);
    const event = nextEvent(el, 'config-error');
    el.setAttribute('parallel-uploads', 'four');
    const { detail } = await event;
    expect(detail.value).to.equal('four');
    expect(detail.message).to.contain('parallel-uploads="four"');
  });

  it('resolves its options, and reconfigures Uppy, only when a configuration property changes', async () => {
    const el = await uploader();
    // The controller is private; counting its configure() calls is the only way to see a reconfiguration.
    const controller = (el as unknown as { uploads: { configure: (...args: unknown[]) => void } }).uploads;
    const configure = controller.configure.bind(controller);
    let calls = 0;
    controller.configure = (...args) => (calls++, configure(...args));
    el.requestUpdate();
    await el.updateComplete;
    expect(calls, 'a render that changes no option').to.equal(0);
    el.setAttribute('chunk-size', '16MB');
    await el.updateComplete;
    expect(calls).to.equal(1);
  });

  it('shows a message naming a bad attribute and its value, and fires config-error', async () => {
    const el = await uploader();
    const event = nextEvent(el, 'config-error');
    el.setAttribute('chunk-size', 'lots');
    const { detail } = await event;
    expect(detail.attribute).to.equal('chunk-size');
    expect(detail.value).to.equal('lots');
    await el.updateComplete;
    const alert = el.shadowRoot!.querySelector('[role=alert]')!;
    expect(alert.textContent).to.contain('chunk-size="lots"');
    el.setAttribute('chunk-size', '8MB');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[role=alert]')).to.equal(null);
  });

  it('goes back to the default when a number attribute is removed, instead of refusing "null"', async () => {
    const el = await uploader({ 'parallel-uploads': '2', 'max-files': '3' });
    el.removeAttribute('parallel-uploads');
    el.removeAttribute('max-files');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[role=alert]')?.textContent ?? '').to.equal('');
  });

  it('says so when base-url is missing or malformed', async () => {
    const el = await fixture<VideoUploader>(html`<video-uploader token-url="/token"></video-uploader>`);
    expect(el.shadowRoot!.querySelector('[role=alert]')!.textContent).to.contain('base-url');
    const event = nextEvent(el, 'config-error');
    el.setAttribute('base-url', 'not a url://');
    expect((await event).detail.message).to.contain('base-url="not a url://"');
  });

  it('sends a file under multipart-threshold by the signed link, and one at it in chunks', async () => {
    const el = await uploader({
      'multipart-threshold': '6MB',
      'chunk-size': '5MB',
      'auto-proceed': '',
      'no-preview': '',
    });
    const under = bytes(6 * MiB - 1, 'under.mp4');
    const at = bytes(6 * MiB, 'at.mp4');
    const done = (name: string) => nextEvent(el, 'upload-success', (e) => e.detail.file.name === name);
    const [first, second] = [done('under.mp4'), done('at.mp4')];
    await pick(el, under, at);
    expect((await video((await first).detail.videoId)).upload_method).to.equal('single');
    const chunked = await video((await second).detail.videoId);
    expect(chunked.upload_method).to.equal('multipart');
    expect(chunked.size).to.equal(6 * MiB);
  });

  it('applies a changed attribute to the next file added', async () => {
    const el = await uploader({
      'multipart-threshold': '5GB',
      'chunk-size': '5MB',
      'auto-proceed': '',
      'no-preview': '',
    });
    const first = nextEvent(el, 'upload-success', (e) => e.detail.file.name === 'first.mp4');
    await pick(el, bytes(11 * MiB, 'first.mp4'));
    expect((await video((await first).detail.videoId)).upload_method).to.equal('single');
    el.setAttribute('multipart-threshold', '10MB');
    const second = nextEvent(el, 'upload-success', (e) => e.detail.file.name === 'second.mp4');
    await pick(el, bytes(11 * MiB, 'second.mp4'));
    expect((await video((await second).detail.videoId)).upload_method).to.equal('multipart');
  });

  it('sends six chunks at a time with its defaults, no more than max-parallel-uploads, and as many as parallel-uploads says', async () => {
    const { storageOrigins } = await env();
    // Chunk PUTs wait here until released, so every one the element starts at once is counted. Held, they send
    // nothing, so the adaptive level has no rate to move on (test/e2e/connections.spec.ts has the rest).
    let held: (() => void)[] | undefined;
    const restore = interceptStoragePuts(storageOrigins, (_url, _body, send) => (held ? held.push(send) : send()));
    try {
      for (const [attributes, parallel] of [
        [{}, 6],
        [{ 'max-parallel-uploads': '4' }, 4],
        [{ 'parallel-uploads': '2' }, 2],
      ] as const) {
        held = [];
        const el = await uploader({
          'multipart-threshold': '1MB',
          'auto-proceed': '',
          'no-preview': '',
          ...attributes,
        });
        const uploaded = nextEvent(el, 'upload-success');
        // 40 MiB: 7 or 8 chunks whichever the parallelism (chunk sizes follow it).
        await pick(el, bytes(40 * MiB, `parallel-${parallel}.mp4`));
        await waitUntil(() => held!.length >= parallel, `${parallel} chunk PUTs started`, { timeout: 10_000 });
        await new Promise((r) => setTimeout(r, 500));
        expect(held.length, `chunk PUTs started at once with ${JSON.stringify(attributes)}`).to.equal(parallel);
        const waiting = held;
        held = undefined;
        waiting.forEach((go) => go());
        expect((await video((await uploaded).detail.videoId)).size).to.equal(40 * MiB);
      }
    } finally {
      restore();
    }
  });

  it('cuts chunks that shrink with what is left when chunk-size is not set, the progress and the video adding up to the file', async () => {
    const { storageOrigins } = await env();
    // Each chunk PUT's body size by its chunk (the URL's last segment).
    const sent = new Map<number, number>();
    const restore = interceptStoragePuts(storageOrigins, (url, body, send) => {
      sent.set(Number(url.pathname.split('/').pop()), body.size);
      send();
    });
    try {
      // Planned for two connections: fixed, or (adapting) the most a file may reach.
      for (const attributes of [{ 'parallel-uploads': '2' }, { 'max-parallel-uploads': '2' }] as Record<
        string,
        string
      >[]) {
        sent.clear();
        const el = await uploader({
          'multipart-threshold': '1MB',
          ...attributes,
          'auto-proceed': '',
          'no-preview': '',
        });
        let bytesSent = 0;
        el.addEventListener('upload-progress', (e) => (bytesSent = e.detail.bytesSent));
        const uploaded = nextEvent(el, 'upload-success');
        // 30 MiB over two connections: 8, 6, 5, 5, 5 and 1 MiB (@uppy/aws-s3 alone, or planned for six: 6 × 5 MiB).
        await pick(el, bytes(30 * MiB, 'shrinking.mp4'));
        const { videoId } = (await uploaded).detail;
        const what = JSON.stringify(attributes);
        expect(
          [...sent.keys()].sort((a, b) => a - b),
          what,
        ).to.deep.equal([1, 2, 3, 4, 5, 6]);
        expect(
          [1, 2, 3, 4, 5, 6].map((id) => sent.get(id)! / MiB),
          what,
        ).to.deep.equal([8, 6, 5, 5, 5, 1]);
        expect(bytesSent, 'progress adds up to the file').to.equal(30 * MiB);
        expect((await video(videoId)).size).to.equal(30 * MiB);
        el.remove();
      }
    } finally {
      restore();
    }
  });

  it('reports the progress of its chunk PUTs together, at most every 100 ms and as each ends, up to the whole file', async () => {
    const el = await uploader({
      'multipart-threshold': '1MB',
      'chunk-size': '5MB',
      'auto-proceed': '',
      'no-preview': '',
    });
    const times: number[] = [];
    let sent = 0;
    el.addEventListener('upload-progress', (e) => {
      times.push(performance.now());
      sent = e.detail.bytesSent;
    });
    const uploaded = nextEvent(el, 'upload-success');
    // 26 chunks, six at a time. Alone, each PUT reports as it starts, as it ends and in between as often as the
    // browser fires (Chromium and Firefox about every 50 ms, WebKit thousands of times in one upload).
    await pick(el, bytes(128 * MiB, 'progress.mp4'));
    await uploaded;
    // Reports handed on in one task arrive within a few milliseconds of each other: one redraw each.
    const bursts = times.filter((t, i) => i === 0 || t - times[i - 1]! > 3).length;
    const span = times.at(-1)! - times[0]!;
    const what = `${times.length} reports in ${bursts} bursts over ${span.toFixed(0)} ms`;
    // One burst per 100 ms, with a report for each PUT under way, and one as each of the 26 ends.
    const flushes = Math.ceil(span / 100) + 1;
    expect(bursts, what).to.be.at.most(flushes + 26);
    expect(times.length, what).to.be.at.most(6 * flushes + 26);
    expect(sent).to.equal(128 * MiB);
  });

  it('fires video-created, upload-progress and upload-success in order, bubbling and composed', async () => {
    const el = await uploader({ 'auto-proceed': '', 'no-preview': '' });
    const seen: string[] = [];
    for (const name of ['video-created', 'upload-progress', 'upload-success'] as const) {
      document.addEventListener(name, (e) => {
        expect(e.bubbles && e.composed).to.equal(true);
        if (!seen.includes(name)) seen.push(name);
      });
    }
    const success = nextEvent(el, 'upload-success');
    await pick(el, bytes(300_000, 'events.mp4'));
    const { detail } = await success;
    expect(detail.videoId).to.match(/^[0-9a-f]{24}$/);
    expect(seen).to.deep.equal(['video-created', 'upload-progress', 'upload-success']);
  });

  it('animates nothing while a file uploads, so the page does not redraw 60 times a second for the whole upload', async () => {
    // The upload waits for its token until the test has looked: under way, nothing sent yet. (Not a fault at the
    // service: the three browsers run this file at once against the same service.)
    const { token } = await env();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const el = await uploader({ 'auto-proceed': '', 'no-preview': '' }, async () => (await held, token));
    const done = nextEvent(el, 'upload-success');
    await pick(el, bytes(1 * MiB, 'still.mp4'));
    await waitUntil(() => el.shadowRoot!.querySelector('.uppy-StatusBar.is-uploading'), 'upload under way');
    // The status bar grows into view once, with a transition of its own (0.2 s); then nothing should move.
    await new Promise((r) => setTimeout(r, 1000));
    try {
      const running = el
        .shadowRoot!.getAnimations()
        .filter((a) => a.playState === 'running')
        .map(
          (a) =>
            `${(a.effect as KeyframeEffect).target?.getAttribute('class')}: ${(a as CSSAnimation).animationName ?? (a as CSSTransition).transitionProperty}`,
        );
      expect(running, 'running animations').to.deep.equal([]);
      // Nor does progress ease in: each step would draw frames for the length of its transition. (The file's
      // progress ring is drawn from the first bytes on; one with its classes stands in for it here.)
      const ring = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
      ring.setAttribute('class', 'uppy-Dashboard-Item-progressIcon--progress');
      el.shadowRoot!.querySelector('.uppy-Dashboard-inner')!.append(ring);
      for (const moving of [el.shadowRoot!.querySelector('.uppy-StatusBar-progress')!, ring]) {
        const name = moving.getAttribute('class');
        expect(getComputedStyle(moving).transitionDuration, `${name}: transition`).to.equal('0s');
      }
      ring.remove();
    } finally {
      release();
    }
    await done;
  });

  it('asks the token provider once, reuses the token, and refreshes it once after a 401', async () => {
    const { api, token } = await env();
    const provider = shortLivedTokens(token, api);
    const el = await uploader({ 'auto-proceed': '', 'no-preview': '' }, provider);
    expect(provider.calls.length, 'lazily: not before the first upload').to.equal(0);
    for (const name of ['a.mp4', 'b.mp4']) {
      const done = nextEvent(el, 'upload-success', (e) => e.detail.file.name === name);
      await pick(el, bytes(100_000, name));
      await done;
    }
    expect(provider.calls.length, 'cached across uploads').to.equal(1);
    await fetch('/__test__/expire-token', { method: 'POST', body: JSON.stringify({ token: provider.calls[0] }) });
    const done = nextEvent(el, 'upload-success', (e) => e.detail.file.name === 'c.mp4');
    await pick(el, bytes(100_000, 'c.mp4'));
    await done;
    expect(provider.calls.length, 'refreshed once after the 401').to.equal(2);
  });

  it('never sends the token to the storage, nor keeps it in browser storage', async () => {
    const el = await uploader({
      'auto-proceed': '',
      'no-preview': '',
      'multipart-threshold': '6MB',
      'chunk-size': '5MB',
    });
    const done = nextEvent(el, 'upload-success');
    await pick(el, bytes(12 * MiB, 'secret.mp4'));
    await done;
    const { requests } = (await (await fetch('/__test__/storage-requests')).json()) as {
      requests: { method: string; authorization: boolean }[];
    };
    const puts = requests.filter((r) => r.method === 'PUT');
    expect(puts.length).to.be.at.least(3);
    expect(requests.filter((r) => r.authorization)).to.deep.equal([]);
    const { token } = await env();
    const stored = JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage });
    expect(stored).not.to.contain(token);
    expect(stored).not.to.contain('vst_');
  });

  it("shows the service's reason when a video cannot be processed, and fires video-failed", async () => {
    const el = await uploader({ 'auto-proceed': '' });
    const failed = nextEvent(el, 'video-failed');
    await pick(el, bytes(50_000, 'garbage.mp4'));
    const { detail } = await failed;
    expect(detail.reason).to.contain('could not be read as video or audio');
    await el.updateComplete;
    const status = el.shadowRoot!.querySelector('.preview[data-state=failed] [role=status]')!.textContent!;
    expect(status).to.contain(`${isolated('garbage.mp4')} could not be processed: ${isolated(detail.reason)}`);
    expect(el.shadowRoot!.querySelector('video'), 'no player for a failed video').to.equal(null);
  });

  it('refuses files over max-file-size and beyond max-files, saying so', async () => {
    const el = await uploader({ 'max-file-size': '1MB', 'max-files': '1' });
    let created = 0;
    el.addEventListener('video-created', () => created++);
    const alert = () => [...el.shadowRoot!.querySelectorAll('[role=alert]')].map((a) => a.textContent).join(' ');
    await pick(el, bytes(MiB + 1, 'big.mp4'));
    await waitUntil(() => /exceeds maximum allowed size of 1 MB/.test(alert()), 'the size refusal is shown');
    await pick(el, bytes(1000, 'one.mp4'), bytes(1000, 'two.mp4'));
    await waitUntil(() => /You can only upload 1 file/.test(alert()), 'the count refusal is shown');
    expect(created).to.equal(0);
  });

  it('accepts files only once an earlier session was restored, so none is lost to the restore', async () => {
    const id = `restored-${Date.now()}`;
    const first = await uploader({ id, 'auto-proceed': '', 'no-preview': '' });
    const done = nextEvent(first, 'upload-success');
    await pick(first, bytes(100_000, 'earlier.mp4'));
    await done;
    // Golden Retriever saves its state, throttled: wait until it names the file.
    await waitUntil(
      () => localStorage.getItem(`uppyState:video-uploader:${id}`)?.includes('earlier.mp4'),
      'Golden Retriever saved',
      { timeout: 5000 },
    );
    first.remove();
    const { api, token } = await env();
    const again = await fixture<VideoUploader>(
      html`<video-uploader id=${id} base-url=${api} auto-proceed no-preview></video-uploader>`,
    );
    again.tokenProvider = async () => token;
    const dashboard = () => again.shadowRoot!.querySelector('.uppy-Dashboard')!;
    expect(dashboard().classList.contains('uppy-Dashboard--isDisabled'), 'disabled while restoring').to.equal(true);
    await waitUntil(() => !dashboard().classList.contains('uppy-Dashboard--isDisabled'), 'enabled once restored', {
      timeout: 6000,
    });
    const later = nextEvent(again, 'upload-success', (e) => e.detail.file.name === 'later.mp4');
    await pick(again, bytes(100_000, 'later.mp4'));
    await later;
  });

  it('refuses a non-video file before upload with a visible reason', async () => {
    const el = await uploader({ 'auto-proceed': '' });
    let created = false;
    el.addEventListener('video-created', () => (created = true));
    await pick(el, new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    await waitUntil(
      () => el.shadowRoot!.querySelector('.uppy-Informer')?.textContent?.includes('Only video files'),
      'the refusal is shown',
    );
    expect(el.shadowRoot!.querySelectorAll('.uppy-Dashboard-Item').length, 'the file was not added').to.equal(0);
    expect(created).to.equal(false);
  });
});
