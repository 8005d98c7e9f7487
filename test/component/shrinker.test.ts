import { expect } from '@open-wc/testing';
import { BufferSource, Input, MP4 } from 'mediabunny';
import { Shrinker } from '../../src/shrink/shrinker.js';
import { canReencodeH264 } from './helpers.js';

/**
 * The shrinking worker in each engine: where the browser can decode H.264 and encode it (or VP9), a 720p video is
 * re-encoded to fit 640×360 and comes out whole, a fragmented MP4 in chunks 1 … N; where it cannot (WebKitGTK here: no
 * WebCodecs encoder, no H.264 decoder), the probe says why, and the uploader sends the file as it is.
 */
const source = () => fetch('/__media/h264-aac-720p-10s.mp4').then((r) => r.blob());
const BOX = { long: 640, short: 360 };

describe('the shrinking worker (Mediabunny, WebCodecs)', function () {
  this.timeout(120_000);

  it('probes a 720p video for 640×360: this device encodes it, or the probe says why not', async () => {
    const shrinker = new Shrinker();
    const probe = await shrinker.probe(await source(), BOX).finally(() => shrinker.stop());
    if (await canReencodeH264()) {
      expect(probe.shrinks, JSON.stringify(probe)).to.equal(true);
      if (!probe.shrinks) return;
      expect(probe.facts).to.include({ width: 1280, height: 720 });
      expect(probe.facts.duration).to.be.closeTo(10, 0.1);
      expect(probe.facts.frameRate).to.be.closeTo(30, 0.5);
      expect([probe.outWidth, probe.outHeight]).to.deep.equal([640, 360]);
      expect(probe.encodeFps).to.be.greaterThan(0);
      expect(probe.outBytesPerSecond).to.be.greaterThan(0);
    } else {
      expect(probe.shrinks).to.equal(false);
      if (probe.shrinks) return;
      expect(['no-webcodecs', 'undecodable', 'no-encoder']).to.include(probe.reason);
    }
  });

  it('says a video that already fits needs no shrinking, with its facts', async () => {
    const shrinker = new Shrinker();
    const probe = await shrinker.probe(await source(), { long: 1920, short: 1080 }).finally(() => shrinker.stop());
    expect(probe.shrinks).to.equal(false);
    if (probe.shrinks || !(await canReencodeH264())) return;
    expect(probe.reason).to.equal('fits');
    expect(probe.facts?.duration).to.be.closeTo(10, 0.1);
  });

  it('converts it into chunks handed over in order as they are cut, which together are a whole 640×360 MP4 (or refuses, saying why)', async () => {
    const shrinker = new Shrinker();
    const chunks: [number, Uint8Array][] = [];
    const size = 256 * 1024;
    const converting = shrinker
      .convert(
        await source(),
        { box: BOX, chunkSize: size, window: 2 },
        {
          chunk: (chunkId, bytes) => {
            chunks.push([chunkId, new Uint8Array(bytes)]);
            shrinker.sent(chunkId);
          },
          progress: () => undefined,
        },
      )
      .finally(() => shrinker.stop());
    if (!(await canReencodeH264())) {
      const refusal = await converting.then(
        () => undefined,
        (err: Error) => err,
      );
      expect(refusal?.message).to.match(/no-webcodecs|cannot be decoded|no-encoder/);
      expect(chunks).to.deep.equal([]);
      return;
    }
    const done = await converting;
    expect(chunks.map(([id]) => id)).to.deep.equal(chunks.map((_, i) => i + 1));
    const whole = new Uint8Array(done.size);
    for (const [id, bytes] of chunks) whole.set(bytes, (id - 1) * size);
    const input = new Input({ source: new BufferSource(whole), formats: [MP4] });
    const video = (await input.getPrimaryVideoTrack())!;
    expect([video.displayWidth, video.displayHeight]).to.deep.equal([640, 360]);
    expect(await input.computeDuration()).to.be.closeTo(10, 0.1);
    expect(await input.getPrimaryAudioTrack()).to.not.equal(null);
  });
});
