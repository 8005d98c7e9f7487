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

/** Every event's name, for code that listens to all of them (the React wrapper, the demo's log). */
export const VIDEO_UPLOADER_EVENTS = [
  'video-created',
  'upload-progress',
  'upload-success',
  'upload-error',
  'video-ready',
  'video-failed',
  'preview-playing',
  'config-error',
] as const satisfies readonly VideoUploaderEventName[];
// Fails to compile when an event is added to the map and not to the list.
const exhaustive: [Exclude<VideoUploaderEventName, (typeof VIDEO_UPLOADER_EVENTS)[number]>] extends [never]
  ? true
  : false = true;
void exhaustive;

declare global {
  interface HTMLElementEventMap {
    'video-created': CustomEvent<VideoUploaderEventDetails['video-created']>;
    'upload-progress': CustomEvent<VideoUploaderEventDetails['upload-progress']>;
    'upload-success': CustomEvent<VideoUploaderEventDetails['upload-success']>;
    'upload-error': CustomEvent<VideoUploaderEventDetails['upload-error']>;
    'video-ready': CustomEvent<VideoUploaderEventDetails['video-ready']>;
    'video-failed': CustomEvent<VideoUploaderEventDetails['video-failed']>;
    'preview-playing': CustomEvent<VideoUploaderEventDetails['preview-playing']>;
    'config-error': CustomEvent<VideoUploaderEventDetails['config-error']>;
  }
}

export type Emit = <K extends VideoUploaderEventName>(name: K, detail: VideoUploaderEventDetails[K]) => void;
