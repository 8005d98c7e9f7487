import type { ExportEntry, TemporaryRecording, VideoStatus } from '../api/types.js';
import { en } from './en.js';
import { isolate as b } from './isolate.js';

/**
 * Every sentence <recording-clipper> shows, in one typed table (English; the `locale` property replaces any of
 * them, and the element follows `lang` and `dir` as <video-uploader> does). A bad attribute is told in the
 * uploader's words (`invalid`, `expected`), which every language of the package has.
 */
export const clipperEn = {
  invalid: en.invalid,
  expected: en.expected,
  recordingsLabel: 'Recordings of this stream',
  noRecordings: 'No recordings yet. A recording appears a few seconds after the stream starts.',
  status: { live: 'Live', stopped: 'Stopped', complete: 'Complete' } as Record<TemporaryRecording['status'], string>,
  recording: (status: string, start: string, length: string, exports: string) =>
    `${status}: ${start}, ${length} · ${exports}`,
  exportsCount: (n: number) => (n === 1 ? '1 export' : `${n} exports`),
  playerLabel: 'Recording',
  timelineLabel: 'Part to convert',
  start: 'Start',
  end: 'End',
  length: (seconds: number) => `${seconds} s`,
  lengthLabel: 'Length',
  liveEdge: 'live edge',
  keysHelp:
    'Arrows move a thumb 1 s, Shift+arrows the start one frame, Page Up and Page Down 10 s; I and O set start and end at the playhead.',
  timecodeInvalid: (field: string, text: string) =>
    `${field}: ${b(text)} is not a time code. Use hours:minutes:seconds.milliseconds, such as 00:01:05.250.`,
  preview: 'Preview the part in a loop',
  convert: 'Convert to video',
  convertWhole: 'Convert the whole recording',
  wholeWaits: 'The whole recording can be converted once the stream has ended; a part can be converted now.',
  requested: (length: string, start: string) => `Converting ${length} from ${start}…`,
  entryStatus: { PROCESSING: 'Converting…', EXPORTED: 'Ready', FAILED: 'Failed' } as Record<
    ExportEntry['status'],
    string
  >,
  entry: (start: string, length: string, status: string) => `${start}, ${length}: ${status}`,
  exportsLabel: 'Conversions of this recording',
  failed: (reason: string) => `The conversion failed${reason ? `: ${b(reason)}` : '.'}`,
  refused: (reason: string) => `The video service refused the conversion: ${b(reason)}`,
  resultLabel: 'The new video',
  videosLabel: 'Videos made from this stream',
  noVideos: 'None yet.',
  videoStatus: {
    waiting: 'Waiting for its file',
    processing: 'Processing',
    ready: 'Ready',
    failed: 'Failed',
  } as Record<VideoStatus, string>,
  video: (length: string, status: string) => `${length}, ${status}`,
  /** `made`: when the video was made, which tells apart videos of the same length. */
  play: (length: string, made: string) => `Play the ${length} video made on ${made}`,
  deleted: 'This recording has been deleted (recordings are kept for 3 days), so it can no longer be clipped.',
  unreachable: 'The video service cannot be reached right now; the list will be updated when it can.',
  unplayable: 'This browser cannot play HLS video.',
};

export type ClipperStrings = typeof clipperEn;
/** The tables of states: an override names any of their states, the others keep the language's words. */
type StateTables = 'status' | 'entryStatus' | 'videoStatus';
/** Any of the strings, to replace the language's own (the `locale` property); any state of a table of states. */
export type ClipperStringsOverride = Partial<Omit<ClipperStrings, StateTables>> & {
  [K in StateTables]?: Partial<ClipperStrings[K]>;
};
