import { frameOf } from '../src/upload/card.js';
import { readMedia } from '../src/upload/media-check.js';

/** The element's own code on the picked file: read its length and frame, or make its card's frame. Milliseconds. */
(window as unknown as Record<string, unknown>).measure = async (what: 'read' | 'frame') => {
  const file = (document.querySelector('#file') as HTMLInputElement).files![0]!;
  const start = performance.now();
  const result = what === 'read' ? await readMedia(file) : await frameOf(file);
  const ms = performance.now() - start;
  if (!result) throw new Error(`${what} failed on ${file.name}`);
  return { ms, result: what === 'read' ? result : { bytes: (result as Blob).size } };
};
(window as unknown as Record<string, unknown>).benchReady = true;
