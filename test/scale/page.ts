/**
 * The scale suite's page: the element as an integrator's page has it, built for production (test/scale/cluster.test.ts
 * builds and serves it). The test gives it a token and its attributes with `configure`, then picks a file; the
 * element's events are kept in `events`, in order.
 */
import { VideoUploader } from '../../src/index.js';

const el = document.querySelector('video-uploader') as VideoUploader;
// Used, not only imported: a production build takes package.json's `sideEffects` (dist/ only) at its word and would
// drop a bare import of src/ with the element's registration.
if (!(el instanceof VideoUploader)) throw new Error('<video-uploader> is not defined');

const events: { type: string; detail: unknown }[] = [];
for (const type of ['video-created', 'upload-success', 'upload-error', 'video-ready']) {
  el.addEventListener(type, (event) => events.push({ type, detail: (event as CustomEvent).detail }));
}

Object.assign(window, {
  events,
  async configure(token: string, attributes: Record<string, string>) {
    el.tokenProvider = async () => token;
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    await el.updateComplete;
  },
});
