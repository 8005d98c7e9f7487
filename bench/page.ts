/**
 * The benchmark's page: times uploads of one file, by the widget and by raw fetch PUTs. The file is
 * picked through #source (the runner sets it from disk), as a user's file is: a 512 MiB in-memory
 * Blob is more than this Chromium will read back.
 */
import { VideoUploader } from '../src/index.js';

const el = document.querySelector('video-uploader') as VideoUploader;
// Used, not only imported: a production build (bench/link.bench.ts) takes package.json's `sideEffects`, which
// names dist/ only, at its word and would drop a bare import of src/ with the element's registration.
if (!(el instanceof VideoUploader)) throw new Error('<video-uploader> is not defined');
/** #1 then #2 with plain fetch: the signed link a raw baseline uploads to. */
async function signedLink(api: string, token: string): Promise<string> {
  const headers = { authorization: `Bearer ${token}` };
  const video = await (await fetch(`${api}/videos`, { method: 'POST', headers })).json();
  return (await (await fetch(`${api}/videos/${video._id}/uploads`, { method: 'POST', headers })).json()).url;
}

async function raw(api: string, token: string, body: File): Promise<void> {
  const url = await signedLink(api, token);
  const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'video/mp4' } });
  if (res.status !== 200) throw new Error(`raw PUT ${res.status}`);
}

/**
 * Six single links (#1 then #2 for each: a single link names the storage's first host) and a sixth of the file PUT
 * to each, all at once: what Chromium's pool of six connections to one host allows, with no protocol between the
 * bytes. It makes six videos, each processed after its PUT.
 */
async function rawSix(api: string, token: string, body: File): Promise<void> {
  const parts = 6;
  const size = Math.ceil(body.size / parts);
  const urls = await Promise.all(Array.from({ length: parts }, () => signedLink(api, token)));
  await Promise.all(
    urls.map(async (url, i) => {
      const part = body.slice(i * size, (i + 1) * size);
      const res = await fetch(url, { method: 'PUT', body: part, headers: { 'content-type': 'video/mp4' } });
      if (res.status !== 200) throw new Error(`raw PUT ${i + 1} of ${parts}: ${res.status}`);
    }),
  );
}

async function rawXhr(api: string, token: string, body: File): Promise<void> {
  const url = await signedLink(api, token);
  await new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', 'video/mp4');
    xhr.upload.onprogress = () => {};
    xhr.onload = () => (xhr.status === 200 ? resolve() : reject(new Error(`xhr ${xhr.status}`)));
    xhr.onerror = () => reject(new Error('xhr network error'));
    xhr.send(body);
  });
}

/** For the bench's diagnostic rows only: the Dashboard's animations and transitions off, to measure their cost. */
const still = new CSSStyleSheet();
still.replaceSync('*, *::before, *::after { animation: none !important; transition: none !important; }');

async function widget(
  mode: string,
  api: string,
  token: string,
  body: File,
  chunkMiB: number,
  attributes: Record<string, string>,
): Promise<void> {
  el.tokenProvider = async () => token;
  const sheets = el.shadowRoot!.adoptedStyleSheets.filter((sheet) => sheet !== still);
  el.shadowRoot!.adoptedStyleSheets = mode.endsWith(':still') ? [...sheets, still] : sheets;
  el.setAttribute('base-url', api);
  el.setAttribute('multipart-threshold', mode.startsWith('single') ? '5GB' : '1MB');
  // The element's own defaults, unless the run names a chunk size or attributes.
  for (const name of ['chunk-size', 'parallel-uploads', 'max-parallel-uploads', 'verify-chunks'])
    el.removeAttribute(name);
  if (chunkMiB > 0) el.setAttribute('chunk-size', `${chunkMiB}MB`);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  await el.updateComplete;
  const done = new Promise<void>((resolve, reject) => {
    el.addEventListener('upload-success', () => resolve(), { once: true });
    el.addEventListener('upload-error', (e) => reject(e.detail.error), { once: true });
  });
  while (el.shadowRoot!.querySelector('.uppy-Dashboard--isDisabled')) await new Promise((r) => setTimeout(r, 10));
  const input = el.shadowRoot!.querySelector<HTMLInputElement>('.uppy-Dashboard-input');
  const transfer = new DataTransfer();
  transfer.items.add(body);
  input!.files = transfer.files;
  performance.mark('file picked');
  input!.dispatchEvent(new Event('change', { bubbles: true }));
  await done;
}

let runs = 0;
(window as any).bench = async (
  mode: string,
  api: string,
  token: string,
  chunkMiB: number,
  attributes: Record<string, string> = {},
): Promise<number> => {
  const picked = document.querySelector<HTMLInputElement>('#source')!.files![0]!;
  // A new name each run, or Uppy would refuse the same file twice.
  const body = new File([picked], `bench-${Math.random()}.mp4`, { type: 'video/mp4' });
  // A fresh element for each run, with its own id, so Golden Retriever does not hand it the last run's file.
  el.remove();
  el.id = `bench-${++runs}`;
  document.body.append(el);
  await el.updateComplete;
  const start = performance.now();
  performance.mark('bench start');
  if (mode === 'raw') await raw(api, token, body);
  else if (mode === 'raw6') await rawSix(api, token, body);
  else if (mode === 'raw-xhr') await rawXhr(api, token, body);
  else await widget(mode, api, token, body, chunkMiB, attributes);
  return performance.now() - start;
};
(window as any).benchReady = true;
