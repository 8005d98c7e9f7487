import { sendKeys } from '@web/test-runner-commands';
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/index.js';
import type { VideoUploader } from '../../src/index.js';
import type { TokenProvider } from '../../src/api/token.js';

export interface Env {
  api: string;
  storage: string;
  /** The storage origin on each of its hosts (`--storage-hosts`): chunk links alternate over them. */
  storageOrigins: string[];
  /** A long-lived token of the tests' organization. */
  token: string;
  /** A stream with one stopped recording of 6 s, and a clip token for it (web-test-runner.config.ts). */
  clip: { streamId: string; token: string; recordingId: string };
}

let cached: Promise<Env> | undefined;
export const env = (): Promise<Env> => (cached ??= fetch('/__env').then((r) => r.json() as Promise<Env>));

/** A token provider as an integrator would write one: short-lived tokens from the service's POST /tokens. */
export function shortLivedTokens(longLived: string, api: string): TokenProvider & { calls: string[] } {
  const calls: string[] = [];
  const provider = async () => {
    const res = await fetch(`${api}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${longLived}` } });
    const body = (await res.json()) as { token: string; expiresAt: number };
    calls.push(body.token);
    return body;
  };
  return Object.assign(provider, { calls });
}

let fixtures = 0;

/** A fresh element; its own id keeps Golden Retriever from handing it an earlier test's files. */
export async function uploader(
  attributes: Record<string, string> = {},
  tokenProvider?: TokenProvider,
): Promise<VideoUploader> {
  const { api, token } = await env();
  const el = await fixture<VideoUploader>(
    html`<video-uploader id=${attributes.id ?? `uploader-${++fixtures}`}></video-uploader>`,
  );
  el.tokenProvider = tokenProvider ?? (async () => token);
  el.setAttribute('base-url', api);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await el.updateComplete;
  // As a person would: wait until the Dashboard takes files (it waits for Golden Retriever's restore).
  await waitUntil(
    () => el.shadowRoot!.querySelector('.uppy-Dashboard:not(.uppy-Dashboard--isDisabled)'),
    'Dashboard enabled',
    { timeout: 6000 },
  );
  return el;
}

/** Adds files as a person does with the file picker: through "Add more" when files are listed, then the Dashboard's <input type=file>. */
export async function pick(el: VideoUploader, ...files: File[]): Promise<void> {
  const root = el.shadowRoot!;
  if (!root.querySelector('.uppy-Dashboard-input')) {
    root.querySelector<HTMLButtonElement>('.uppy-DashboardContent-addMore')!.click();
    await waitUntil(() => root.querySelector('.uppy-Dashboard-input'), 'the Dashboard shows its file input', {
      timeout: 5000,
    });
  }
  const input = root.querySelector<HTMLInputElement>('.uppy-Dashboard-input')!;
  const transfer = new DataTransfer();
  for (const f of files) transfer.items.add(f);
  input.files = transfer.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * Hands each XMLHttpRequest PUT to the storage origin (on any of its hosts, `storageOrigins`) to `onSend` instead of
 * sending it: `onSend` sends it when it calls `send`. Returns what puts XMLHttpRequest back.
 */
export function interceptStoragePuts(
  storageOrigins: string[],
  onSend: (url: URL, body: Blob, send: () => void) => void,
): () => void {
  const { open, send } = XMLHttpRequest.prototype;
  const urls = new WeakMap<XMLHttpRequest, URL>();
  XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, method: string, url: string | URL, ...rest: any[]) {
    const target = new URL(url);
    if (method === 'PUT' && storageOrigins.includes(target.origin)) urls.set(this, target);
    return (open as any).call(this, method, url, ...rest);
  };
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body?: any) {
    const url = urls.get(this);
    if (url) onSend(url, body as Blob, () => send.call(this, body));
    else send.call(this, body);
  };
  return () => Object.assign(XMLHttpRequest.prototype, { open, send });
}

/** Every call the page makes to the service's API, as `METHOD path`, while `body` runs; fetch is itself again after. */
export async function apiCalls(api: string, body: (calls: string[]) => Promise<void>): Promise<void> {
  const calls: string[] = [];
  const { fetch: original } = window;
  window.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(api)) calls.push(`${init?.method ?? 'GET'} ${url.slice(api.length)}`);
    return original(input, init);
  };
  try {
    await body(calls);
  } finally {
    window.fetch = original;
  }
}

/** A file of `size` bytes (not media: enough for upload tests, which never wait for processing). */
export function bytes(size: number, name = 'clip.mp4', type = 'video/mp4'): File {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i += 4096) data[i] = (i / 4096) & 255;
  return new File([data], name, { type, lastModified: Date.now() + Math.random() });
}

export function nextEvent<K extends keyof HTMLElementEventMap>(
  el: HTMLElement,
  name: K,
  accept: (e: HTMLElementEventMap[K]) => boolean = () => true,
  timeoutMs = 25_000,
): Promise<HTMLElementEventMap[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} event within ${timeoutMs} ms`)), timeoutMs);
    const listener = (e: HTMLElementEventMap[K]) => {
      if (!accept(e)) return;
      clearTimeout(timer);
      el.removeEventListener(name, listener);
      resolve(e);
    };
    el.addEventListener(name, listener);
  });
}

export async function video(id: string): Promise<{ upload_method: string; size: number }> {
  const { api, token } = await env();
  return (await fetch(`${api}/videos/${id}`, { headers: { authorization: `Bearer ${token}` } })).json();
}

/** The test stream's part of the service (#9–#11), asked as another page of the integrator's would, with its clip token. */
export async function asClipper(method: string, path: string, body?: unknown) {
  const { api, clip } = await env();
  const res = await fetch(`${api}/live_streams/${clip.streamId}${path}`, {
    method,
    headers: { authorization: `Bearer ${clip.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).to.equal(200);
  return res.json();
}

/**
 * WebKitGTK is driven over classic WebDriver, whose key actions hung (UND_ERR_HEADERS_TIMEOUT, then the session lost)
 * in about one run in four while the page's <video> loaded and seeked HLS; there the keys are dispatched to the focused
 * element as the browser would (keydown, with shiftKey). Chromium and Firefox get real key presses.
 */
const webdriver = /AppleWebKit/.test(navigator.userAgent) && !/Chrome/.test(navigator.userAgent);

/** Focuses `target` and presses each of `keys` (`Shift+ArrowLeft` for a chord), awaiting `settled()` after each. */
export async function pressKeys(target: HTMLElement, keys: string[], settled: () => Promise<unknown>): Promise<void> {
  target.focus();
  for (const key of keys) {
    const [first, second] = key.split('+');
    if (webdriver) {
      const init = { key: second ?? first!, shiftKey: first === 'Shift' && !!second, bubbles: true, composed: true };
      target.dispatchEvent(new KeyboardEvent('keydown', { ...init, cancelable: true }));
      target.dispatchEvent(new KeyboardEvent('keyup', init));
    } else if (!second) await sendKeys({ press: key });
    else {
      await sendKeys({ down: first! });
      await sendKeys({ press: second });
      await sendKeys({ up: first! });
    }
    await settled();
  }
}

/**
 * Whether this browser can re-encode H.264: decode it and encode it with WebCodecs. Chromium and Firefox ESR can;
 * WebKitGTK here cannot (no WebCodecs encoder, no H.264 decoder without gstreamer's libav).
 */
export async function canReencodeH264(): Promise<boolean> {
  if (typeof VideoEncoder === 'undefined' || typeof VideoDecoder === 'undefined') return false;
  const answers = await Promise.all([
    VideoDecoder.isConfigSupported({ codec: 'avc1.64001f', codedWidth: 1280, codedHeight: 720 }),
    VideoEncoder.isConfigSupported({ codec: 'avc1.64001e', width: 640, height: 360 }),
  ]).catch(() => [{ supported: false }]);
  return answers.every((a) => a.supported === true);
}
