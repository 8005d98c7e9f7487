import { expect, waitUntil } from '@open-wc/testing';
import { apiCalls, bytes, nextEvent, pick, uploader } from './helpers.js';

/**
 * The MD5 worker (fingerprints for resume, verify-chunks) can fail to start: a Content-Security-Policy
 * without `worker-src blob:`, a script that does not load. The upload must then fail with a message,
 * never hang at "Uploading" (issue 15).
 */
describe('<video-uploader> when its worker cannot start', () => {
  const RealWorker = window.Worker;
  before(() => {
    // Every worker the page makes loads a script that does not exist: a real load failure.
    window.Worker = class extends RealWorker {
      constructor(_url: string | URL, options?: WorkerOptions) {
        super('/no-such-worker-script.js', options);
      }
    };
  });
  after(() => {
    window.Worker = RealWorker;
  });

  it('ends a multipart upload with upload-error naming the worker, not a silent hang, and aborts its session', async () => {
    const el = await uploader({ 'multipart-threshold': '5MB', 'chunk-size': '5MB', 'auto-proceed': '' });
    await apiCalls(el.baseUrl!, async (calls) => {
      const failed = nextEvent(el, 'upload-error', () => true, 15_000);
      await pick(el, bytes(6 * 1024 * 1024, 'chunked.mp4'));
      const { detail } = await failed;
      expect(detail.error.message).to.match(/Web Worker/);
      expect(detail.retryable).to.equal(false);
      expect(el.shadowRoot!.querySelector('.uppy-StatusBar')!.textContent).to.match(/failed/i);
      // #3 does not wait for the hash: the session it began is aborted (#7), not left to expire.
      if (calls.some((c) => c.endsWith('/multipart-upload/begin')))
        await waitUntil(() => calls.includes('POST /videos/multipart-upload/abort'), 'the session aborted');
    });
  });
});

describe('<video-uploader> while a file is hashed', () => {
  const RealWorker = window.Worker;
  before(() => {
    // A worker that starts and never answers: the file's fingerprint is still being computed.
    const silent = URL.createObjectURL(new Blob([''], { type: 'text/javascript' }));
    window.Worker = class extends RealWorker {
      constructor(_url: string | URL, options?: WorkerOptions) {
        super(silent, options);
      }
    };
  });
  after(() => {
    window.Worker = RealWorker;
  });

  it('begins the multipart session (#3) without waiting for the fingerprint', async () => {
    const el = await uploader({ 'multipart-threshold': '5MB', 'chunk-size': '5MB', 'auto-proceed': '' });
    await apiCalls(el.baseUrl!, async (calls) => {
      await pick(el, bytes(6 * 1024 * 1024, 'hashing.mp4'));
      await waitUntil(() => calls.some((c) => c.endsWith('/multipart-upload/begin')), '#3 sent', { timeout: 5000 });
    });
    el.remove();
  });
});
