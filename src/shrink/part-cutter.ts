/** Where Mediabunny's StreamTarget writes: `data` at byte `position` of the output. */
export interface PositionedWrite {
  type: 'write';
  data: Uint8Array;
  position: number;
}

/**
 * Cuts an encoder's output into the chunks of a multipart session (#5) as it is written, holding one chunk at a
 * time (every one but the highest-numbered must be 5 MiB or more, which `chunkSize` is). A fragmented MP4 is written
 * forward only. An MP4 written with `fastStart: false` goes forward except once: at the end the muxer writes the size
 * of its media box back into the first bytes (`patched`). Then chunk 1 is held besides, until the output is whole,
 * and handed over last (the spec's chunks may arrive in any order). A write behind a chunk already handed over is an
 * error, never a silent mix.
 *
 * The stream's `write` waits for `onChunk`: a chunk not yet taken holds the muxer, and through it the encoder (its
 * highWaterMark is 1), so memory stays at about two chunks whatever the length of the video.
 */
export function partCutter(
  chunkSize: number,
  onChunk: (chunkId: number, bytes: Uint8Array) => Promise<void>,
  { patched = true }: { patched?: boolean } = {},
): WritableStream<PositionedWrite> {
  const first = patched ? new Uint8Array(chunkSize) : undefined;
  let open: Uint8Array | undefined;
  let openId = 0;
  let end = 0;

  async function put(data: Uint8Array, position: number): Promise<void> {
    while (data.byteLength) {
      const chunkId = Math.floor(position / chunkSize) + 1;
      const at = position % chunkSize;
      const n = Math.min(data.byteLength, chunkSize - at);
      if (chunkId === 1 && first) first.set(data.subarray(0, n), at);
      else {
        if (chunkId < openId) throw new Error(`A write at byte ${position} lands in chunk ${chunkId}, already sent.`);
        if (chunkId > openId) {
          if (open) await onChunk(openId, open);
          open = new Uint8Array(chunkSize);
          openId = chunkId;
        }
        open!.set(data.subarray(0, n), at);
      }
      end = Math.max(end, position + n);
      data = data.subarray(n);
      position += n;
    }
  }

  return new WritableStream<PositionedWrite>(
    {
      write: (chunk) => put(chunk.data, chunk.position),
      async close() {
        if (open) await onChunk(openId, open.subarray(0, end - (openId - 1) * chunkSize));
        if (first) await onChunk(1, first.subarray(0, Math.min(end, chunkSize)));
      },
    },
    { highWaterMark: 1 },
  );
}
