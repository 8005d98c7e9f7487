/**
 * What a page may style on <recording-clipper>: its shadow parts and the custom properties it reads (the package's
 * palette, src/theme.ts). The class's JSDoc documents each for the manifest; test/package/manifest.spec.ts fails
 * when these lists and the packed custom-elements.json differ.
 */
export const RECORDING_CLIPPER_PARTS = [
  'base',
  'error',
  'recordings',
  'video',
  'timeline',
  'thumb',
  'fields',
  'actions',
  'result',
  'videos',
] as const;

export const RECORDING_CLIPPER_CSS_PROPERTIES = [
  '--video-uploader-accent',
  '--video-uploader-radius',
  '--video-uploader-text',
  '--video-uploader-background',
  '--video-uploader-border',
  '--video-uploader-error-text',
  '--video-uploader-error-background',
  '--video-uploader-note',
] as const;
