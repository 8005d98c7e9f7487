import mediaInfoFactory from 'mediainfo.js';
// A library build inlines the WebAssembly as a data: URL in this lazy chunk: a URL to a file beside it would not
// survive every consumer's bundler (see verify.ts for the worker's same story). It loads only when needed.
import wasm from 'mediainfo.js/MediaInfoModule.wasm?url';
import type { MediaFacts } from './media-check.js';

/**
 * A video's length and frame size by MediaInfo (mediainfo.js, WebAssembly), for files the browser cannot decode.
 * It asks for the bytes it needs (the header, the index, a few packets), a slice at a time: a 4 GiB file is never
 * read whole. Null when MediaInfo finds no video in it.
 */
export async function readWithMediaInfo(file: Blob): Promise<MediaFacts | null> {
  const mediainfo = await mediaInfoFactory({ format: 'object', locateFile: () => wasm });
  try {
    const result = await mediainfo.analyzeData(
      () => file.size,
      async (size, offset) => new Uint8Array(await file.slice(offset, offset + size).arrayBuffer()),
    );
    const tracks = result.media?.track ?? [];
    const general = tracks.find((t) => t['@type'] === 'General');
    const video = tracks.find((t) => t['@type'] === 'Video');
    if (!video) return null;
    const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
    const rotated = [90, 270].includes(Math.abs(Number((video as { Rotation?: unknown }).Rotation ?? 0)));
    const width = number((video as { Width?: unknown }).Width);
    const height = number((video as { Height?: unknown }).Height);
    return {
      duration: number(
        (general as { Duration?: unknown } | undefined)?.Duration ?? (video as { Duration?: unknown }).Duration,
      ),
      width: rotated ? height : width,
      height: rotated ? width : height,
    };
  } finally {
    mediainfo.close();
  }
}
