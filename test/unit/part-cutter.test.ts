import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { BufferSource, Conversion, Input, MP4, Mp4OutputFormat, Output, StreamTarget } from 'mediabunny';
import { partCutter, type PositionedWrite } from '../../src/shrink/part-cutter.js';
import { media } from '../helpers/media.js';

const KiB = 1024;

/**
 * A real MP4 written by Mediabunny (copying a file ffmpeg made: no encoder needed in Node) into `cutter`; returns
 * the file those same writes make. Two runs are not the same file: the MP4 records the second it was written.
 */
async function remux(
  source: Uint8Array,
  cutter: WritableStream<PositionedWrite>,
  fastStart: false | 'fragmented' = false,
): Promise<Buffer> {
  let whole = Buffer.alloc(0);
  const writer = cutter.getWriter();
  const recorded = new WritableStream<PositionedWrite>(
    {
      async write({ data, position }) {
        const end = position + data.byteLength;
        if (end > whole.byteLength) whole = Buffer.concat([whole, Buffer.alloc(end - whole.byteLength)]);
        whole.set(data, position);
        await writer.write({ type: 'write', data, position });
      },
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason),
    },
    { highWaterMark: 1 },
  );
  const input = new Input({ source: new BufferSource(source), formats: [MP4] });
  const output = new Output({ format: new Mp4OutputFormat({ fastStart }), target: new StreamTarget(recorded) });
  const conversion = await Conversion.init({ input, output, showWarnings: false });
  await conversion.execute();
  return whole;
}

describe('partCutter: an MP4 as Mediabunny writes it, cut into chunks as it is written', () => {
  it('hands over chunks 2…N in order, then chunk 1 (patched at the end) last; together they are the whole file', async () => {
    const source = new Uint8Array(await readFile(await media('h264-aac-320p-4s.mp4')));
    const size = 64 * KiB;
    const chunks: [number, Uint8Array][] = [];
    const whole = await remux(
      source,
      partCutter(size, async (id, bytes) => void chunks.push([id, bytes.slice()])),
    );
    const count = Math.ceil(whole.byteLength / size);
    assert.ok(count >= 3, `the file makes several chunks: ${count}`);
    assert.deepEqual(
      chunks.map(([id]) => id),
      [...Array.from({ length: count - 1 }, (_, i) => i + 2), 1],
    );
    assert.ok(
      chunks.slice(0, -2).every(([, bytes]) => bytes.byteLength === size),
      'every chunk but the last is whole',
    );
    const joined = Buffer.concat(chunks.sort(([a], [b]) => a - b).map(([, bytes]) => bytes));
    assert.ok(joined.equals(whole), 'the chunks are the file, byte for byte');
  });

  it('hands a fragmented MP4 (written forward only) over in order, chunk 1 first, as soon as each is full', async () => {
    const source = new Uint8Array(await readFile(await media('h264-aac-320p-4s.mp4')));
    const size = 64 * KiB;
    const chunks: [number, Uint8Array][] = [];
    const cutter = partCutter(size, async (id, bytes) => void chunks.push([id, bytes.slice()]), { patched: false });
    const whole = await remux(source, cutter, 'fragmented');
    const count = Math.ceil(whole.byteLength / size);
    assert.ok(count >= 3, `the file makes several chunks: ${count}`);
    assert.deepEqual(
      chunks.map(([id]) => id),
      Array.from({ length: count }, (_, i) => i + 1),
    );
    const joined = Buffer.concat(chunks.map(([, bytes]) => bytes));
    assert.ok(joined.equals(whole), 'the chunks are the file, byte for byte');
  });

  it('waits for each chunk to be taken before it takes more (the encoder waits with it)', async () => {
    let taking: (() => void) | undefined;
    const taken: number[] = [];
    const stream = partCutter(4, (id) => {
      taken.push(id);
      return new Promise((resolve) => (taking = resolve));
    });
    const writer = stream.getWriter();
    await writer.write({ type: 'write', data: new Uint8Array(8), position: 0 }); // chunks 1 and 2
    const third = writer.write({ type: 'write', data: new Uint8Array(4), position: 8 }); // hands chunk 2 over
    let wrote = false;
    void third.then(() => (wrote = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(taken, [2]);
    assert.equal(wrote, false, 'the write waits while chunk 2 is not taken');
    taking!();
    await third;
  });

  it('refuses a write into a chunk already handed over, rather than send a mix', async () => {
    const writer = partCutter(4, async () => undefined).getWriter();
    await writer.write({ type: 'write', data: new Uint8Array(12), position: 0 });
    await assert.rejects(
      writer.write({ type: 'write', data: new Uint8Array(2), position: 5 }),
      /byte 5 lands in chunk 2, already sent/,
    );
  });
});
