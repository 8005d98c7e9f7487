/**
 * What a page may style on <video-uploader>: its shadow parts and the custom properties it reads. The class's JSDoc
 * documents each (`@csspart`, `@cssprop`) for the manifest; test/package/manifest.spec.ts fails when the two lists
 * and the packed custom-elements.json differ, so neither can lose one silently.
 */
export const VIDEO_UPLOADER_PARTS = ['base', 'error', 'dashboard', 'previews', 'preview', 'video'] as const;

export const VIDEO_UPLOADER_CSS_PROPERTIES = [
  '--video-uploader-accent',
  '--video-uploader-radius',
  '--video-uploader-text',
  '--video-uploader-border',
  '--video-uploader-error-text',
  '--video-uploader-error-background',
  '--video-uploader-note',
] as const;
