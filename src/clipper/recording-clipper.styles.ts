import { css } from 'lit';
import { theme } from '../theme.js';

export const styles = [
  theme,
  css`
    .base {
      background: var(--video-uploader-background);
      border-radius: var(--video-uploader-radius);
    }
    h2 {
      font-size: 1rem;
      margin: 1rem 0 0.5rem;
    }
    h3 {
      font-size: 0.95rem;
      margin: 1rem 0 0.25rem;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.25rem;
    }
    button,
    input {
      font: inherit;
      color: inherit;
      background: var(--video-uploader-background);
      border: 1px solid var(--video-uploader-border);
      border-radius: calc(var(--video-uploader-radius) / 2);
      padding: 0.35rem 0.7rem;
    }
    button:disabled {
      opacity: 0.6;
    }
    button[aria-pressed='true'] {
      border-color: var(--video-uploader-accent);
      box-shadow: inset 0 0 0 1px var(--video-uploader-accent);
    }
    .recordings button {
      width: 100%;
      text-align: start;
    }
    .convert {
      background: var(--video-uploader-accent);
      border-color: var(--video-uploader-accent);
      color: #fff;
    }
    :host([theme='dark']) .convert {
      color: #111;
    }
    :focus-visible {
      outline: 2px solid var(--video-uploader-accent);
      outline-offset: 2px;
    }
    video {
      display: block;
      width: 100%;
      max-height: 60vh;
      background: #000;
      border-radius: calc(var(--video-uploader-radius) / 2);
      margin-top: 0.75rem;
    }
    .videos li {
      display: flex;
      align-items: center;
      gap: 0.75rem;
    }
    .videos .poster {
      width: 5.5rem;
      aspect-ratio: 16 / 9;
      object-fit: cover;
      background: var(--video-uploader-border);
      border-radius: calc(var(--video-uploader-radius) / 2);
    }
    .videos .about {
      flex: 1;
    }
    .fields,
    .actions {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.75rem;
      margin: 0.5rem 0;
    }
    .fields label {
      display: flex;
      align-items: center;
      gap: 0.4rem;
    }
    .fields input {
      width: 9.5em;
      font-variant-numeric: tabular-nums;
    }
    .help {
      font-size: 0.85rem;
      color: var(--video-uploader-note);
      margin: 0.35rem 0 0;
    }
    .error {
      color: var(--video-uploader-error-text);
    }
    p.error:not(:empty),
    .message.error {
      background: var(--video-uploader-error-background);
      padding: 0.5rem 0.75rem;
      border-radius: var(--video-uploader-radius);
    }
    .field-error {
      flex-basis: 100%;
      margin: 0;
    }
    .field-error:empty {
      display: none;
    }
  `,
];
