/** What the page and the shrinking worker (shrink.worker.ts) say to each other. */

/** The largest frame sent, side by side whatever the orientation (`max-upload-resolution`). */
export interface Box {
  long: number;
  short: number;
}

/** Why a video is sent as it is. */
export type AsIsReason =
  /** The browser has no WebCodecs (or no encoder in a worker). */
  | 'no-webcodecs'
  /** The file's container or video could not be read. */
  | 'unreadable'
  /** The browser cannot decode the file's video (HEVC in most desktop browsers, say). */
  | 'undecodable'
  /** The browser can encode neither H.264 nor VP9 at the size wanted. */
  | 'no-encoder'
  /** The video already fits the box. */
  | 'fits';

/** The part of the source to keep, in seconds of its timeline (`trim`). */
export interface Trim {
  start: number;
  end: number;
}

/** What the worker read of a video. */
export interface VideoFacts {
  /** Seconds of the source. */
  duration: number;
  /** The source's frames per second, and its size as shown. */
  frameRate: number;
  width: number;
  height: number;
}

/** What the probe learnt of a file and of this device's encoder; `facts` whenever the file could be read. */
export type Probe =
  | { shrinks: false; reason: AsIsReason; message?: string; facts?: VideoFacts }
  | {
      shrinks: true;
      facts: VideoFacts;
      /** The output's frame. */
      outWidth: number;
      outHeight: number;
      videoCodec: 'avc' | 'vp9';
      /** Source frames encoded per second of wall time once the encoder runs, measured on the first seconds. */
      encodeFps: number;
      /** Seconds from the start until the first frame is written: reading the file, starting the codecs. */
      startSeconds: number;
      /** Output bytes per second of video, measured the same way. */
      outBytesPerSecond: number;
    };

export type ToWorker =
  /** With no `box`, only the facts (for a trim). */
  | { type: 'probe'; file: Blob; box: Box | null; seconds: number }
  /** Re-encodes to fit `box` (none: the source's size), keeping `trim` only when given. */
  | { type: 'convert'; file: Blob; box: Box | null; trim?: Trim; chunkSize: number; window: number }
  /** A chunk's PUT ended: the worker may hand over another. */
  | { type: 'sent'; chunkId: number };

export type FromWorker =
  | { type: 'probed'; probe: Probe }
  /** `bytes` is transferred, not copied. */
  | { type: 'chunk'; chunkId: number; bytes: ArrayBuffer }
  /** `fraction` of the source encoded; `written` bytes of output so far. */
  | { type: 'progress'; fraction: number; written: number }
  /** The output is whole: `size` bytes in `chunks` chunks, all handed over. */
  | { type: 'done'; size: number; chunks: number }
  | { type: 'failed'; message: string };
