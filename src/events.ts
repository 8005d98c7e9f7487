import type { VideoDetails } from './api/types.js';

/** The file an event is about, as the page needs it (the File itself where the browser has it). */
export interface UploadFileInfo {
  /** Uppy's id of the file in this element. */
  id: string;
  name: string;
  size: number;
  type: string;
  data?: Blob;
}

/** Detail of each event `<video-uploader>` fires. All bubble and are composed. */
export interface VideoUploaderEventDetails {
  /** #1 made the video object for a file. */
  'video-created': { videoId: string; file: UploadFileInfo };
  /**
   * A video larger than `max-upload-resolution` starts its upload: `choice` is what is sent (`original`, or the
   * attribute's resolution, e.g. `1080p`), `predicted` the seconds from now until its bytes are all in for each
   * choice the browser could make (measured: this device's encoder on the first seconds of the file, and the link's
   * upload speed), `canEncode` whether the browser could re-encode it, and `reason`, when it could not, why
   * (`no-webcodecs`, `unreadable`, `undecodable`, `no-encoder`; `fits` when it needs no shrinking).
   */
  'shrink-start': {
    file: UploadFileInfo;
    choice: string;
    predicted: Record<string, number>;
    canEncode: boolean;
    reason?: string;
  };
  /** Bytes of a file sent so far. */
  'upload-progress': { file: UploadFileInfo; bytesSent: number; bytesTotal: number };
  /** A file's bytes are all in the service. */
  'upload-success': { file: UploadFileInfo; videoId: string };
  /** A file's upload failed; `retryable` says whether the Retry control can help. */
  'upload-error': { file: UploadFileInfo; error: Error; retryable: boolean };
  /** #8 says the video is ready; it carries the whole video object. */
  'video-ready': { video: VideoDetails };
  /** #8 says processing failed; `reason` is the service's. */
  'video-failed': { video: VideoDetails; reason: string };
  /** The preview started playing. */
  'preview-playing': { videoId: string };
  /** An attribute or property has a value the element cannot use. */
  'config-error': { attribute: string; value: unknown; message: string };
}

export type VideoUploaderEventName = keyof VideoUploaderEventDetails;

/**
 * `true` when `List` names every member of `Union`, else what it leaves out: `const x: NamesAll<U, typeof LIST> =
 * true` fails to compile naming the forgotten member (and `satisfies readonly U[]` refuses a name `U` lacks).
 */
export type NamesAll<Union, List extends readonly unknown[]> = [Exclude<Union, List[number]>] extends [never]
  ? true
  : Exclude<Union, List[number]>;

/**
 * Every event's name, for code that listens to all of them (the React wrapper, the demo's log) and for the test
 * that checks the manifest's `@fires` against it (test/package/manifest.spec.ts).
 */
export const VIDEO_UPLOADER_EVENTS = [
  'video-created',
  'shrink-start',
  'upload-progress',
  'upload-success',
  'upload-error',
  'video-ready',
  'video-failed',
  'preview-playing',
  'config-error',
] as const satisfies readonly VideoUploaderEventName[];
const everyEvent: NamesAll<VideoUploaderEventName, typeof VIDEO_UPLOADER_EVENTS> = true;
void everyEvent;

/** `addEventListener('video-ready', …)` hands over a typed event: made from the details, so the two never differ. */
type VideoUploaderEventMap = { [K in VideoUploaderEventName]: CustomEvent<VideoUploaderEventDetails[K]> };
declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an augmentation: it only adds the map
  interface HTMLElementEventMap extends VideoUploaderEventMap {}
}

export type Emit = <K extends VideoUploaderEventName>(name: K, detail: VideoUploaderEventDetails[K]) => void;
