import { css } from 'lit';

export const styles = css`
  :host {
    display: block;
    margin: 0.75rem 0;
  }
  .strip {
    display: flex;
    height: 2.8rem;
    border-radius: calc(var(--video-uploader-radius) / 2) calc(var(--video-uploader-radius) / 2) 0 0;
    overflow: hidden;
    background: var(--video-uploader-border);
  }
  .tile {
    flex: 1;
    background-repeat: no-repeat;
  }
  .track {
    position: relative;
    height: 1.5rem;
    background: var(--video-uploader-border);
    touch-action: none;
    cursor: pointer;
  }
  .range {
    position: absolute;
    top: 0;
    bottom: 0;
    background: color-mix(in srgb, var(--video-uploader-accent) 45%, transparent);
  }
  .playhead {
    position: absolute;
    top: -2.8rem;
    bottom: 0;
    width: 2px;
    background: var(--video-uploader-text);
    pointer-events: none;
  }
  .thumb {
    position: absolute;
    top: -0.25rem;
    width: 1.1rem;
    height: 2rem;
    margin-inline-start: -0.55rem;
    background: var(--video-uploader-background);
    border: 2px solid var(--video-uploader-accent);
    border-radius: 4px;
    box-sizing: border-box;
    cursor: ew-resize;
    touch-action: none;
  }
  .thumb[aria-disabled='true'] {
    opacity: 0.5;
  }
  :focus-visible {
    outline: 2px solid var(--video-uploader-accent);
    outline-offset: 2px;
  }
  .help {
    font-size: 0.85rem;
    color: var(--video-uploader-note);
    margin: 0.35rem 0 0;
  }
`;
