import { unsafeCSS } from 'lit';

/**
 * The package's palette, shared by <video-uploader> and <recording-clipper>: one set of custom properties, light by
 * default, dark when `theme="dark"`, or `theme="auto"` and the system prefers dark. The dark values keep WCAG AA
 * contrast on Uppy's dark Dashboard (#1f1f1f). A property set on an element overrides both.
 */
const LIGHT = `
  --video-uploader-accent: #1269cf;
  --video-uploader-radius: 8px;
  --video-uploader-text: #333;
  --video-uploader-background: #fff;
  --video-uploader-border: #ddd;
  --video-uploader-error-text: #8a1010;
  --video-uploader-error-background: #fdecec;
  --video-uploader-note: #595959;
`;
const DARK = `
  --video-uploader-accent: #6eb1ff;
  --video-uploader-text: #e8e8e8;
  --video-uploader-background: #1f1f1f;
  --video-uploader-border: #4a4a4a;
  --video-uploader-error-text: #ffb4b4;
  --video-uploader-error-background: #4a1414;
  --video-uploader-note: #c8c8c8;
`;

/** The palette, and what both elements' hosts are: a block in the system font, hidden by `hidden`. */
export const theme = unsafeCSS(
  `:host {${LIGHT} display: block; font-family: system-ui, sans-serif; color: var(--video-uploader-text); }
  :host([hidden]) { display: none; }
  :host([theme='dark']) {${DARK}} @media (prefers-color-scheme: dark) { :host([theme='auto']) {${DARK}} }`,
);
