import { expect } from '@open-wc/testing';
import { bytes, nextEvent, pick, uploader } from './helpers.js';

/**
 * A multipart file's fingerprint (MD5 of its ends, in a Web Worker, for resuming it after a reload) is only
 * needed before the upload starts when the ledger holds an interrupted upload the file may be. Otherwise its
 * video (#1) is created at once and the hash is computed meanwhile: the upload does not wait for the worker to
 * start and hash.
 */
describe('<video-uploader> while its worker hashes', () => {
  const RealWorker = window.Worker;
  let release = () => {};
  before(() => {
    const held = new Promise<void>((resolve) => (release = resolve));
    // Every message to the page's workers waits until the test lets it through.
    window.Worker = class extends RealWorker {
      override postMessage(message: unknown, options?: any): void {
        void held.then(() => super.postMessage(message, options));
      }
    };
  });
  after(() => {
    release();
    window.Worker = RealWorker;
  });

  it('creates the video of a new file before its fingerprint is hashed, and uploads it once hashed', async () => {
    const el = await uploader({ 'multipart-threshold': '5MB', 'chunk-size': '5MB', 'auto-proceed': '' });
    const created = nextEvent(el, 'video-created', () => true, 10_000);
    const uploaded = nextEvent(el, 'upload-success');
    // A name no ledger entry has (other test files share this origin's localStorage).
    await pick(el, bytes(6 * 1024 * 1024, `fresh-${Date.now()}.mp4`));
    // The hash is held: the video is created anyway.
    const { detail } = await created;
    expect(detail.videoId).to.be.a('string');
    release();
    expect((await uploaded).detail.videoId).to.equal(detail.videoId);
  });
});
