import { BlobSource, Input, MATROSKA, MP4, QTFF, StreamTarget } from 'mediabunny';
import { cutExact, CutRefused } from '../../src/shrink/cut.js';

/** What the test page gets back from one cut. */
export type CutReply =
  | {
      result: Awaited<ReturnType<typeof cutExact>>;
      output: Uint8Array;
      /** Writes to a position before the end of what was written (the MP4's one patch, at finalize). */
      backwardWrites: number;
    }
  | { refused: { reason: CutRefused['reason']; message: string }; written: number }
  | { error: string };

/**
 * Runs a cut in a worker as the shrink worker does: the file posted in, the output written through a StreamTarget
 * over a WritableStream of positioned writes (here gathered into one buffer for the test to look at).
 */
self.onmessage = async ({ data }: MessageEvent<{ file: Blob; start: number; end: number }>) => {
  let output = new Uint8Array(1 << 20);
  let size = 0;
  let backwardWrites = 0;
  const writes = new WritableStream<{ type: 'write'; data: Uint8Array; position: number }>({
    write({ data: bytes, position }) {
      if (position < size) backwardWrites++;
      while (position + bytes.byteLength > output.byteLength) {
        const grown = new Uint8Array(output.byteLength * 2);
        grown.set(output);
        output = grown;
      }
      output.set(bytes, position);
      size = Math.max(size, position + bytes.byteLength);
    },
  });
  const input = new Input({ source: new BlobSource(data.file), formats: [MP4, QTFF, MATROSKA] });
  let reply: CutReply;
  try {
    const result = await cutExact(input, new StreamTarget(writes), { start: data.start, end: data.end });
    reply = { result, output: output.slice(0, size), backwardWrites };
  } catch (err) {
    reply =
      err instanceof CutRefused
        ? { refused: { reason: err.reason, message: err.message }, written: size }
        : { error: String((err as Error)?.stack ?? err) };
  }
  self.postMessage(reply);
};
