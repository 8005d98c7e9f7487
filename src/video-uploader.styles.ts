import coreCss from '@uppy/core/css/style.min.css?inline';
import dashboardCss from '@uppy/dashboard/css/style.min.css?inline';
import { css, unsafeCSS } from 'lit';
import { theme } from './theme.js';

/** Uppy's CSS is adopted into the shadow root (it cannot reach in from the page), then the element's own. */
export const styles = [
  unsafeCSS(coreCss),
  unsafeCSS(dashboardCss),
  theme,
  css`
    /* @uppy/dashboard 5.1 renders its Informer twice (components/Dashboard.tsx), so each message was
       two role=alert elements, read out twice. The second copy is hidden, for sight and screen readers. */
    .uppy-Dashboard-progressindicators > .uppy-Informer ~ .uppy-Informer {
      display: none;
    }
    /* A file name is isolated from the text around it, so right-to-left characters in it cannot reorder
       what follows (a name that ends in "\u202Emp4.exe" must not read as ".exe" → ".mp4"). */
    .uppy-Dashboard-Item-name {
      unicode-bidi: isolate;
    }
    /* While a file uploads, the progress bar and ring move when progress changes, not in eased steps, and the
       status bar's spinner stands still beside them: each of the three made Chromium draw 60 frames a second for
       the whole upload, which cost more CPU than the upload itself on the page's side (bench/widget.bench.ts). */
    .uppy-StatusBar.is-uploading .uppy-StatusBar-spinner {
      animation: none;
    }
    .uppy-StatusBar-progress,
    .uppy-Dashboard-Item-progressIcon--progress {
      transition: none;
    }
    /* Uppy's note is #757575 on #f4f4f4, 4.18:1; WCAG AA asks 4.5:1 for text this size. */
    .uppy-Dashboard-note {
      color: var(--video-uploader-note);
    }
    /* The Link source's panel (upload/link-source.ts). */
    .video-uploader-link {
      display: grid;
      gap: 0.75rem;
      padding: 1.5rem;
      max-width: 32rem;
      margin: 0 auto;
    }
    .video-uploader-link-label {
      display: grid;
      gap: 0.4rem;
      font-size: 0.9rem;
    }
    .video-uploader-link-input {
      width: 100%;
      box-sizing: border-box;
    }
    .error {
      margin: 0 0 0.75rem;
      padding: 0.75rem 1rem;
      border-radius: var(--video-uploader-radius);
      background: var(--video-uploader-error-background);
      color: var(--video-uploader-error-text);
    }
    .previews {
      list-style: none;
      margin: 1rem 0 0;
      padding: 0;
      display: grid;
      gap: 1rem;
    }
    .preview {
      border: 1px solid var(--video-uploader-border);
      border-radius: var(--video-uploader-radius);
      padding: 0.75rem;
    }
    .status {
      margin: 0 0 0.5rem;
      color: var(--video-uploader-text);
      display: flex;
      align-items: center;
      gap: 0.5rem;
      overflow-wrap: anywhere;
    }
    .preview[data-state='failed'] .status {
      color: var(--video-uploader-error-text);
    }
    video {
      width: 100%;
      max-height: 60vh;
      background: #000;
      border-radius: calc(var(--video-uploader-radius) / 2);
    }
    .spinner {
      width: 1em;
      height: 1em;
      flex: none;
      border: 2px solid var(--video-uploader-border);
      border-top-color: var(--video-uploader-accent);
      border-radius: 50%;
      animation: spin 0.8s linear infinite;
    }
    @keyframes spin {
      to {
        transform: rotate(1turn);
      }
    }
    @media (prefers-reduced-motion: reduce) {
      .spinner {
        animation-duration: 3s;
      }
    }
  `,
];
