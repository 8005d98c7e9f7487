/** Every string the element shows a person, in one typed table. Another language is another table of this shape. */
export const en = {
  dashboardNote: 'Video files: MP4, MOV, MKV, WebM, AVI, MPEG-TS and more.',
  processing: (name: string) => `Processing ${name}…`,
  ready: (name: string) => `${name} is ready.`,
  failed: (name: string, reason: string) => `${name} could not be processed: ${reason}`,
  stillProcessing: (name: string) => `${name} is still processing. It will be ready later.`,
  previewLabel: (name: string) => `Preview of ${name}`,
  previewUnsupported: 'This browser cannot play HLS video.',
  previewsLabel: 'Uploaded videos',
  emptyFile: (name: string) => `${name} is empty (0 bytes) and was not added.`,
  notVideo: (name: string) => `${name} is not a video file. Choose a video (MP4, MOV, MKV, WebM…).`,
  sessionExpired: (name: string) =>
    `The upload session of ${name} expired before all of it was sent, so its upload starts again from the beginning.`,
  singleRestarts: (name: string) => `${name} is sent in one piece: resuming starts it again from the beginning.`,
  noToken: 'Set the token-url attribute or the tokenProvider property: the uploader needs an access token.',
  /** Uppy's own strings that the element words differently. */
  uppy: {
    youCanOnlyUploadFileTypes: 'Only video files can be uploaded (%{types}).',
  },
} as const;

export type Locale = typeof en;
