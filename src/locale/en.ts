/**
 * A file name inside a sentence, bidi-isolated (FSI…PDI, the text form of <bdi>): right-to-left
 * characters in a name cannot reorder the words around it or disguise its extension.
 */
export const isolate = (name: string): string => `\u2068${name}\u2069`;

/** Every string the element shows a person, in one typed table. Another language is another table of this shape. */
export const en = {
  dashboardNote: 'Video files: MP4, MOV, MKV, WebM, AVI, MPEG-TS and more.',
  processing: (name: string) => `Processing ${isolate(name)}…`,
  ready: (name: string) => `${isolate(name)} is ready.`,
  failed: (name: string, reason: string) => `${isolate(name)} could not be processed: ${reason}`,
  stillProcessing: (name: string) => `${isolate(name)} is still processing. It will be ready later.`,
  previewLabel: (name: string) => `Preview of ${isolate(name)}`,
  previewUnsupported: 'This browser cannot play HLS video.',
  previewsLabel: 'Uploaded videos',
  emptyFile: (name: string) => `${isolate(name)} is empty (0 bytes) and was not added.`,
  notVideo: (name: string) => `${isolate(name)} is not a video file. Choose a video (MP4, MOV, MKV, WebM…).`,
  sessionExpired: (name: string) =>
    `The upload session of ${isolate(name)} expired before all of it was sent, so its upload starts again from the beginning.`,
  singleRestarts: (name: string) =>
    `${isolate(name)} is sent in one piece: resuming starts it again from the beginning.`,
  notSameFile: (name: string) =>
    `${isolate(name)} is not the file whose upload was interrupted: same name and size, different content. Remove it and add the original.`,
  addAgain: (name: string) =>
    `The upload of ${isolate(name)} was interrupted. Add the same file again to continue where it stopped.`,
  completedAfterInterruption: (name: string) =>
    `The interrupted upload of ${isolate(name)} had all its parts: it is now complete.`,
  discardedExpired: (name: string) =>
    `The interrupted upload of ${isolate(name)} expired before it finished. Add the file again to upload it from the beginning.`,
  leaveWhileUploading: 'An upload is still running. Leave the page anyway?',
  noToken: 'Set the token-url attribute or the tokenProvider property: the uploader needs an access token.',
  /** Uppy's own strings that the element words differently. */
  uppy: {
    youCanOnlyUploadFileTypes: 'Only video files can be uploaded (%{types}).',
  },
} as const;

export type Locale = typeof en;
