/** `video-uploader/clipper`: importing it registers <recording-clipper> (and nothing of <video-uploader>). */
export { RecordingClipper } from './clipper/recording-clipper.js';
export type { RecordingClipperEventDetails, RecordingClipperEventName } from './clipper/events.js';
export { RECORDING_CLIPPER_EVENTS } from './clipper/events.js';
export { timecode, parseTimecode } from './timecode.js';
export type { ClipperStrings, ClipperStringsOverride } from './locale/clipper.js';
