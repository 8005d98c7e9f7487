import type { Body, Uppy, UppyFile } from '@uppy/core';
import type { VideoMeta } from './aws-s3-options.js';
import { detachedVideo } from './media-check.js';

type File = UppyFile<VideoMeta, Body>;

/**
 * Containers by their first bytes, and the type they are: a file's type is taken from what it is, not from its
 * name (Chromium on Linux types `.ts` as a Qt translation, `text/vnd.trolltech.linguist`, so Uppy drew a text
 * document on an MPEG-TS file's card).
 */
const SIGNATURES: [test: (b: Uint8Array) => boolean, type: string][] = [
  [(b) => b[0] === 0x47 && b[188] === 0x47, 'video/mp2t'],
  [(b) => ascii(b, 4, 4) === 'ftyp' && ascii(b, 8, 2) === 'qt', 'video/quicktime'],
  [(b) => ['ftyp', 'moov', 'mdat', 'free', 'wide'].includes(ascii(b, 4, 4)), 'video/mp4'],
  [
    (b) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3 && ascii(b, 0, 64).includes('webm'),
    'video/webm',
  ],
  [(b) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3, 'video/x-matroska'],
  [(b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'AVI ', 'video/x-msvideo'],
  [(b) => b[0] === 0 && b[1] === 0 && b[2] === 1 && b[3] === 0xba, 'video/mpeg'],
  [(b) => ascii(b, 0, 3) === 'FLV', 'video/x-flv'],
  [(b) => b[0] === 0x30 && b[1] === 0x26 && b[2] === 0xb2 && b[3] === 0x75, 'video/x-ms-wmv'],
  [(b) => b[0] === 0x06 && b[1] === 0x0e && b[2] === 0x2b && b[3] === 0x34, 'application/mxf'],
  [(b) => ascii(b, 0, 4) === 'OggS', 'video/ogg'],
];

const ascii = (b: Uint8Array, start: number, length: number) =>
  String.fromCharCode(...b.subarray(start, start + length));

/** The container's type by its first 192 bytes; undefined when none is known. */
export async function containerType(blob: Blob): Promise<string | undefined> {
  const head = new Uint8Array(await blob.slice(0, 192).arrayBuffer());
  return SIGNATURES.find(([test]) => test(head))?.[1];
}

/** The frame's width on the card (Uppy's Dashboard draws thumbnails at most this wide). */
const FRAME_WIDTH = 240;

/**
 * A frame of the video as a JPEG: about 1 s in, or the first frame of a shorter video. A detached <video> reads
 * only the ranges of the file it needs to show that frame, and decoding runs off the main thread; one canvas draw
 * is all the page does. Undefined when the browser cannot decode the file.
 */
export function frameOf(blob: Blob): Promise<Blob | undefined> {
  return detachedVideo<Blob | undefined>(blob, 'auto', undefined, (video, done) => {
    const draw = () => {
      const canvas = document.createElement('canvas');
      canvas.width = FRAME_WIDTH;
      canvas.height = Math.round((FRAME_WIDTH * video.videoHeight) / video.videoWidth);
      canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
      canvas.toBlob((jpeg) => done(jpeg ?? undefined), 'image/jpeg', 0.8);
    };
    video.onloadedmetadata = () => {
      if (!video.videoWidth) return done(undefined);
      // 1 s in; a video of under 2 s shows its first frame, once it is decoded.
      if (Number.isFinite(video.duration) && video.duration >= 2) {
        video.onseeked = draw;
        video.currentTime = 1;
      } else video.onloadeddata = draw;
    };
  });
}

/**
 * Each added file's card: its type from its container, then a frame of the video when the browser can decode it
 * (else Uppy's video icon, now that the type says video). One file at a time, so that a hundred added files do
 * not start a hundred decoders; the frames' object URLs go with their files. Returns what to call with each
 * added file (this module loads with the first one: uppy-controller.ts).
 */
export function cardDecorator(uppy: Uppy<VideoMeta, Body>, signal: AbortSignal): (file: File) => void {
  const frames = new Map<string, string>();
  let queue = Promise.resolve();
  const decorate = async (file: File) => {
    if (!(file.data instanceof Blob) || signal.aborted) return;
    const type = await containerType(file.data);
    if (type && type !== file.type && uppy.getFile(file.id)) uppy.setFileState(file.id, { type });
    if (file.preview) return;
    const frame = await frameOf(file.data);
    if (!frame || signal.aborted || !uppy.getFile(file.id)) return;
    const url = URL.createObjectURL(frame);
    frames.set(file.id, url);
    uppy.setFileState(file.id, { preview: url });
  };
  const forget = (id: string) => {
    const url = frames.get(id);
    if (url) URL.revokeObjectURL(url);
    frames.delete(id);
  };
  uppy.on('file-removed', (file) => forget(file.id));
  signal.addEventListener('abort', () => [...frames.keys()].forEach(forget), { once: true });
  return (file) => void (queue = queue.then(() => decorate(file)).catch(() => undefined));
}
