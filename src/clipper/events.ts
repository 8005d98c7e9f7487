import type { ExportEntry, VideoDetails } from '../api/types.js';
import type { NamesAll, VideoUploaderEventDetails } from '../events.js';

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

/** Every event's name, for code that listens to all of them (the demo's log) and for the manifest's test. */
export const RECORDING_CLIPPER_EVENTS = [
  'clip-requested',
  'clip-ready',
  'clip-failed',
  'config-error',
] as const satisfies readonly RecordingClipperEventName[];
const everyEvent: NamesAll<RecordingClipperEventName, typeof RECORDING_CLIPPER_EVENTS> = true;
void everyEvent;

/**
 * Made from the details, as <video-uploader>'s. `config-error` is in both maps, with one detail type (the
 * uploader's, above): two different ones would be a conflict that `skipLibCheck` hides in lib.dom.d.ts.
 */
type RecordingClipperEventMap = { [K in RecordingClipperEventName]: CustomEvent<RecordingClipperEventDetails[K]> };
declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an augmentation: it only adds the map
  interface HTMLElementEventMap extends RecordingClipperEventMap {}
}
