import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, query } from 'lit/decorators.js';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { TokenProvider } from './api/token.js';
import { ClientController } from './controllers/client-controller.js';
import type { Emit, VideoUploaderEventDetails } from './events.js';
import type { StringsOverride } from './locale/en.js';
import { LocalizeController } from './locale/localize.js';
import { resolveOptions, type UploaderOptions } from './options.js';
import type { Preview, PreviewController } from './preview/preview-controller.js';
import { UppyController } from './upload/uppy-controller.js';
import { styles } from './video-uploader.styles.js';

/** The properties that configure uploads: a change to any of them resolves the options again. */
const CONFIG = [
  'baseUrl',
  'tokenUrl',
  'tokenProvider',
  'multipartThreshold',
  'chunkSize',
  'parallelUploads',
  'maxParallelUploads',
  'maxFileSize',
  'maxFiles',
  'accept',
  'sources',
  'maxDuration',
  'minDuration',
  'maxResolution',
  'minResolution',
  'maxUploadResolution',
  'trim',
  'verifyChunks',
  'autoProceed',
  'theme',
] as const;

/**
 * Uploads videos to the video service (shared/service-spec.md) from an Uppy Dashboard, by the signed
 * link or in chunks, then previews each one with hls.js once the service has processed it.
 *
 * @fires video-created - #1 made the video object for a file: `{videoId, file}`.
 * @fires shrink-start - A video larger than `max-upload-resolution` starts its upload: `{file, choice, predicted, canEncode, reason}`.
 * @fires upload-progress - Bytes sent so far for a file, at most every 100 ms and as each PUT ends: `{file, bytesSent, bytesTotal}`.
 * @fires upload-success - A file's bytes are all in the service: `{file, videoId}`.
 * @fires upload-error - A file's upload failed: `{file, error, retryable}`.
 * @fires video-ready - The service has processed the video: `{video}` (the #8 object).
 * @fires video-failed - The service could not process the video: `{video, reason}`.
 * @fires preview-playing - A preview started playing: `{videoId}`.
 * @fires config-error - An attribute has a value the element cannot use: `{attribute, value, message}` (English).
 *
 * @csspart base - The element's wrapper.
 * @csspart error - The configuration message.
 * @csspart dashboard - The Uppy Dashboard's container.
 * @csspart previews - The list of uploaded videos.
 * @csspart preview - One uploaded video.
 * @csspart video - The preview's <video>.
 *
 * @cssprop --video-uploader-accent - Accent colour (the processing spinner).
 * @cssprop --video-uploader-radius - Corner radius of the previews and the message.
 * @cssprop --video-uploader-text - Text of the previews' status lines.
 * @cssprop --video-uploader-border - Borders of the previews and the spinner's track.
 * @cssprop --video-uploader-error-text - Text of the configuration message and of a failed preview.
 * @cssprop --video-uploader-error-background - Background of the configuration message.
 * @cssprop --video-uploader-note - The Dashboard's note under the drop area.
 * Each has a light and a dark value (`theme`); set one on the element to override both.
 */

@customElement('video-uploader')
export class VideoUploader extends LitElement {
  static override styles = styles;

  /** Address of the video service ({base_url}), e.g. `https://api.example.com`. Required. */
  @property({ attribute: 'base-url', reflect: true }) baseUrl?: string;

  /** URL the element POSTs to for an access token; it answers `{token, expiresAt}`. Or set `tokenProvider`. */
  @property({ attribute: 'token-url' }) tokenUrl?: string;

  /** Files this big or bigger go in chunks (multipart), smaller ones by the signed link. Default `64MB`. */
  @property({ attribute: 'multipart-threshold' }) multipartThreshold?: string;

  /**
   * Bytes per chunk, e.g. `32MB`; raised automatically so no file needs more than 10,000 chunks. Unset, chunks are
   * sized to the file and shrink with what is left, so the connections end together.
   */
  @property({ attribute: 'chunk-size' }) chunkSize?: string;

  /**
   * A fixed number of requests in flight at once (across files), chunks of one file included, 1–32. Unset, each
   * file's chunk PUTs start at 6 and double while more raise the measured rate (fewer more, then one fewer, when they
   * do not), at most 6 per storage host and `max-parallel-uploads` in all.
   */
  @property({ type: Number, attribute: 'parallel-uploads' }) parallelUploads?: number;

  /** The most chunk PUTs in flight at once (across files) while `parallel-uploads` is unset, 1–32. Default 12. */
  @property({ type: Number, attribute: 'max-parallel-uploads' }) maxParallelUploads?: number;

  /** Largest file accepted, e.g. `20GB`. No limit by default. */
  @property({ attribute: 'max-file-size' }) maxFileSize?: string;

  /** How many files may be added. No limit by default. */
  @property({ type: Number, attribute: 'max-files' }) maxFiles?: number;

  /** Accepted types: MIME types and extensions, comma-separated. Default: video files, .mkv, .ts, .avi and the like. */
  @property() accept?: string;

  /**
   * Where videos come from, comma-separated: `files` (picker, drop, paste), `link` (the service imports a URL),
   * `camera`, `screen` (Uppy's Webcam and ScreenCapture, each loaded only when named). Default `files,link`.
   */
  @property() sources?: string;

  /** Longest video accepted, e.g. `90s`, `10m`, `1h30m`, `01:30:00`. Each file is read before it is added. */
  @property({ attribute: 'max-duration' }) maxDuration?: string;

  /** Shortest video accepted, as `max-duration`. */
  @property({ attribute: 'min-duration' }) minDuration?: string;

  /** Largest frame accepted: `1080p` or `3840x2160`, compared side by side whatever the orientation. */
  @property({ attribute: 'max-resolution' }) maxResolution?: string;

  /** Smallest frame accepted, as `max-resolution`. */
  @property({ attribute: 'min-resolution' }) minResolution?: string;

  /**
   * Re-encode a video larger than this in the browser before it is sent: `1080p`, `720p` or `1920x1080`, compared side
   * by side whatever the orientation. H.264 MP4 where the browser can encode it (the service then copies it instead of
   * encoding), else VP9; the frame rate, the rotation and the sound are kept. The output is sent as it is written, in
   * chunks. A video the browser cannot re-encode is sent as it is. Unset: videos are sent as they are.
   */
  @property({ attribute: 'max-upload-resolution' }) maxUploadResolution?: string;

  /**
   * Each video's card gets a trim editor (the pencil on the card): the part to send is chosen to the frame, by mouse,
   * touch or the keys of `<recording-clipper>`, and only that part is sent (re-encoded in the browser at its own size,
   * or within the one pass of `max-upload-resolution`). A video the browser cannot decode is sent whole.
   */
  @property({ type: Boolean }) trim = false;

  /** Do not preview uploaded videos. */
  @property({ type: Boolean, attribute: 'no-preview' }) noPreview = false;

  /**
   * Check each chunk's ETag against the MD5 of the bytes sent (hashed in a worker during the upload);
   * a mismatch sends the chunk again. For storages whose ETag is the MD5 of the body (S3-style). Off by
   * default, for its cost in throughput (measured by `npm run bench`; docs/benchmarks.md has the figure).
   */
  @property({ type: Boolean, attribute: 'verify-chunks' }) verifyChunks = false;

  /** `light` (the default), `dark`, or `auto`: as the system's `prefers-color-scheme` says. Uppy's own dark Dashboard. */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'light';

  /** Start uploading as soon as a file is added, without the Upload button. */
  @property({ type: Boolean, attribute: 'auto-proceed' }) autoProceed = false;

  /** Returns an access token, or `{token, expiresAt}`; takes precedence over `token-url`. Property only. */
  @property({ attribute: false }) tokenProvider?: TokenProvider;

  /**
   * Strings to use instead of the language's own, any of them: `{dashboardNote: '…', uppy: {browseFiles: '…'}}`
   * (Uppy's keys: `@uppy/locales/lib/en_US.js`). The language is the `lang` of the element or its nearest
   * ancestor, followed when it changes; 42 languages for the Dashboard, 13 for the element's own sentences
   * (the rest fall back by prefix, then to English). Property only.
   */
  @property({ attribute: false }) locale?: StringsOverride;

  @query('.dashboard', true) private dashboardEl!: HTMLElement;

  private options: UploaderOptions | undefined;
  private readonly service = new ClientController(this);
  private readonly i18n = new LocalizeController(this, () => this.uploads.localize(this.i18n));

  private readonly emit: Emit = (name, detail) => {
    this.dispatchEvent(
      new CustomEvent<VideoUploaderEventDetails[typeof name]>(name, { detail, bubbles: true, composed: true }),
    );
  };

  private readonly uploads = new UppyController(this, {
    client: () => this.service.client,
    emit: this.emit,
    strings: () => this.i18n.strings,
    lang: () => this.i18n.lang,
    onUploaded: (videoId, name) => {
      if (!this.noPreview) void this.preview(videoId, name);
    },
  });

  /** The previews, loaded with the first upload (preview-controller.ts; hls.js later, with the first ready video). */
  private previews: PreviewController | undefined;

  private async preview(videoId: string, name: string): Promise<void> {
    const { PreviewController } = await import('./preview/preview-controller.js');
    this.previews ??= new PreviewController(this, () => this.service.client, this.emit);
    this.previews.track(videoId, name);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('locale')) this.i18n.override(this.locale);
    // Options are resolved, and Uppy reconfigured, only when one of them changed (a preview's render is not one).
    if (this.hasUpdated && !CONFIG.some((name) => changed.has(name))) return;
    this.options = this.service.configure(() =>
      resolveOptions({
        ...this.configuration(),
        parallelUploads: this.count('parallel-uploads', this.parallelUploads),
        maxParallelUploads: this.count('max-parallel-uploads', this.maxParallelUploads),
        maxFiles: this.count('max-files', this.maxFiles),
      }),
    );
    this.uploads.configure(this.options, this.autoProceed);
  }

  private configuration() {
    const { baseUrl, multipartThreshold, chunkSize, maxFileSize, accept, verifyChunks, theme, trim } = this;
    const { maxDuration, minDuration, maxResolution, minResolution, maxUploadResolution } = this;
    return {
      ...{ baseUrl, multipartThreshold, chunkSize, maxFileSize, accept, verifyChunks, theme, trim },
      ...{ maxDuration, minDuration, maxResolution, minResolution, maxUploadResolution, sources: this.sources },
    };
  }

  /** A count as its number, or, when the attribute is not a number, the attribute's text for the message. */
  private count(attribute: string, value: number | null | undefined): number | string | undefined {
    // A removed attribute is null (Lit's Number converter): the default again.
    if (value === null || value === undefined) return undefined;
    return Number.isNaN(value) ? (this.getAttribute(attribute) ?? String(value)) : value;
  }

  protected override firstUpdated(): void {
    // The Dashboard appears in the page's language: after its pack has loaded (at once for English).
    void this.i18n.ready.then(() => this.uploads.mount(this.dashboardEl));
  }

  protected override render() {
    const t = this.i18n.strings;
    return html`<div part="base" class="base" lang=${this.i18n.lang} dir=${this.i18n.dir}>
      ${this.service.error ? html`<p part="error" class="error" role="alert">${this.service.error.describe(t)}</p>` : nothing}
      <div part="dashboard" class="dashboard"></div>
      ${
        this.previews?.previews.length
          ? html`<ul part="previews" class="previews" aria-label=${t.previewsLabel}>
            ${this.previews.previews.map((p) => this.renderPreview(p))}
          </ul>`
          : nothing
      }
    </div>`;
  }

  private renderPreview(p: Preview) {
    const t = this.i18n.strings;
    const status = {
      processing: t.processing(p.name),
      ready: t.ready(p.name),
      failed: t.failed(p.name, p.reason),
      later: t.stillProcessing(p.name),
      unplayable: t.previewUnsupported,
    }[p.state];
    return html`<li part="preview" class="preview" data-state=${p.state}>
      <p class="status" role="status" aria-live="polite">
        ${p.state === 'processing' ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${status}
      </p>
      ${
        p.state === 'ready'
          ? html`<video
            part="video"
            data-video-id=${p.videoId}
            aria-label=${t.previewLabel(p.name)}
            poster=${ifDefined(p.video?.playback.poster_url ?? undefined)}
            muted
            autoplay
            playsinline
            controls
          ></video>`
          : nothing
      }
    </li>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'video-uploader': VideoUploader;
  }
}
