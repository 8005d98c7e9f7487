import { expect } from '@open-wc/testing';
import { canReencodeH264, nextEvent, pick, uploader, video } from './helpers.js';

/**
 * `max-upload-resolution` end to end in each engine, against the real service: a 720p video (10 s, 10 Mbit/s) picked
 * into `<video-uploader max-upload-resolution="360p">`. Where the browser can re-encode it (Chromium, Firefox) the
 * service gets a far smaller video in chunks; where it cannot (WebKitGTK here), shrink-start says why, and the file
 * is sent as it is.
 */
const source = async () =>
  new File([await (await fetch('/__media/h264-aac-720p-10s-12mb.mp4')).blob()], 'phone.mp4', {
    type: 'video/mp4',
    lastModified: Date.now() + Math.random(),
  });

describe('<video-uploader max-upload-resolution>, in this browser', function () {
  this.timeout(180_000);

  it('sends a 720p video shrunk to 360p where the browser can, else as it is, saying why', async () => {
    const file = await source();
    const el = await uploader({ 'max-upload-resolution': '360p', 'auto-proceed': '' });
    const started = nextEvent(el, 'shrink-start', () => true, 90_000);
    const success = nextEvent(el, 'upload-success', () => true, 150_000);
    await pick(el, file);
    const { detail: start } = await started;
    const { detail: done } = await success;
    const sent = await video(done.videoId);
    if (await canReencodeH264()) {
      expect(start).to.deep.include({ choice: '360p', canEncode: true });
      expect(sent.upload_method).to.equal('multipart');
      expect(sent.size, `${sent.size} bytes sent of ${file.size}`).to.be.below(file.size / 4);
    } else {
      expect(start).to.deep.include({ choice: 'original', canEncode: false });
      expect(['no-webcodecs', 'undecodable', 'no-encoder']).to.include(start.reason);
      expect(sent.size).to.equal(file.size);
    }
  });
});
