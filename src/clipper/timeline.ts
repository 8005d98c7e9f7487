import { html, LitElement, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { styleMap } from 'lit/directives/style-map.js';
import { clipperEn, type ClipperStrings } from '../locale/clipper.js';
import { ariaSeconds, drag, secondsAt, trackKey } from '../range-slider.js';
import { timecode } from '../timecode.js';
import { keyStep, longest, type Selection, type Thumb } from './selection.js';
import type { Tile } from './storyboard.js';
import { styles } from './timeline.styles.js';

/** Thumbnails along the track, whatever the recording's length. */
const TILES = 10;

/** What the timeline asks of its owner; it moves nothing itself. */
export interface TimelineRequests {
  /** Move a thumb to `seconds` (the start onto a frame: the keys and the drag step by frames). */
  'thumb-request': { thumb: Thumb; seconds: number };
  /** Move the playhead to `seconds` (a click on the track). */
  'seek-request': { seconds: number };
}

/** Asks the clipper, in its shadow root (not composed: the page never sees these). */
function request<K extends keyof TimelineRequests>(from: Element, name: K, detail: TimelineRequests[K]): void {
  from.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
}

/**
 * <recording-clipper>'s timeline: the storyboard, the selected part, the playhead and the part's two thumbs
 * (`role="slider"`, WAI-ARIA's slider pattern for the keys). It shows the state it is given and asks for every change
 * by an event (as media-chrome's controls do); <recording-clipper> decides and gives it the new state.
 *
 * @fires thumb-request - A key or a drag asks to move a thumb: `{thumb, seconds}`. Bubbles, not composed.
 * @fires seek-request - A click on the track asks to move the playhead: `{seconds}`. Bubbles, not composed.
 *
 * @csspart thumb - Each of the two thumbs.
 *
 * @cssprop --video-uploader-accent - The selected part, the thumbs and the focus ring.
 * @cssprop --video-uploader-background - Background of the thumbs.
 * @cssprop --video-uploader-border - The track, and the storyboard until it has loaded.
 * @cssprop --video-uploader-text - The playhead.
 * @cssprop --video-uploader-note - The keys' help.
 * @cssprop --video-uploader-radius - Corner radius.
 */
@customElement('recording-clipper-timeline')
export class RecordingClipperTimeline extends LitElement {
  static override styles = styles;

  /** Seconds recorded: the end of the track. */
  @property({ type: Number }) edge = 0;

  /** Seconds of one frame: what Shift+arrow moves the start by. */
  @property({ type: Number }) frame = 1 / 30;

  /** The selected part: its start and its whole seconds. */
  @property({ attribute: false }) selection: Selection = { start: 0, duration: 10 };

  /** Where the playhead is, in seconds. */
  @property({ type: Number }) playhead = 0;

  /** The storyboard's thumbnails, empty until it has loaded. */
  @property({ attribute: false }) tiles: Tile[] = [];

  /** The clipper's sentences in its language. */
  @property({ attribute: false }) strings: ClipperStrings = clipperEn;

  /**
   * `rtl` to lay the track out right to left: the clipper gives the timeline its own direction. A property (reflected,
   * as the global attribute it is) so that a change lays the timeline out again.
   */
  @property({ reflect: true }) override dir = 'ltr';

  private get rtl(): boolean {
    return this.dir === 'rtl';
  }

  private onThumbKey(thumb: Thumb, event: KeyboardEvent): void {
    // Left and right go the way the track is laid out, as a native range input's do: right is earlier right to left.
    const key = trackKey(event.key, this.rtl);
    const next = keyStep(this.selection, thumb, key, event.shiftKey, { edge: this.edge, frame: this.frame });
    if (!next) return;
    event.preventDefault();
    request(this, 'thumb-request', { thumb, seconds: thumb === 'start' ? next.start : next.start + next.duration });
  }

  private onDrag(thumb: Thumb, event: PointerEvent): void {
    const target = event.currentTarget as HTMLElement;
    const track = target.parentElement!;
    drag(target, event, (e) => {
      const seconds = secondsAt(track, e.clientX, this.edge, this.rtl);
      request(this, 'thumb-request', {
        thumb,
        seconds: thumb === 'start' ? Math.round(seconds / this.frame) * this.frame : seconds,
      });
    });
  }

  /** A click on the track (not on a thumb) asks for the playhead there. */
  private onTrack(event: PointerEvent): void {
    if ((event.target as HTMLElement).getAttribute('role') === 'slider') return;
    const seconds = secondsAt(event.currentTarget as HTMLElement, event.clientX, this.edge, this.rtl);
    request(this, 'seek-request', { seconds });
  }

  private at(seconds: number): string {
    return `${this.edge > 0 ? (seconds / this.edge) * 100 : 0}%`;
  }

  private get side(): 'left' | 'right' {
    return this.rtl ? 'right' : 'left';
  }

  protected override render() {
    const t = this.strings;
    const { start, duration } = this.selection;
    const end = start + duration;
    return html`<div class="timeline" role="group" aria-label=${t.timelineLabel} aria-describedby="keys">
      <div class="strip" aria-hidden="true">${this.tiles.length ? this.renderStrip() : nothing}</div>
      <div class="track" @pointerdown=${this.onTrack}>
        <div class="range" style=${styleMap({ [this.side]: this.at(start), width: this.at(duration) })}></div>
        <div class="playhead" style=${styleMap({ [this.side]: this.at(Math.min(this.playhead, this.edge)) })}></div>
        ${this.renderThumb('start', start, 0, Math.max(0, end - 1))}
        ${this.renderThumb('end', end, start + 1, start + longest(start, this.edge))}
      </div>
      <p id="keys" class="help">${t.keysHelp}</p>
    </div>`;
  }

  private renderThumb(thumb: Thumb, value: number, min: number, max: number) {
    const t = this.strings;
    const label = thumb === 'start' ? t.start : t.end;
    const ready = this.edge >= 1;
    return html`<div
      part="thumb"
      class="thumb ${thumb}"
      role="slider"
      tabindex=${ready ? 0 : -1}
      aria-label=${label}
      aria-valuemin=${ariaSeconds(min)}
      aria-valuemax=${ariaSeconds(max)}
      aria-valuenow=${ariaSeconds(value)}
      aria-valuetext=${timecode(value)}
      aria-disabled=${ready ? 'false' : 'true'}
      aria-describedby="keys"
      title=${`${label} ${timecode(value)} (${t.liveEdge}: ${timecode(this.edge)})`}
      style=${styleMap({ [this.side]: this.at(value) })}
      @keydown=${(e: KeyboardEvent) => this.onThumbKey(thumb, e)}
      @pointerdown=${(e: PointerEvent) => this.onDrag(thumb, e)}
    ></div>`;
  }

  private renderStrip() {
    return Array.from({ length: TILES }, (_, i) => {
      const time = ((i + 0.5) / TILES) * this.edge;
      const tile = this.tiles.find((c) => time < c.end) ?? this.tiles.at(-1)!;
      return html`<span class="tile" style=${styleMap(tile.style)}></span>`;
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'recording-clipper-timeline': RecordingClipperTimeline;
  }
}
