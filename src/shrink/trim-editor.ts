import { html, LitElement, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { ifDefined } from 'lit/directives/if-defined.js';
import { styleMap } from 'lit/directives/style-map.js';
import { shrinkEn, type ShrinkStrings } from '../locale/shrink.js';
import { ariaSeconds, drag, markKey, secondsAt, sliderMove, trackKey } from '../range-slider.js';
import { timecode } from '../timecode.js';
import { formatDuration } from '../upload/media-check.js';
import { styles } from './trim-editor.styles.js';

/** The part of the video to keep, in seconds of the file: from `start` (its first frame) to `end` (not included). */
export interface TrimRange {
  start: number;
  end: number;
}

/** The editor's sentences: <video-uploader>'s own table, in its language, has them (locale/en.ts). */
export type TrimStrings = Pick<ShrinkStrings, 'trimLabel' | 'trimStart' | 'trimEnd' | 'trimKeys' | 'trimKeeps'>;

type Thumb = 'start' | 'end';

/** Away from float noise: frames of 1/30 s added up stay on their microsecond. */
const tidy = (seconds: number) => Math.round(seconds * 1e6) / 1e6;
/** Frames a second while `frameRate` is not a number above 0. */
const DEFAULT_RATE = 30;

/**
 * Chooses the part of a picked video to keep, to the frame, by mouse, touch or keyboard (issue 31's `trim`): the
 * video, a track with the part and the playhead, and the part's two thumbs (`role="slider"`), with the keys of
 * <recording-clipper>'s timeline (range-slider.ts): arrows 1 s, Shift+arrows one frame, Page Up / Page Down 10 s,
 * Home and End, I and O at the playhead; left and right mirrored right to left. Both ends are on frames, the start
 * at least a frame before the end. It encodes nothing: it shows the range it is given and says what the person chose.
 *
 * While a thumb moves, the video (paused) shows the frame where the cut lands: the first frame kept for the start, the
 * last one kept for the end. I and O take the frame the video shows, likewise: I makes it the first frame kept, O the
 * last. A click on the track moves the playhead there. The direction is the one the element is laid out in (its own
 * `dir` or its ancestors'), the sentences the ones it is given (`strings`).
 *
 * @fires trim-change - The person settled a thumb (a key released, a drag ended, I or O) and the part changed:
 * `{start, end}` in seconds. Bubbles, not composed: its owner listens on it (or on its own shadow root). Never fired
 * for a property set.
 *
 * @csspart video - The <video> of the file.
 * @csspart track - The track: the part kept, the playhead and the thumbs.
 * @csspart thumb - Each of the two thumbs.
 * @csspart length - The length kept, of the whole.
 * @csspart help - The keys' help.
 *
 * @cssprop --video-uploader-accent - The part kept, the thumbs' border and the focus ring.
 * @cssprop --video-uploader-background - Background of the thumbs.
 * @cssprop --video-uploader-border - The track.
 * @cssprop --video-uploader-text - The playhead.
 * @cssprop --video-uploader-note - The keys' help.
 * @cssprop --video-uploader-radius - Corner radius.
 */
@customElement('video-trim-editor')
export class VideoTrimEditor extends LitElement {
  static override styles = styles;

  /**
   * The video file (a File or any Blob). The element plays it from an object URL of its own, which it revokes when
   * the file changes or the element leaves the page. With another file, give its `duration`, `start` and `end` too
   * (`end` undefined: to its end). Property only.
   */
  @property({ attribute: false }) src?: Blob;

  /** Seconds of video in the file: the end of the track. Until it is more than a frame, the thumbs are disabled. */
  @property({ type: Number }) duration = 0;

  /** Frames a second: a frame, what both thumbs move to and Shift+arrow moves them by, is 1/frameRate s. */
  @property({ type: Number, attribute: 'frame-rate' }) frameRate = DEFAULT_RATE;

  /** Seconds: the first frame kept. Set by the person's moves too; a value given is put on a frame, within bounds. */
  @property({ type: Number }) start = 0;

  /**
   * Seconds: where the part ends (the first frame no longer kept); `duration` until set. Set by the person's moves
   * too; a value given is put on a frame, within bounds.
   */
  @property({ type: Number }) end?: number;

  /** The sentences, in the page's language: <video-uploader> gives its own (locale/*.ts). Property only. */
  @property({ attribute: false }) strings: TrimStrings = shrinkEn;

  /** Where the video's playhead is, in seconds. */
  @state() private playhead = 0;

  @query('video') private video?: HTMLVideoElement;
  @query('.track') private track?: HTMLElement;

  private url: string | undefined;
  private urlOf: Blob | undefined;
  /** The part when the person began to move a thumb: `trim-change` tells when it settles elsewhere. */
  private movedFrom: TrimRange | undefined;
  /** A seek was asked while the video was seeking: it goes to `seekTo` once that seek ends (one at a time). */
  private seekQueued = false;
  private seekTo = 0;

  private get rate(): number {
    return this.frameRate > 0 ? this.frameRate : DEFAULT_RATE;
  }

  /** Seconds of one frame. */
  private get frame(): number {
    return 1 / this.rate;
  }

  /** Where the part ends: `end`, or the end of the video until `end` is set. */
  private get last(): number {
    return this.end ?? this.duration;
  }

  private get ready(): boolean {
    return this.duration >= this.frame;
  }

  private get rtl(): boolean {
    return getComputedStyle(this).direction === 'rtl';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Back in the page: the object URL revoked when it left is made again.
    if (this.hasUpdated) this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.revoke();
  }

  private revoke(): void {
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = this.urlOf = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (this.src !== this.urlOf) {
      this.revoke();
      if (this.src) this.url = URL.createObjectURL(this.src);
      this.urlOf = this.src;
      this.playhead = 0;
    }
    // A part given (or a length, a frame rate): onto frames and within bounds, the end first as the start keeps
    // a frame before it.
    if (this.ready && ['start', 'end', 'duration', 'frameRate'].some((k) => changed.has(k as keyof VideoTrimEditor))) {
      this.end = Math.max(this.onFrame(this.last), this.frame);
      this.start = this.within('start', this.start);
    }
  }

  /** `seconds` onto the nearest frame, not past the end of the video (which a frame may straddle). */
  private onFrame(seconds: number): number {
    return Math.min(this.duration, tidy(Math.round(seconds * this.rate) / this.rate));
  }

  /**
   * The least and the most `thumb` may be: the start from 0 to the last frame before the end, the end from a frame
   * after the start to the end of the video.
   */
  private bounds(thumb: Thumb): [number, number] {
    if (thumb === 'end') return [tidy(this.start + this.frame), this.duration];
    return [0, Math.max(0, tidy(Math.floor((this.last - this.frame) * this.rate + 1e-6) / this.rate))];
  }

  /** `seconds` for `thumb`: onto a frame, within its bounds. */
  private within(thumb: Thumb, seconds: number): number {
    const [least, most] = this.bounds(thumb);
    return Math.min(most, Math.max(least, this.onFrame(seconds)));
  }

  /** The frame the video shows: its first moment. */
  private shownFrame(video: HTMLVideoElement): number {
    return tidy(Math.floor(video.currentTime * this.rate + 1e-3) / this.rate);
  }

  /** Moves `thumb` to `seconds` (onto a frame, within bounds) and shows the frame where the cut lands. */
  private moveThumb(thumb: Thumb, seconds: number): void {
    this.movedFrom ??= { start: this.start, end: this.last };
    this[thumb] = this.within(thumb, seconds);
    // The middle of the frame, so that rounding cannot show its neighbour.
    this.show(thumb === 'start' ? this.start + this.frame / 2 : this.last - this.frame / 2);
  }

  /** The person let go: `trim-change` if the part is not what it was when they began. */
  private settle(): void {
    const from = this.movedFrom;
    this.movedFrom = undefined;
    if (!from || (from.start === this.start && from.end === this.last)) return;
    const detail: TrimRange = { start: this.start, end: this.last };
    this.dispatchEvent(new CustomEvent('trim-change', { detail, bubbles: true }));
  }

  /** Shows the frame at `seconds` in the paused video; one seek at a time: keys held down ask for many. */
  private show(seconds: number): void {
    const video = this.video;
    if (!video) return;
    video.pause();
    this.seekTo = Math.max(0, seconds);
    if (video.seeking) this.seekQueued = true;
    else video.currentTime = this.seekTo;
  }

  private onSeeked(): void {
    const video = this.video!;
    if (this.seekQueued && video.paused) video.currentTime = this.seekTo;
    this.seekQueued = false;
    this.playhead = video.currentTime;
  }

  private onThumbKey(thumb: Thumb, event: KeyboardEvent): void {
    if (!this.ready) return;
    // Left and right go the way the track is laid out, as a native range input's do: right is earlier right to left.
    const move = sliderMove(trackKey(event.key, this.rtl), event.shiftKey, this.frame);
    if (!move) return;
    event.preventDefault();
    const [least, most] = this.bounds(thumb);
    this.moveThumb(thumb, 'to' in move ? (move.to === 'least' ? least : most) : this[thumb]! + move.by);
  }

  /** I and O, from anywhere in the element: the frame the video shows becomes the first kept, or the last. */
  private onKey = (event: KeyboardEvent): void => {
    const mark = markKey(event);
    const video = this.video;
    if (!mark || !video || !this.ready) return;
    event.preventDefault();
    this.movedFrom ??= { start: this.start, end: this.last };
    const shown = this.shownFrame(video);
    this[mark] = this.within(mark, mark === 'start' ? shown : shown + this.frame);
  };

  private onDrag(thumb: Thumb, event: PointerEvent): void {
    if (!this.ready) return;
    const track = this.track!;
    drag(
      event.currentTarget as HTMLElement,
      event,
      (e) => this.moveThumb(thumb, secondsAt(track, e.clientX, this.duration, this.rtl)),
      () => this.settle(),
    );
  }

  /** A click on the track (not on a thumb) moves the playhead there: the middle of the frame under the pointer. */
  private onTrack(event: PointerEvent): void {
    const video = this.video;
    if ((event.target as HTMLElement).getAttribute('role') === 'slider' || !video || !this.ready) return;
    const seconds = secondsAt(event.currentTarget as HTMLElement, event.clientX, this.duration, this.rtl);
    const frame = Math.min(Math.floor(seconds * this.rate), Math.ceil(this.duration * this.rate) - 1);
    video.currentTime = (frame + 0.5) / this.rate;
    this.playhead = video.currentTime;
  }

  protected override firstUpdated(): void {
    this.renderRoot.addEventListener('keydown', this.onKey as EventListener);
    this.renderRoot.addEventListener('keyup', () => this.settle());
  }

  private at(seconds: number): string {
    return `${this.duration > 0 ? (Math.min(seconds, this.duration) / this.duration) * 100 : 0}%`;
  }

  protected override render() {
    const t = this.strings;
    const end = this.last;
    return html`<div role="group" aria-label=${t.trimLabel}>
      <video
        part="video"
        src=${ifDefined(this.url)}
        muted
        playsinline
        controls
        preload="metadata"
        @timeupdate=${() => (this.playhead = this.video!.currentTime)}
        @seeked=${this.onSeeked}
      ></video>
      <div part="track" class="track" @pointerdown=${this.onTrack}>
        <div
          class="range"
          style=${styleMap({ 'inset-inline-start': this.at(this.start), 'inline-size': this.at(end - this.start) })}
        ></div>
        <div class="playhead" style=${styleMap({ 'inset-inline-start': this.at(this.playhead) })}></div>
        ${this.renderThumb('start', t.trimStart, this.start)} ${this.renderThumb('end', t.trimEnd, end)}
      </div>
      <p part="length" class="length">${t.trimKeeps(formatDuration(end - this.start), formatDuration(this.duration))}</p>
      <p part="help" id="keys" class="help">${t.trimKeys}</p>
    </div>`;
  }

  private renderThumb(thumb: Thumb, label: string, value: number) {
    const [least, most] = this.bounds(thumb);
    const text = timecode(value, { hours: this.duration >= 3600 });
    return html`<div
      part="thumb"
      class="thumb ${thumb}"
      role="slider"
      tabindex=${this.ready ? 0 : -1}
      aria-label=${label}
      aria-valuemin=${ariaSeconds(least)}
      aria-valuemax=${ariaSeconds(most)}
      aria-valuenow=${ariaSeconds(value)}
      aria-valuetext=${text}
      aria-disabled=${this.ready ? 'false' : 'true'}
      aria-describedby="keys"
      title=${`${label}: ${text}`}
      style=${styleMap({ 'inset-inline-start': this.at(value) })}
      @keydown=${(e: KeyboardEvent) => this.onThumbKey(thumb, e)}
      @pointerdown=${(e: PointerEvent) => this.onDrag(thumb, e)}
    ></div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'video-trim-editor': VideoTrimEditor;
  }
  interface HTMLElementEventMap {
    'trim-change': CustomEvent<TrimRange>;
  }
}
