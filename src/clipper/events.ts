import type { ExportEntry, VideoDetails } from '../api/types.js';
import type { VideoUploaderEventDetails } from '../events.js';

/** Detail of each event `<recording-clipper>` fires. All bubble and are composed. */
export interface RecordingClipperEventDetails {
  /** #10 accepted a conversion: the export entry it answered (PROCESSING), and what was asked. */
  'clip-requested': { recordingId: string; from: string; duration: number; entry: ExportEntry };
  /** The conversion is EXPORTED: the new video as #8 shows it. */
  'clip-ready': { recordingId: string; entry: ExportEntry; video: VideoDetails };
  /** The conversion failed; `reason` is the service's. */
  'clip-failed': { recordingId: string; entry: ExportEntry; reason: string };
  /** An attribute or property has a value the element cannot use. */
  'config-error': VideoUploaderEventDetails['config-error'];
}

export type RecordingClipperEventName = keyof RecordingClipperEventDetails;

export const RECORDING_CLIPPER_EVENTS = [
  'clip-requested',
  'clip-ready',
  'clip-failed',
  'config-error',
] as const satisfies readonly RecordingClipperEventName[];

declare global {
  interface HTMLElementEventMap {
    'clip-requested': CustomEvent<RecordingClipperEventDetails['clip-requested']>;
    'clip-ready': CustomEvent<RecordingClipperEventDetails['clip-ready']>;
    'clip-failed': CustomEvent<RecordingClipperEventDetails['clip-failed']>;
  }
}
