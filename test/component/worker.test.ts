import { expect } from '@open-wc/testing';
import { bytes, nextEvent, pick, uploader } from './helpers.js';

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

  it('ends a multipart upload with upload-error naming the worker, not a silent hang', async () => {
    const el = await uploader({ 'multipart-threshold': '5MB', 'chunk-size': '5MB', 'auto-proceed': '' });
    const failed = nextEvent(el, 'upload-error', () => true, 15_000);
    await pick(el, bytes(6 * 1024 * 1024, 'chunked.mp4'));
    const { detail } = await failed;
    expect(detail.error.message).to.match(/Web Worker/);
    expect(detail.retryable).to.equal(false);
    expect(el.shadowRoot!.querySelector('.uppy-StatusBar')!.textContent).to.match(/failed/i);
  });
});
