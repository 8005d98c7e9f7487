import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { ifDefined } from 'lit/directives/if-defined.js';
import { isAbort, VideoServiceError } from '../api/errors.js';
import type { TokenProvider } from '../api/token.js';
import type { ExportEntry, TemporaryRecording, VideoDetails } from '../api/types.js';
import { ClientController } from '../controllers/client-controller.js';
import { clipperEn, type ClipperStrings, type ClipperStringsOverride } from '../locale/clipper.js';
import { LanguageController } from '../locale/localize.js';
import { OptionError, parseUrl } from '../options.js';
import type { Timeline } from '../preview/hls.js';
import { HlsController } from '../preview/hls-controller.js';
import { markKey } from '../range-slider.js';
import { parseTimecode, timecode } from '../timecode.js';
import { FrameClock } from './frame-clock.js';
import { RecordingsController } from './recordings-controller.js';
import { moveEnd, moveStart, type Selection, type Thumb } from './selection.js';
import { storyboardTiles, type Tile } from './storyboard.js';
import { RecordingClipperTimeline, type TimelineRequests } from './timeline.js';
import { styles } from './recording-clipper.styles.js';

const DATE_STYLE = { dateStyle: 'medium', timeStyle: 'medium' } as const;

/**
 * Dates and times in `lang` and the page's time zone. `lang` is the page's attribute, written by hand: `en_US` is read
 * as `en-US`, and a tag Intl cannot read (RangeError) leaves the browser's own language rather than no list at all.
 */
function dateFormat(lang: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(lang.replaceAll('_', '-'), DATE_STYLE);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return new Intl.DateTimeFormat(undefined, DATE_STYLE);
  }
}

/**
 * The clipper's language, found and followed as the uploader's is (LanguageController): the table of the `lang` of
 * the element or its nearest ancestor (locale/clipper-packs.ts, loaded when it is not English), the `locale`
 * property over it, and its dates and times.
 */
class ClipperLocalize extends LanguageController<ClipperStrings> {
  strings: ClipperStrings = clipperEn;
  /** Made once per language: the playhead renders every frame. */
  date = dateFormat(this.lang);
  private dateLang = this.lang;
  private overrides: ClipperStringsOverride | undefined;
  constructor(host: LitElement) {
    super(host, clipperEn);
  }
  override(overrides: ClipperStringsOverride | undefined): void {
    this.overrides = overrides;
    this.apply();
  }
  protected async load(lang: string): Promise<ClipperStrings> {
    const { loadClipperStrings } = await import('../locale/clipper-packs.js');
    return (await loadClipperStrings(lang)) ?? clipperEn;
  }
  protected apply(): void {
    const base = this.base;
    const o = this.overrides ?? {};
    this.strings = {
      ...base,
      ...o,
      status: { ...base.status, ...o.status },
      entryStatus: { ...base.entryStatus, ...o.entryStatus },
      videoStatus: { ...base.videoStatus, ...o.videoStatus },
    };
    if (this.dateLang !== this.lang) {
      this.dateLang = this.lang;
      this.date = dateFormat(this.lang);
    }
    this.host.requestUpdate();
  }
}

/**
 * Chooses a part of a live stream's temporary recording, to the frame, by mouse or keyboard, and converts it into
 * a permanent video (#10): lists the stream's recordings (#9), plays the chosen one (hls.js, loaded when needed)
 * with its storyboard along the timeline, follows the conversion to EXPORTED, then plays the new video (#8) and
 * lists the stream's videos (#11).
 *
 * @fires clip-requested - #10 accepted a conversion: `{recordingId, from, duration, entry}`.
 * @fires clip-ready - The conversion is EXPORTED: `{recordingId, entry, video}` (the #8 object).
 * @fires clip-failed - The conversion failed: `{recordingId, entry, reason}`.
 * @fires config-error - An attribute has a value the element cannot use: `{attribute, value, message}` (English).
 *
 * @csspart base - The element's wrapper.
 * @csspart error - The configuration message.
 * @csspart recordings - The list of recordings.
 * @csspart video - The recording's <video>.
 * @csspart timeline - The storyboard, the selected part and its two thumbs.
 * @csspart thumb - Each of the two thumbs (`role="slider"`).
 * @csspart fields - The start and end time codes.
 * @csspart actions - Preview and Convert.
 * @csspart result - The player of the new video, or of the video whose play button was pressed.
 * @csspart videos - The stream's videos (#11).
 *
 * @cssprop --video-uploader-accent - The selected part, the thumbs and the focus ring.
 * @cssprop --video-uploader-radius - Corner radius.
 * @cssprop --video-uploader-text - Text.
 * @cssprop --video-uploader-background - Background of the thumbs and buttons.
 * @cssprop --video-uploader-border - Borders and the timeline's track.
 * @cssprop --video-uploader-error-text - Text of messages that something went wrong.
 * @cssprop --video-uploader-error-background - Their background.
 * @cssprop --video-uploader-note - Notes: the keys' help under the timeline, and why the whole recording waits.
 * The package's palette (src/theme.ts), shared with <video-uploader>; `theme` picks light, dark or auto.
 */
@customElement('recording-clipper')
export class RecordingClipper extends LitElement {
  static override styles = styles;
  /**
   * The sub-elements it renders, registered by their modules (as Web Awesome's `dependencies`). Named here so that a
   * bundler keeps them: the package is side-effect free but for its entries, so a bare `import './timeline.js'` is
   * dropped from a production build, and the timeline with it.
   */
  static readonly dependencies = { 'recording-clipper-timeline': RecordingClipperTimeline };

  /** Address of the video service ({base_url}). Required. */
  @property({ attribute: 'base-url', reflect: true }) baseUrl?: string;

  /** URL the element POSTs to for an access token (a `clip` token of this stream); or set `tokenProvider`. */
  @property({ attribute: 'token-url' }) tokenUrl?: string;

  /** The live stream whose recordings are clipped. Required. */
  @property({ attribute: 'stream-id', reflect: true }) streamId?: string;

  /** `light` (the default), `dark`, or `auto`. */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'light';

  /** Returns an access token, or `{token, expiresAt}`; takes precedence over `token-url`. Property only. */
  @property({ attribute: false }) tokenProvider?: TokenProvider;

  /**
   * Strings to use instead of the language's own, any of them (locale/clipper.ts), any state of a table of states
   * (`{entryStatus: {EXPORTED: 'Done'}}` keeps the others' words). The language is the `lang` of the
   * element or its nearest ancestor, followed when it changes; 13 languages, right to left for Arabic and Hebrew (the
   * rest fall back by prefix, then to English). Property only.
   */
  @property({ attribute: false }) locale?: ClipperStringsOverride;

  @state() private chosen: string | undefined;
  @state() private deleted = false;
  @state() private timeline: Timeline | undefined;
  @state() private selection: Selection = { start: 0, duration: 10 };
  @state() private playhead = 0;
  @state() private looping = false;
  @state() private message: { text: string; error?: boolean } | undefined;
  /** The time code typed in a field that is not one: said under the fields, in the language shown. */
  @state() private fieldError: { thumb: Thumb; value: string } | undefined;
  @state() private tiles: Tile[] = [];
  @state() private result: VideoDetails | undefined;

  @query('video.recording') private videoEl?: HTMLVideoElement;
  @query('video.result') private resultEl?: HTMLVideoElement;
  @query('recording-clipper-timeline') private timelineEl?: RecordingClipperTimeline;

  private readonly i18n = new ClipperLocalize(this);
  private readonly service = new ClientController(this);
  private readonly players = new HlsController(this);
  private readonly list = new RecordingsController(this, {
    recordings: (recordings) => this.received(recordings),
    converted: (video) => {
      this.result = video;
      this.message = { text: this.i18n.strings.entryStatus.EXPORTED };
    },
    failed: (reason) => (this.message = { text: this.i18n.strings.failed(reason), error: true }),
  });
  private readonly clock = new FrameClock({
    onTime: (video) => this.tick(video),
    onSnap: (mediaTime) => (this.selection = moveStart(this.selection, mediaTime, this.bounds)),
    start: () => this.selection.start,
  });
  private storyboardRead = '';
  /** The video the person asked to play (its player starts it once loaded). */
  private autoplay: string | undefined;
  /** Ends the wait of the result player to start, when another video takes its place first. */
  private resultStart = new AbortController();

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('locale')) this.i18n.override(this.locale);
    const config = ['baseUrl', 'tokenUrl', 'tokenProvider', 'streamId'] as const;
    if (this.hasUpdated && !config.some((k) => changed.has(k))) return;
    // Another stream: its recordings are chosen afresh (the one chosen is not gone, it is another stream's).
    if (this.hasUpdated && changed.has('streamId')) {
      this.lost();
      this.deleted = false;
    }
    // A clip token is of one stream: another stream is another token source.
    const options = this.service.configure(() => {
      const baseUrl = parseUrl('base-url', this.baseUrl);
      if (!this.streamId?.trim()) throw new OptionError('stream-id', this.streamId ?? '', 'streamId');
      return { baseUrl };
    }, this.streamId);
    // A bad configuration follows nothing: the previous stream is no longer what the page asks for.
    this.list.follow(this.service.client ?? undefined, options ? this.streamId : undefined);
  }

  /** The timeline is part of the element: an update is complete once the timeline's is. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const done = await super.getUpdateComplete();
    await this.timelineEl?.updateComplete;
    return done;
  }

  private get recording(): TemporaryRecording | undefined {
    return this.list.recordings?.find((r) => r._id === this.chosen);
  }

  /** Seconds recorded of the chosen recording: the player's live edge, or #9's whole seconds until it has one. */
  private get bounds() {
    return { edge: this.timeline?.edge ?? this.recording?.duration ?? 0, frame: this.clock.frame };
  }

  /** #9 answered: the chosen recording kept (or said gone), a first one chosen, its storyboard read. */
  private received(recordings: TemporaryRecording[]): void {
    if (this.chosen && !recordings.some((r) => r._id === this.chosen)) this.lost();
    if (!this.chosen && !this.deleted && recordings.length) {
      this.choose((recordings.find((r) => r.status === 'live') ?? recordings.at(-1))!._id);
    }
    void this.readStoryboard();
  }

  /** The chosen recording is gone (deleted, or past its 3 days): said, and its player stopped. */
  private lost(): void {
    this.deleted = true;
    this.chosen = undefined;
    this.timeline = undefined;
    this.tiles = [];
    this.players.stop('recording');
    this.looping = false;
  }

  private choose(id: string): void {
    if (id === this.chosen) return;
    this.chosen = id;
    this.deleted = false;
    this.timeline = undefined;
    this.tiles = [];
    this.storyboardRead = '';
    this.looping = false;
    this.selection = moveStart({ start: 0, duration: 10 }, 0, this.bounds);
    this.clock.reset();
  }

  /** The storyboard's thumbnails along the timeline; read again while the recording grows. */
  private async readStoryboard(): Promise<void> {
    const r = this.recording;
    const url = r?.playback.storyboard;
    const key = `${url}|${r?.duration}`;
    if (!url || key === this.storyboardRead) return;
    this.storyboardRead = key;
    try {
      const res = await fetch(url, { credentials: 'omit', signal: this.list.signal });
      if (res.ok) this.tiles = storyboardTiles(await res.text(), url);
    } catch {
      this.storyboardRead = '';
    }
  }

  protected override updated(changed: PropertyValues): void {
    const video = this.videoEl;
    const url = this.recording?.playback.temporary_playback;
    if (video && url && !this.players.plays('recording', url)) {
      this.clock.watch(video);
      const unplayable = () => (this.message = { text: this.i18n.strings.unplayable, error: true });
      this.players.play(
        'recording',
        url,
        ({ playRecording }) =>
          playRecording(
            video,
            url,
            (timeline) => {
              this.timeline = timeline;
              this.selection = moveStart(this.selection, this.selection.start, this.bounds);
            },
            unplayable,
          ),
        unplayable,
      );
    }
    // A new result (a conversion done) before the one asked for could play: the new one is not started.
    if (changed.has('result')) {
      this.resultStart.abort();
      this.resultStart = new AbortController();
    }
    const result = this.resultEl;
    const hlsUrl = this.result?.playback.hls_url;
    if (result && hlsUrl && !this.players.plays('result', hlsUrl)) {
      const asked = this.autoplay === this.result!._id;
      this.autoplay = undefined;
      const { signal } = this.resultStart;
      this.players.play(
        'result',
        hlsUrl,
        ({ playHls }) => {
          // Asked for by its play button: it starts once it can (muted, as every player of the element).
          if (asked)
            result.addEventListener('canplay', () => void result.play().catch(() => {}), { once: true, signal });
          return playHls(result, hlsUrl, () => {});
        },
        () => {},
      );
    }
  }

  private tick(video: HTMLVideoElement): void {
    this.playhead = video.currentTime;
    const end = this.selection.start + this.selection.duration;
    if (this.looping && !video.paused && video.currentTime >= end - this.clock.frame / 2)
      video.currentTime = this.selection.start;
  }

  /** Shows the frame at `seconds` while not playing. */
  private show(seconds: number): void {
    if (this.videoEl && this.timeline) this.clock.show(this.videoEl, seconds);
  }

  /** The start onto `seconds` (a frame's time: once the video shows that frame, its exact time). */
  private setStart(seconds: number): void {
    this.selection = moveStart(this.selection, seconds, this.bounds);
    this.clock.snap(true);
    this.show(this.selection.start);
  }

  private setEnd(seconds: number): void {
    this.selection = moveEnd(this.selection, seconds, this.bounds);
    this.clock.snap(false);
    this.show(this.selection.start + this.selection.duration - this.clock.frame);
  }

  private onThumbRequest(event: CustomEvent<TimelineRequests['thumb-request']>): void {
    if (event.detail.thumb === 'start') this.setStart(event.detail.seconds);
    else this.setEnd(event.detail.seconds);
  }

  private onSeekRequest(event: CustomEvent<TimelineRequests['seek-request']>): void {
    if (this.videoEl && this.timeline) this.videoEl.currentTime = event.detail.seconds;
  }

  /** I and O: start and end at the playhead, from anywhere in the element but a text field. */
  private onKey = (event: KeyboardEvent): void => {
    if ((event.target as HTMLElement).localName === 'input') return;
    const mark = markKey(event);
    const video = this.videoEl;
    if (!mark || !video || !this.recording) return;
    event.preventDefault();
    if (mark === 'start') this.setStart(this.clock.shownFrame(video));
    else this.setEnd(video.currentTime);
  };

  private onField(thumb: Thumb, event: Event): void {
    const input = event.target as HTMLInputElement;
    const seconds = parseTimecode(input.value);
    if (seconds === undefined) {
      this.fieldError = { thumb, value: input.value };
      return;
    }
    this.fieldError = undefined;
    if (thumb === 'start') this.setStart(seconds);
    else this.setEnd(seconds);
    input.value = timecode(thumb === 'start' ? this.selection.start : this.selection.start + this.selection.duration);
  }

  private togglePreview(): void {
    const video = this.videoEl;
    if (!video) return;
    this.looping = !this.looping;
    if (this.looping) {
      video.currentTime = this.selection.start + this.clock.frame / 2;
      void video.play().catch(() => (this.looping = false));
    } else video.pause();
  }

  /** #10: the part (`from` from the program date times, half a frame early so the cut begins on the frame shown), or the whole. */
  private async convert(whole: boolean): Promise<void> {
    const recording = this.recording;
    if (!recording || !this.service.client) return;
    const t = this.i18n.strings;
    let from: string;
    let duration: number;
    if (whole) {
      from = recording.start_time;
      duration = recording.duration;
    } else {
      const at = this.timeline?.dateAt(this.selection.start);
      if (at === undefined) return;
      from = new Date(Math.round(at - (this.clock.frame * 1000) / 2)).toISOString();
      duration = this.selection.duration;
    }
    this.message = {
      text: t.requested(t.length(duration), whole ? timecode(0) : timecode(this.selection.start)),
    };
    try {
      await this.list.convert(recording._id, whole ? {} : { from, duration });
      this.message = { text: t.entryStatus.PROCESSING };
    } catch (err) {
      if (isAbort(err)) return;
      if (err instanceof VideoServiceError && err.status === 404) return this.lost();
      const reason = (err as Error).message.replace(/^The video service refused [^:]*: /, '');
      this.message = { text: t.refused(reason), error: true };
    }
  }

  protected override firstUpdated(): void {
    this.renderRoot.addEventListener('keydown', this.onKey as EventListener);
  }

  protected override render() {
    const t = this.i18n.strings;
    return html`<div part="base" class="base" lang=${this.i18n.lang} dir=${this.i18n.dir}>
      ${this.service.error ? html`<p part="error" class="error" role="alert">${this.service.error.describe(t)}</p>` : nothing}
      ${this.list.unreachable ? html`<p class="error" role="status">${t.unreachable}</p>` : nothing}
      ${this.renderRecordings()}
      ${this.deleted ? html`<p class="error" role="alert">${t.deleted}</p>` : nothing}
      ${this.recording ? this.renderClipper(this.recording) : nothing} ${this.renderVideos()}
    </div>`;
  }

  private renderRecordings() {
    const t = this.i18n.strings;
    const recordings = this.list.recordings;
    if (!recordings) return nothing;
    const date = this.i18n.date;
    return html`<section part="recordings" aria-label=${t.recordingsLabel}>
      <h2>${t.recordingsLabel}</h2>
      ${
        recordings.length === 0
          ? html`<p>${t.noRecordings}</p>`
          : html`<ul class="recordings">
            ${recordings.map(
              (r) =>
                html`<li>
                  <button
                    type="button"
                    aria-pressed=${r._id === this.chosen ? 'true' : 'false'}
                    data-status=${r.status}
                    @click=${() => this.choose(r._id)}
                  >
                    ${t.recording(
                      t.status[r.status],
                      date.format(new Date(r.start_time)),
                      timecode(r.duration).slice(0, 8),
                      t.exportsCount(r.export_data.length),
                    )}
                  </button>
                </li>`,
            )}
          </ul>`
      }
    </section>`;
  }

  private renderClipper(recording: TemporaryRecording) {
    const t = this.i18n.strings;
    const { edge } = this.bounds;
    const { start, duration } = this.selection;
    const end = start + duration;
    const ready = edge >= 1;
    return html`<section class="clipper">
      <video
        part="video"
        class="recording"
        aria-label=${`${t.playerLabel}: ${this.i18n.date.format(new Date(recording.start_time))}`}
        controls
        muted
        playsinline
        crossorigin="anonymous"
      ></video>
      <recording-clipper-timeline
        part="timeline"
        exportparts="thumb"
        dir=${this.i18n.dir}
        .edge=${edge}
        .frame=${this.clock.frame}
        .selection=${this.selection}
        .playhead=${this.playhead}
        .tiles=${this.tiles}
        .strings=${t}
        @thumb-request=${this.onThumbRequest}
        @seek-request=${this.onSeekRequest}
      ></recording-clipper-timeline>
      <div part="fields" class="fields">
        <label
          >${t.start}
          <input
            class="start"
            .value=${timecode(start)}
            inputmode="decimal"
            spellcheck="false"
            aria-invalid=${this.fieldError?.thumb === 'start' ? 'true' : 'false'}
            aria-describedby="field-error"
            @change=${(e: Event) => this.onField('start', e)}
        /></label>
        <label
          >${t.end}
          <input
            class="end"
            .value=${timecode(end)}
            inputmode="decimal"
            spellcheck="false"
            aria-invalid=${this.fieldError?.thumb === 'end' ? 'true' : 'false'}
            aria-describedby="field-error"
            @change=${(e: Event) => this.onField('end', e)}
        /></label>
        <span class="length">${t.lengthLabel}: ${t.length(duration)}</span>
        <p id="field-error" class="error field-error" role="alert">${this.renderFieldError()}</p>
      </div>
      <div part="actions" class="actions">
        <button type="button" aria-pressed=${this.looping ? 'true' : 'false'} ?disabled=${!this.timeline} @click=${this.togglePreview}>
          ${t.preview}
        </button>
        <button type="button" class="convert" ?disabled=${!this.timeline || !ready} @click=${() => this.convert(false)}>
          ${t.convert}
        </button>
        <button
          type="button"
          class="convert-whole"
          ?disabled=${recording.status !== 'complete'}
          aria-describedby=${recording.status === 'complete' ? nothing : 'whole-waits'}
          @click=${() => this.convert(true)}
        >
          ${t.convertWhole}
        </button>
        ${recording.status === 'complete' ? nothing : html`<p id="whole-waits" class="help">${t.wholeWaits}</p>`}
      </div>
      <p class=${this.message?.error ? 'message error' : 'message'} role="status">${this.message?.text ?? ''}</p>
      ${
        recording.export_data.length
          ? html`<h3>${t.exportsLabel}</h3>
            <ul class="exports">
              ${recording.export_data.map(
                (e: ExportEntry) =>
                  html`<li data-status=${e.status}>
                    ${t.entry(this.i18n.date.format(new Date(e.from)), t.length(e.duration), t.entryStatus[e.status])}
                  </li>`,
              )}
            </ul>`
          : nothing
      }
    </section>`;
  }

  private renderFieldError() {
    const t = this.i18n.strings;
    const error = this.fieldError;
    return error ? t.timecodeInvalid(error.thumb === 'start' ? t.start : t.end, error.value) : '';
  }

  private renderVideos() {
    const t = this.i18n.strings;
    if (!this.list.recordings) return nothing;
    return html`<section part="videos" aria-label=${t.videosLabel}>
      <h2>${t.videosLabel}</h2>
      ${
        this.result
          ? html`<video
            part="result"
            class="result"
            aria-label=${t.resultLabel}
            data-video-id=${this.result._id}
            poster=${ifDefined(this.result.playback.poster_url ?? undefined)}
            controls
            muted
            playsinline
          ></video>`
          : nothing
      }
      ${
        this.list.videos.length
          ? html`<ul class="videos">
            ${this.list.videos.map((v) => this.renderVideo(v))}
          </ul>`
          : html`<p>${t.noVideos}</p>`
      }
    </section>`;
  }

  /** A video made from the stream: its poster, its length and state in words, and a button that plays it. */
  private renderVideo(video: VideoDetails) {
    const t = this.i18n.strings;
    const length = t.length(this.lengthOf(video));
    const poster = video.playback.poster_url;
    return html`<li data-video-id=${video._id} data-status=${video.status}>
      ${poster ? html`<img class="poster" src=${poster} alt="" />` : html`<span class="poster"></span>`}
      <span class="about">${t.video(length, t.videoStatus[video.status])}</span>
      <button
        type="button"
        class="play"
        aria-label=${t.play(length, this.i18n.date.format(new Date(video.creation_time)))}
        ?disabled=${video.status !== 'ready' || !video.playback.hls_url}
        @click=${() => this.playVideo(video)}
      >
        <span aria-hidden="true">▶</span>
      </button>
    </li>`;
  }

  /** Whole seconds of a video: as processed, or as its conversion asked until it is. */
  private lengthOf(video: VideoDetails): number {
    if (video.duration != null) return Math.round(video.duration);
    const entries = this.list.recordings?.flatMap((r) => r.export_data) ?? [];
    return entries.find((e) => e.video_id === video._id)?.duration ?? 0;
  }

  /** Plays `video` in the result player: at once if it is there, else as soon as it has loaded. */
  private playVideo(video: VideoDetails): void {
    if (this.result?._id === video._id && this.resultEl) {
      void this.resultEl.play().catch(() => {});
      return;
    }
    this.autoplay = video._id;
    this.result = video;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'recording-clipper': RecordingClipper;
  }
}
