import { css } from 'lit';

/**
 * The package's palette, inherited from <video-uploader> (src/theme.ts); system colours where nothing gives one, so
 * the editor stays usable on its own and in forced colours.
 */
export const styles = css`
  :host {
    display: block;
  }
  :host([hidden]) {
    display: none;
  }
  video {
    display: block;
    inline-size: 100%;
    max-block-size: 50vh;
    background: #000;
    border-radius: calc(var(--video-uploader-radius, 8px) / 2);
  }
  .track {
    position: relative;
    block-size: 1.75rem;
    margin: 0.75rem 0.7rem 0.25rem;
    background: var(--video-uploader-border, GrayText);
    border-radius: calc(var(--video-uploader-radius, 8px) / 2);
    touch-action: none;
    cursor: pointer;
  }
  .range {
    position: absolute;
    inset-block: 0;
    background: color-mix(in srgb, var(--video-uploader-accent, Highlight) 45%, transparent);
  }
  .playhead {
    position: absolute;
    inset-block: -0.35rem;
    inline-size: 2px;
    margin-inline-start: -1px;
    background: var(--video-uploader-text, CanvasText);
    pointer-events: none;
  }
  /* 2.5rem high and 1.4rem wide: a thumb a finger can take. */
  .thumb {
    position: absolute;
    inset-block-start: -0.375rem;
    inline-size: 1.4rem;
    block-size: 2.5rem;
    margin-inline-start: -0.7rem;
    box-sizing: border-box;
    background: var(--video-uploader-background, Canvas);
    border: 3px solid var(--video-uploader-accent, Highlight);
    border-radius: 4px;
    cursor: ew-resize;
    touch-action: none;
  }
  .thumb[aria-disabled='true'] {
    opacity: 0.5;
    cursor: default;
  }
  .thumb:focus-visible {
    outline: 2px solid var(--video-uploader-accent, Highlight);
    outline-offset: 2px;
  }
  p {
    margin: 0.35rem 0 0;
  }
  .help {
    font-size: 0.85rem;
    color: var(--video-uploader-note, CanvasText);
  }
`;
