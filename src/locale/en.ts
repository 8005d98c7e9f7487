import { isolate as b } from './isolate.js';
import type { ShrinkStrings } from './shrink.js';

/** Strings of Uppy's own locale (its keys: @uppy/locales/lib/en_US.js), for the element to word differently. */
export type UppyStrings = Record<string, string | Record<number, string>>;

/**
 * Every sentence the element shows a person, in one typed table. Another language is another table of this
 * shape (its own file here, loaded when a page asks for it: packs.ts). File names go through `b()`.
 */
export const en = {
  dashboardNote: 'Video files: MP4, MOV, MKV, WebM, AVI, MPEG-TS and more.',
  processing: (name: string) => `Processing ${b(name)}…`,
  ready: (name: string) => `${b(name)} is ready.`,
  failed: (name: string, reason?: string) => `${b(name)} could not be processed${reason ? `: ${b(reason)}` : '.'}`,
  stillProcessing: (name: string) => `${b(name)} is still processing. It will be ready later.`,
  previewLabel: (name: string) => `Preview of ${b(name)}`,
  previewUnsupported: 'This browser cannot play HLS video.',
  previewsLabel: 'Uploaded videos',
  emptyFile: (name: string) => `${b(name)} is empty (0 bytes) and was not added.`,
  tooManyChunks: (name: string, chunks: number, gb: number) =>
    `${b(name)} is too large: it would need more than ${chunks.toLocaleString('en')} chunks smaller than ${gb} GB.`,
  sessionExpired: (name: string) =>
    `The upload session of ${b(name)} expired before all of it was sent, so its upload starts again from the beginning.`,
  singleRestarts: (name: string) => `${b(name)} is sent in one piece: resuming starts it again from the beginning.`,
  notSameFile: (name: string) =>
    `${b(name)} is not the file whose upload was interrupted: same name and size, different content. Remove it and add the original.`,
  addAgain: (name: string) =>
    `The upload of ${b(name)} was interrupted. Add the same file again to continue where it stopped.`,
  completedAfterInterruption: (name: string) =>
    `The interrupted upload of ${b(name)} had all its parts: it is now complete.`,
  discardedExpired: (name: string) =>
    `The interrupted upload of ${b(name)} expired before it finished. Add the file again to upload it from the beginning.`,
  linkSource: 'Link',
  linkLabel: 'Address of a video file',
  linkSubmit: 'Import',
  linkRefused: (url: string) =>
    `${b(url)} cannot be imported: give the http(s) address of a video file that is on the internet.`,
  tooLong: (name: string, length: string, limit: string) =>
    `${b(name)} is ${length} long; videos up to ${limit} are accepted.`,
  tooShort: (name: string, length: string, limit: string) =>
    `${b(name)} is ${length} long; videos of at least ${limit} are accepted.`,
  resolutionTooHigh: (name: string, resolution: string, limit: string) =>
    `${b(name)} is ${resolution}; videos up to ${limit} are accepted.`,
  resolutionTooLow: (name: string, resolution: string, limit: string) =>
    `${b(name)} is ${resolution}; videos of at least ${limit} are accepted.`,
  unreadable: (name: string) =>
    `${b(name)} could not be read as a video, so its length and resolution cannot be checked; it was not added.`,
  leaveWhileUploading: 'An upload is still running. Leave the page anyway?',
  /** A bad attribute: `expected` is one of the sentences below. */
  invalid: (attribute: string, value: string, expected: string) => `${attribute}="${value}" is not valid: ${expected}.`,
  expected: {
    sources: 'use a comma-separated list of files, link, camera and screen',
    duration: 'use a length such as 90s, 10m, 1h30m or 01:30:00',
    resolution: 'use a resolution such as 1080p or 3840x2160',
    size: 'use a size such as 100MB, 5GB or a number of bytes',
    positiveSize: 'the size must be more than 0',
    count: (max: number) => `use a whole number from 1 to ${max}`,
    required: 'it is required: the address of the video service',
    url: 'use an absolute http(s) URL, or a path starting with /',
    theme: 'use light, dark or auto',
    chunkTooBig: 'each chunk must be smaller than 5GB',
    accept: 'use a comma-separated list of MIME types (video/*) and extensions (.mkv)',
    streamId: 'it is required: the id of the live stream whose recordings are clipped',
    token: 'set the token-url attribute or the tokenProvider property: the uploader needs an access token',
  },
  /** Why an upload failed, as the person is told it (the `upload-error` event keeps the technical message). */
  errors: {
    network: 'The connection was lost. Check the network, then retry.',
    notAllowed: 'This page is not allowed to upload right now. Reload the page, or sign in again.',
    quota: 'The video quota of this account is used up.',
    tooLarge: 'The file is too large for the video service.',
    expired: 'The upload link expired before the file was sent. Retry to get a new one.',
    integrity: 'The storage kept different bytes than were sent. Retry the upload.',
    unavailable: 'The video service is not available right now. Retry in a moment.',
    notConfigured: 'The uploader is not configured (see the message above).',
    setup: (code: string) =>
      `The uploader and the video service do not work together here (${code}). Tell the site's owner.`,
    other: (code: string) => `The upload failed (${code}).`,
  },
  /** Uppy's own strings that the element words differently (English only: other languages keep their pack's). */
  uppy: {
    youCanOnlyUploadFileTypes: 'Only video files can be uploaded (%{types}).',
  } as UppyStrings,
};

export type Strings = typeof en;

/** The `locale` property: any string of the table, Uppy's included, and of shrinking's (shrink.ts), without the rest. */
export type StringsOverride = Partial<Omit<Strings, 'expected' | 'errors'>> &
  Partial<ShrinkStrings> & {
    expected?: Partial<Strings['expected']>;
    errors?: Partial<Strings['errors']>;
  };
