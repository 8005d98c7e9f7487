import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { styleMap } from 'lit/directives/style-map.js';
import { VideoServiceClient } from '../api/client.js';
import { isAbort, VideoServiceError } from '../api/errors.js';
import { TokenCache, tokenFromUrl, type TokenProvider } from '../api/token.js';
import type { ExportEntry, TemporaryRecording, VideoDetails } from '../api/types.js';
import { clipperEn, type ClipperStrings, type ClipperStringsOverride } from '../locale/clipper.js';
import { LanguageController } from '../locale/localize.js';
import { OptionError, parseUrl } from '../options.js';
import type { Player, Timeline } from '../preview/hls.js';
import type { RecordingClipperEventDetails, RecordingClipperEventName } from './events.js';
import { keyStep, moveEnd, moveStart, parseTimecode, timecode, type Selection, type Thumb } from './selection.js';
import { storyboardTiles, type Tile } from './storyboard.js';
import { styles } from './recording-clipper.styles.js';

/** #9 is read this often while something can change (a recording live or stopped, a conversion running). */
const BUSY_POLL_MS = 2_000;
const IDLE_POLL_MS = 10_000;
/** Seconds to the millisecond, as the sliders say them. */
const ms = (seconds: number) => Math.round(seconds * 1000) / 1000;
/** One frame until the video has shown two in a row (requestVideoFrameCallback). */
const DEFAULT_FRAME = 1 / 30;

/** The clipper's language: its English table, the `locale` property over it (locale/clipper.ts). */
class ClipperLocalize extends LanguageController<ClipperStrings> {
  strings: ClipperStrings = clipperEn;
  private overrides: ClipperStringsOverride | undefined;
  constructor(host: LitElement) {
    super(host, clipperEn);
  }
  override(overrides: ClipperStringsOverride | undefined): void {
    this.overrides = overrides;
    this.apply();
  }
  protected load(): Promise<ClipperStrings> {
    return Promise.resolve(clipperEn);
  }
  protected apply(): void {
    this.strings = { ...this.base, ...this.overrides };
    this.host.requestUpdate();
  }
}

type FrameVideo = HTMLVideoElement & {
  requestVideoFrameCallback?(cb: (now: number, meta: { mediaTime: number; presentedFrames: number }) => void): number;
};

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
 * @csspart result - The new video's <video>.
 * @csspart videos - The stream's videos (#11).
 *
 * @cssprop --video-uploader-accent - The selected part, the thumbs and the focus ring.
 * @cssprop --video-uploader-radius - Corner radius.
 * @cssprop --video-uploader-text - Text.
 * @cssprop --video-uploader-background - Background of the thumbs and buttons.
 * @cssprop --video-uploader-border - Borders and the timeline's track.
 * @cssprop --video-uploader-error-text - Text of messages that something went wrong.
 * @cssprop --video-uploader-error-background - Their background.
 * The package's palette (src/theme.ts), shared with <video-uploader>; `theme` picks light, dark or auto.
 */
@customElement('recording-clipper')
export class RecordingClipper extends LitElement {
  static override styles = styles;

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

  /** Strings to use instead of the element's own (locale/clipper.ts). Property only. */
  @property({ attribute: false }) locale?: ClipperStringsOverride;

  @state() private recordings: TemporaryRecording[] | undefined;
  @state() private chosen: string | undefined;
  @state() private deleted = false;
  @state() private unreachable = false;
  @state() private configError: OptionError | undefined;
  @state() private timeline: Timeline | undefined;
  @state() private selection: Selection = { start: 0, duration: 10 };
  @state() private playhead = 0;
  @state() private looping = false;
  @state() private message: { text: string; error?: boolean } | undefined;
  @state() private fieldError: string | undefined;
  @state() private tiles: Tile[] = [];
  @state() private videos: VideoDetails[] = [];
  @state() private result: VideoDetails | undefined;

  @query('video.recording') private videoEl?: FrameVideo;
  @query('video.result') private resultEl?: HTMLVideoElement;

  private readonly i18n = new ClipperLocalize(this);
  private client: VideoServiceClient | undefined;
  private abort = new AbortController();
  private player: { url: string; player?: Player } | undefined;
  private resultPlayer: { id: string; player?: Player } | undefined;
  private frame = DEFAULT_FRAME;
  /** The start was set to a frame: once the video shows it, the start becomes that frame's exact time. */
  private snapping = false;
  private lastFrame: { mediaTime: number; presentedFrames: number } | undefined;
  private readonly watched = new WeakSet<HTMLVideoElement>();
  /** Where the clipper last moved the playhead to show a frame. */
  private seekedTo: number | undefined;
  /** seekedTo was asked while the video was seeking elsewhere: it goes there once that seek ends. */
  private seekQueued = false;
  /** Conversions asked here and not yet done. */
  private pending: { recordingId: string; from: string; duration: number }[] = [];
  private storyboardRead = '';

  override connectedCallback(): void {
    super.connectedCallback();
    this.abort = new AbortController();
    if (this.client) void this.poll();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.abort.abort();
    this.player?.player?.destroy();
    this.resultPlayer?.player?.destroy();
    this.player = this.resultPlayer = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('locale')) this.i18n.override(this.locale);
    const config = ['baseUrl', 'tokenUrl', 'tokenProvider', 'streamId'] as const;
    if (this.hasUpdated && !config.some((k) => changed.has(k))) return;
    const previous = this.configError?.message;
    try {
      const baseUrl = parseUrl('base-url', this.baseUrl);
      if (!this.streamId?.trim()) throw new OptionError('stream-id', this.streamId ?? '', 'streamId');
      const provider =
        this.tokenProvider ?? (this.tokenUrl ? tokenFromUrl(new URL(this.tokenUrl, document.baseURI).href) : undefined);
      if (!provider) throw new OptionError('token-url', this.tokenUrl ?? '', 'token');
      this.configError = undefined;
      this.client = new VideoServiceClient(baseUrl, new TokenCache(provider));
      this.abort.abort();
      this.abort = new AbortController();
      this.recordings = undefined;
      if (this.isConnected) void this.poll();
    } catch (err) {
      if (!(err instanceof OptionError)) throw err;
      this.configError = err;
      this.client = undefined;
      if (err.message !== previous)
        this.emit('config-error', { attribute: err.attribute, value: err.value, message: err.message });
    }
  }

  private emit<K extends RecordingClipperEventName>(name: K, detail: RecordingClipperEventDetails[K]): void {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  private get recording(): TemporaryRecording | undefined {
    return this.recordings?.find((r) => r._id === this.chosen);
  }

  /** Seconds recorded of the chosen recording: the player's live edge, or #9's whole seconds until it has one. */
  private get bounds() {
    return { edge: this.timeline?.edge ?? this.recording?.duration ?? 0, frame: this.frame };
  }

  /** #9 (and #11 when a conversion is done) until disconnected: often while something can change. */
  private async poll(): Promise<void> {
    const { signal } = this.abort;
    const client = this.client!;
    const streamId = this.streamId!;
    let first = true;
    while (!signal.aborted) {
      try {
        const recordings = await client.listTemporaryRecordings(streamId, signal);
        this.unreachable = false;
        await this.received(recordings, client, streamId, signal, first);
        first = false;
      } catch (err) {
        if (isAbort(err) || signal.aborted) return;
        // The stream itself is gone (deleted): so are its recordings.
        if (err instanceof VideoServiceError && err.status === 404)
          await this.received([], client, streamId, signal, false);
        else this.unreachable = true;
      }
      const busy =
        this.pending.length > 0 ||
        this.recordings?.some((r) => r.status !== 'complete' || r.export_data.some((e) => e.status === 'PROCESSING'));
      await new Promise((resolve) => setTimeout(resolve, busy ? BUSY_POLL_MS : IDLE_POLL_MS));
    }
  }

  private async received(
    recordings: TemporaryRecording[],
    client: VideoServiceClient,
    streamId: string,
    signal: AbortSignal,
    first: boolean,
  ): Promise<void> {
    this.recordings = recordings;
    if (this.chosen && !recordings.some((r) => r._id === this.chosen)) this.lost();
    if (!this.chosen && !this.deleted && recordings.length) {
      this.choose((recordings.find((r) => r.status === 'live') ?? recordings.at(-1))!._id);
    }
    let done = first;
    for (const p of [...this.pending]) {
      const entry = recordings
        .find((r) => r._id === p.recordingId)
        ?.export_data.find((e) => e.from === p.from && e.duration === p.duration && e.status !== 'PROCESSING');
      if (!entry?.video_id) continue;
      this.pending = this.pending.filter((x) => x !== p);
      done = true;
      const video = await client.getVideo(entry.video_id, signal);
      if (entry.status === 'EXPORTED') {
        this.result = video;
        this.message = { text: this.i18n.strings.entryStatus.EXPORTED! };
        this.emit('clip-ready', { recordingId: p.recordingId, entry, video });
      } else {
        const reason = video.failure_reason ?? '';
        this.message = { text: this.i18n.strings.failed(reason), error: true };
        this.emit('clip-failed', { recordingId: p.recordingId, entry, reason });
      }
    }
    if (done) this.videos = await client.listConvertedVideos(streamId, signal);
    void this.readStoryboard();
  }

  /** The chosen recording is gone (deleted, or past its 3 days): said, and its player stopped. */
  private lost(): void {
    this.deleted = true;
    this.chosen = undefined;
    this.timeline = undefined;
    this.tiles = [];
    this.player?.player?.destroy();
    this.player = undefined;
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
    this.lastFrame = this.seekedTo = undefined;
    this.seekQueued = false;
  }

  /** The storyboard's thumbnails along the timeline; read again while the recording grows. */
  private async readStoryboard(): Promise<void> {
    const r = this.recording;
    const url = r?.playback.storyboard;
    const key = `${url}|${r?.duration}`;
    if (!url || key === this.storyboardRead) return;
    this.storyboardRead = key;
    try {
      const res = await fetch(url, { credentials: 'omit', signal: this.abort.signal });
      if (res.ok) this.tiles = storyboardTiles(await res.text(), url);
    } catch {
      this.storyboardRead = '';
    }
  }

  protected override updated(): void {
    const video = this.videoEl;
    const url = this.recording?.playback.temporary_playback;
    if (video && url && this.player?.url !== url) {
      this.player?.player?.destroy();
      const entry: { url: string; player?: Player } = { url };
      this.player = entry;
      this.watchFrames(video);
      void import('../preview/hls.js').then(({ playRecording }) => {
        if (this.player !== entry) return;
        try {
          entry.player = playRecording(
            video,
            url,
            (timeline) => {
              this.timeline = timeline;
              this.selection = moveStart(this.selection, this.selection.start, this.bounds);
            },
            () => (this.message = { text: this.i18n.strings.unplayable, error: true }),
          );
        } catch {
          this.message = { text: this.i18n.strings.unplayable, error: true };
        }
      });
    }
    const result = this.resultEl;
    if (result && this.result && this.resultPlayer?.id !== this.result._id) {
      this.resultPlayer?.player?.destroy();
      const entry: { id: string; player?: Player } = { id: this.result._id };
      this.resultPlayer = entry;
      const hlsUrl = this.result.playback.hls_url;
      void import('../preview/hls.js').then(({ playHls }) => {
        if (this.resultPlayer === entry) entry.player = playHls(result, hlsUrl, () => {});
      });
    }
  }

  /** The frame shown: its time (to place the start on it) and the length of a frame, where the browser says. */
  private watchFrames(video: FrameVideo): void {
    // Once per <video>: Lit keeps the element when another recording is chosen.
    if (this.watched.has(video)) return;
    this.watched.add(video);
    video.addEventListener('timeupdate', () => this.tick(video));
    video.addEventListener('seeked', () => {
      if (this.seekQueued && video.paused) video.currentTime = this.seekedTo!;
      this.seekQueued = false;
      this.tick(video);
    });
    if (!video.requestVideoFrameCallback) return;
    const onFrame = (_now: number, meta: { mediaTime: number; presentedFrames: number }) => {
      const last = this.lastFrame;
      // Frames shown one after another while playing tell how long a frame is; frames shown by seeks do not.
      const playing = !video.paused && !video.seeking;
      const step = playing && last?.presentedFrames === meta.presentedFrames - 1 ? meta.mediaTime - last.mediaTime : 0;
      if (step > 0.004 && step < 0.2) this.frame = this.frame === DEFAULT_FRAME ? step : (this.frame * 7 + step) / 8;
      this.lastFrame = meta;
      if (playing) this.tick(video);
      // The frame the last seek asked for (not one shown on the way): the start becomes its exact time. Firefox
      // gives the playhead (the middle of the frame asked for) as mediaTime, not the frame's time: the start stays.
      const settled =
        !video.seeking && this.seekedTo !== undefined && Math.abs(video.currentTime - this.seekedTo) < 1e-3;
      const framesOwnTime = this.seekedTo !== undefined && Math.abs(meta.mediaTime - this.seekedTo) > 1e-4;
      if (this.snapping && settled && framesOwnTime && Math.abs(meta.mediaTime - this.selection.start) < this.frame) {
        this.snapping = false;
        this.selection = moveStart(this.selection, meta.mediaTime, this.bounds);
      }
      if (this.videoEl === video) video.requestVideoFrameCallback!(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  }

  private tick(video: HTMLVideoElement): void {
    this.playhead = video.currentTime;
    const end = this.selection.start + this.selection.duration;
    if (this.looping && !video.paused && video.currentTime >= end - this.frame / 2)
      video.currentTime = this.selection.start;
  }

  /** Shows the frame at `seconds` (the middle of it, so rounding cannot show its neighbour) while not playing. */
  private show(seconds: number): void {
    const video = this.videoEl;
    if (!video || !video.paused || !this.timeline) return;
    this.seekedTo = Math.max(0, seconds + this.frame / 2);
    // One seek at a time: keys held down ask for many; the last one asked is where the video goes next.
    if (video.seeking) this.seekQueued = true;
    else video.currentTime = this.seekedTo;
  }

  private setStart(seconds: number, toFrame: boolean): void {
    this.selection = moveStart(this.selection, seconds, this.bounds);
    this.snapping = toFrame;
    this.show(this.selection.start);
  }

  private setEnd(seconds: number): void {
    this.selection = moveEnd(this.selection, seconds, this.bounds);
    this.show(this.selection.start + this.selection.duration - this.frame);
  }

  private onThumbKey(thumb: Thumb, event: KeyboardEvent): void {
    const next = keyStep(this.selection, thumb, event.key, event.shiftKey, this.bounds);
    if (!next) return;
    event.preventDefault();
    if (thumb === 'start') this.setStart(next.start, true);
    else this.setEnd(next.start + next.duration);
  }

  /** I and O: start and end at the playhead, from anywhere in the element but a text field. */
  private onKey = (event: KeyboardEvent): void => {
    if (event.ctrlKey || event.metaKey || event.altKey || (event.target as HTMLElement).localName === 'input') return;
    const key = event.key.toLowerCase();
    if (key !== 'i' && key !== 'o') return;
    const video = this.videoEl;
    if (!video || !this.recording) return;
    event.preventDefault();
    if (key === 'i') this.setStart(this.shownFrame(video), true);
    else this.setEnd(video.currentTime);
  };

  /**
   * The time of the frame the paused video shows: as the browser says (requestVideoFrameCallback), else the
   * playhead down to a whole frame (WebKitGTK says nothing; Firefox says the playhead itself).
   */
  private shownFrame(video: HTMLVideoElement): number {
    const told = this.lastFrame?.mediaTime;
    if (video.paused && told !== undefined && Math.abs(told - video.currentTime) > 1e-4) return told;
    if (!video.paused) return video.currentTime;
    return Math.floor(video.currentTime / this.frame + 1e-3) * this.frame;
  }

  private onDrag(thumb: Thumb, event: PointerEvent): void {
    const track = (event.currentTarget as HTMLElement).parentElement!;
    (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
    (event.currentTarget as HTMLElement).focus();
    const move = (e: PointerEvent) => {
      const rect = track.getBoundingClientRect();
      const rtl = this.i18n.dir === 'rtl';
      const ratio = Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width));
      const seconds = (rtl ? 1 - ratio : ratio) * this.bounds.edge;
      if (thumb === 'start') this.setStart(Math.round(seconds / this.frame) * this.frame, true);
      else this.setEnd(seconds);
    };
    const target = event.currentTarget as HTMLElement;
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', () => target.removeEventListener('pointermove', move), { once: true });
    event.preventDefault();
  }

  /** A click on the track moves the playhead there. */
  private onTrack(event: PointerEvent): void {
    if ((event.target as HTMLElement).getAttribute('role') === 'slider' || !this.videoEl || !this.timeline) return;
    const rect = (event.currentTarget as HTMLElement).getBoundingClientRect();
    const ratio = (event.clientX - rect.left) / rect.width;
    this.videoEl.currentTime = (this.i18n.dir === 'rtl' ? 1 - ratio : ratio) * this.bounds.edge;
  }

  private onField(thumb: Thumb, event: Event): void {
    const input = event.target as HTMLInputElement;
    const t = this.i18n.strings;
    const seconds = parseTimecode(input.value);
    if (seconds === undefined) {
      this.fieldError = t.timecodeInvalid(thumb === 'start' ? t.start : t.end, input.value);
      return;
    }
    this.fieldError = undefined;
    if (thumb === 'start') this.setStart(seconds, true);
    else this.setEnd(seconds);
    input.value = timecode(thumb === 'start' ? this.selection.start : this.selection.start + this.selection.duration);
  }

  private togglePreview(): void {
    const video = this.videoEl;
    if (!video) return;
    this.looping = !this.looping;
    if (this.looping) {
      video.currentTime = this.selection.start + this.frame / 2;
      void video.play().catch(() => (this.looping = false));
    } else video.pause();
  }

  /** #10: the part (`from` from the program date times, half a frame early so the cut begins on the frame shown), or the whole. */
  private async convert(whole: boolean): Promise<void> {
    const recording = this.recording;
    const client = this.client;
    if (!recording || !client) return;
    const t = this.i18n.strings;
    let from: string;
    let duration: number;
    if (whole) {
      from = recording.start_time;
      duration = recording.duration;
    } else {
      const at = this.timeline?.dateAt(this.selection.start);
      if (at === undefined) return;
      from = new Date(Math.round(at - (this.frame * 1000) / 2)).toISOString();
      duration = this.selection.duration;
    }
    this.message = {
      text: t.requested(t.length(duration), whole ? timecode(0) : timecode(this.selection.start)),
    };
    try {
      const entry = await client.convertRecording(
        this.streamId!,
        recording._id,
        whole ? {} : { from, duration },
        this.abort.signal,
      );
      this.pending = [...this.pending, { recordingId: recording._id, from: entry.from, duration: entry.duration }];
      this.emit('clip-requested', { recordingId: recording._id, from: entry.from, duration: entry.duration, entry });
      this.message = { text: t.entryStatus.PROCESSING! };
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
      ${this.configError ? html`<p part="error" class="error" role="alert">${this.configError.describe(t)}</p>` : nothing}
      ${this.unreachable ? html`<p class="error" role="status">${t.unreachable}</p>` : nothing}
      ${this.renderRecordings()}
      ${this.deleted ? html`<p class="error" role="alert">${t.deleted}</p>` : nothing}
      ${this.recording ? this.renderClipper(this.recording) : nothing} ${this.renderVideos()}
    </div>`;
  }

  private renderRecordings() {
    const t = this.i18n.strings;
    if (!this.recordings) return nothing;
    const date = new Intl.DateTimeFormat(this.i18n.lang, { dateStyle: 'medium', timeStyle: 'medium' });
    return html`<section part="recordings" aria-label=${t.recordingsLabel}>
      <h2>${t.recordingsLabel}</h2>
      ${
        this.recordings.length === 0
          ? html`<p>${t.noRecordings}</p>`
          : html`<ul class="recordings">
            ${this.recordings.map(
              (r) =>
                html`<li>
                  <button
                    type="button"
                    aria-pressed=${r._id === this.chosen ? 'true' : 'false'}
                    data-status=${r.status}
                    @click=${() => this.choose(r._id)}
                  >
                    ${t.recording(
                      t.status[r.status] ?? r.status,
                      date.format(new Date(r.start_time)),
                      timecode(r.duration).slice(0, 8),
                    )}
                    · ${t.exportsCount(r.export_data.length)}
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
    const at = (s: number) => `${edge > 0 ? (s / edge) * 100 : 0}%`;
    const side = this.i18n.dir === 'rtl' ? 'right' : 'left';
    const ready = edge >= 1;
    return html`<section class="clipper">
      <video
        part="video"
        class="recording"
        aria-label=${`${t.playerLabel}: ${recording.start_time}`}
        controls
        muted
        playsinline
        crossorigin="anonymous"
      ></video>
      <div part="timeline" class="timeline" role="group" aria-label=${t.timelineLabel} aria-describedby="keys">
        <div class="strip" aria-hidden="true">
          ${this.tiles.length ? this.renderStrip(edge) : nothing}
        </div>
        <div class="track" @pointerdown=${this.onTrack}>
          <div class="range" style=${styleMap({ [side]: at(start), width: at(duration) })}></div>
          <div class="playhead" style=${styleMap({ [side]: at(Math.min(this.playhead, edge)) })}></div>
          ${this.renderThumb('start', t.start, start, 0, Math.max(0, end - 1), at(start), side, ready)}
          ${this.renderThumb('end', t.end, end, start + 1, start + Math.max(1, Math.floor(edge - start + 1e-6)), at(end), side, ready)}
        </div>
        <p id="keys" class="help">${t.keysHelp}</p>
      </div>
      <div part="fields" class="fields">
        <label
          >${t.start}
          <input
            class="start"
            .value=${timecode(start)}
            inputmode="decimal"
            spellcheck="false"
            aria-invalid=${this.fieldError?.startsWith(t.start) ? 'true' : 'false'}
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
            aria-invalid=${this.fieldError?.startsWith(t.end) ? 'true' : 'false'}
            aria-describedby="field-error"
            @change=${(e: Event) => this.onField('end', e)}
        /></label>
        <span class="length">${t.lengthLabel}: ${t.length(duration)}</span>
        <p id="field-error" class="error field-error" role="alert">${this.fieldError ?? ''}</p>
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
                    ${t.entry(e.from, t.length(e.duration), t.entryStatus[e.status] ?? e.status)}
                  </li>`,
              )}
            </ul>`
          : nothing
      }
      ${
        this.result
          ? html`<video
            part="result"
            class="result"
            aria-label=${t.resultLabel}
            data-video-id=${this.result._id}
            controls
            muted
            playsinline
          ></video>`
          : nothing
      }
    </section>`;
  }

  private renderThumb(
    thumb: Thumb,
    label: string,
    value: number,
    min: number,
    max: number,
    position: string,
    side: string,
    ready: boolean,
  ) {
    const t = this.i18n.strings;
    return html`<div
      part="thumb"
      class="thumb ${thumb}"
      role="slider"
      tabindex=${ready ? 0 : -1}
      aria-label=${label}
      aria-valuemin=${ms(min)}
      aria-valuemax=${ms(max)}
      aria-valuenow=${ms(value)}
      aria-valuetext=${timecode(value)}
      aria-disabled=${ready ? 'false' : 'true'}
      aria-describedby="keys"
      title=${`${label} ${timecode(value)} (${t.liveEdge}: ${timecode(this.bounds.edge)})`}
      style=${styleMap({ [side]: position })}
      @keydown=${(e: KeyboardEvent) => this.onThumbKey(thumb, e)}
      @pointerdown=${(e: PointerEvent) => this.onDrag(thumb, e)}
    ></div>`;
  }

  private renderStrip(edge: number) {
    const COUNT = 10;
    return Array.from({ length: COUNT }, (_, i) => {
      const time = ((i + 0.5) / COUNT) * edge;
      const tile = this.tiles.find((c) => time < c.end) ?? this.tiles.at(-1)!;
      return html`<span class="tile" style=${styleMap(tile.style)}></span>`;
    });
  }

  private renderVideos() {
    const t = this.i18n.strings;
    if (!this.recordings) return nothing;
    return html`<section part="videos" aria-label=${t.videosLabel}>
      <h2>${t.videosLabel}</h2>
      ${
        this.videos.length
          ? html`<ul class="videos">
            ${this.videos.map((v) => html`<li data-video-id=${v._id}>${t.video(v.file_name ?? v._id, v.status)}</li>`)}
          </ul>`
          : html`<p>${t.noVideos}</p>`
      }
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'recording-clipper': RecordingClipper;
  }
}
