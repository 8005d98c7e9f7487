import { expect } from '@open-wc/testing';
import { BlobSource, BufferSource, EncodedPacketSink, Input, MP4, type EncodedPacket } from 'mediabunny';
import type { CutReply } from './cut.worker.js';
import { canReencodeH264 } from './helpers.js';
import type { ProbeReport } from './media-for-pages.js';

/**
 * The trim without compression (issue 31, src/shrink/cut.ts), run in a worker as the shrink worker runs it, on a
 * source ffmpeg made at test time: 640×360, 30 frames a second, a keyframe every 2 s exactly, B-frames, AAC.
 * ffmpeg then looks at the output as it is and after the service's copy to HLS (media-for-pages.ts), which drops
 * MP4 edit lists: the trap a lossless trim by edit list falls into.
 */
const SOURCE = 'h264-aac-360p-10s-gop2.mp4';
const FRAME = 1 / 30;

async function cut(file: Blob, start: number, end: number): Promise<CutReply> {
  const worker = new Worker(new URL('./cut.worker.ts', import.meta.url), { type: 'module' });
  try {
    const reply = new Promise<CutReply>((resolve, reject) => {
      worker.onmessage = ({ data }) => resolve(data as CutReply);
      worker.onerror = (e) => reject(new Error(`the worker failed: ${e.message}`));
    });
    worker.postMessage({ file, start, end });
    return await reply;
  } finally {
    worker.terminate();
  }
}

const source = async (name = SOURCE) => (await fetch(`/__media/${name}`)).blob();

async function probe(output: Uint8Array, start: number): Promise<ProbeReport> {
  const body = new Blob([output as Uint8Array<ArrayBuffer>]);
  const res = await fetch(`/__media/probe?source=${SOURCE}&start=${start}`, { method: 'POST', body });
  if (!res.ok) throw new Error(`probe: ${res.status}`);
  return (await res.json()) as ProbeReport;
}

/** The video packets of a file in decode order, from the keyframe at `from` seconds (with their bytes). */
async function videoPackets(file: Blob | Uint8Array, from = 0, until = Infinity): Promise<EncodedPacket[]> {
  const input = new Input({
    source: file instanceof Blob ? new BlobSource(file) : new BufferSource(file),
    formats: [MP4],
  });
  const sink = new EncodedPacketSink((await input.getPrimaryVideoTrack())!);
  const packets: EncodedPacket[] = [];
  for await (const packet of sink.packets((await sink.getKeyPacket(from))!)) {
    if (packet.type === 'key' && packet.timestamp >= until) break;
    packets.push(packet);
  }
  return packets;
}

const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
/** A keyframe the cut wrote with parameter sets in front (avc3) still ends with the source's bytes. */
const endsWith = (a: Uint8Array, b: Uint8Array) => a.byteLength >= b.byteLength && same(a.subarray(-b.byteLength), b);

const webkit = /AppleWebKit/.test(navigator.userAgent) && !/Chrome/.test(navigator.userAgent);

describe('a trim without compression (smart cut)', function () {
  this.timeout(120_000);

  it('copies a trim that starts on a keyframe packet for packet: 4.0 → 8.0 s, 120 frames, no encoder', async () => {
    const file = await source();
    const reply = await cut(file, 4, 8);
    if (!('result' in reply)) throw new Error(JSON.stringify(reply));
    expect(reply.result).to.include({ frames: 120, reencodedFrames: 0 });
    expect(reply.result.duration).to.be.closeTo(4, 1e-6);
    // Streamed: every write lands after the last but one, the mdat size patched at the end.
    expect(reply.backwardWrites).to.be.at.most(1);

    const written = await videoPackets(reply.output);
    const original = await videoPackets(file, 4, 8);
    expect(written.length).to.equal(120);
    expect(written.every((p, i) => same(p.data, original[i]!.data))).to.equal(true, 'every packet byte for byte');

    const report = await probe(reply.output, 4);
    expect(report.tag).to.equal('avc1');
    for (const [copy, seen] of Object.entries(report.copies)) {
      expect(seen.frames, copy).to.equal(120);
      expect(seen.duration, copy).to.be.closeTo(4, FRAME);
      expect(seen.problems, copy).to.deep.equal([]);
      expect(seen.likeness[1], copy).to.equal(1);
    }
  });

  it('re-encodes only the frames before the first keyframe of a trim from 3.5 s, and is frame-exact after the service copies it to HLS', async () => {
    const file = await source();
    const reply = await cut(file, 3.5, 8);
    if (!(await canReencodeH264())) {
      expect(webkit, 'only WebKitGTK lacks an H.264 encoder and decoder here').to.equal(true);
      expect(reply).to.have.property('refused').that.has.property('reason', 'codec');
      return;
    }
    if (!('result' in reply)) throw new Error(JSON.stringify(reply));
    // 3.5 s is frame 105; the keyframe at 4.0 s (frame 120) and all after it are copied.
    expect(reply.result).to.include({ frames: 135, reencodedFrames: 15 });
    expect(reply.result.duration).to.be.closeTo(4.5, 1e-6);
    expect(reply.backwardWrites).to.be.at.most(1);

    const copied = (await videoPackets(reply.output)).slice(15);
    const original = await videoPackets(file, 4, 8);
    expect(copied.length).to.equal(120);
    expect(copied[0]!.type).to.equal('key');
    expect(copied.every((p, i) => (p.type === 'key' ? endsWith : same)(p.data, original[i]!.data))).to.equal(
      true,
      'every packet from the keyframe at 4.0 s as in the source',
    );

    const report = await probe(reply.output, 3.5);
    expect(report.tag).to.equal('avc3');
    for (const [copy, seen] of Object.entries(report.copies)) {
      expect(seen.frames, copy).to.equal(135);
      expect(seen.duration, copy).to.be.closeTo(4.5, FRAME);
      expect(seen.problems, copy).to.deep.equal([]);
      // The first frame is the source's at 3.5 s, not its neighbours (nor the keyframe at 2.0 s the HLS copy of an
      // edit-listed trim starts with); it was re-encoded, so alike, not equal.
      const [before, at, after] = seen.likeness as [number, number, number];
      expect(at, `${copy}: ${seen.likeness.join(', ')}`).to.be.above(Math.max(before, after) + 0.05);
    }
  });

  it('re-encodes the last group when the end falls where a kept B-frame needs a later one: 4.0 → 7.3 s, 99 frames', async () => {
    const file = await source();
    const reply = await cut(file, 4, 7.3);
    if (!(await canReencodeH264())) {
      expect(reply).to.have.property('refused').that.has.property('reason', 'codec');
      return;
    }
    if (!('result' in reply)) throw new Error(JSON.stringify(reply));
    // Frames 120 to 218: the group from 4.0 s copied, the one from 6.0 s (frames 180 to 218) encoded again.
    expect(reply.result).to.include({ frames: 99, reencodedFrames: 39 });
    expect(reply.result.duration).to.be.closeTo(3.3, 1e-6);
    const report = await probe(reply.output, 4);
    for (const [copy, seen] of Object.entries(report.copies)) {
      expect(seen.frames, copy).to.equal(99);
      expect(seen.duration, copy).to.be.closeTo(3.3, FRAME);
      expect(seen.problems, copy).to.deep.equal([]);
    }
  });

  it('refuses a trim it would have to re-encode when the browser cannot encode the codec (HEVC), before writing', async () => {
    const reply = await cut(await source('hevc-aac-4s.mkv'), 1, 3);
    expect(reply).to.have.property('refused').that.has.property('reason', 'codec');
    expect(reply).to.have.property('written', 0);
  });
});
