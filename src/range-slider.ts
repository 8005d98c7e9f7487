/**
 * A part of a video chosen by two thumbs on a track: what a key or a pointer asks of a thumb. The keys follow
 * WAI-ARIA's slider pattern (https://www.w3.org/WAI/ARIA/apg/patterns/slider/), with I and O as video editors have
 * them; the element that shows the track decides what a move does to its part.
 */

/** Seconds to the millisecond, as the sliders say them (`aria-valuenow`). */
export const ariaSeconds = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** Seconds Page Up and Page Down move a thumb. */
const PAGE = 10;

/** A key's move of a thumb: by seconds (down is negative), or to the least or the most it may be. */
export type SliderMove = { by: number } | { to: 'least' | 'most' };

/**
 * What a key does to a thumb: arrows 1 s (Shift+arrow `fine`, a frame where the thumb goes to the frame), Page Up /
 * Page Down 10 s, Home and End to the ends. Undefined for any other key.
 */
export function sliderMove(key: string, shift: boolean, fine: number): SliderMove | undefined {
  if (key === 'Home') return { to: 'least' };
  if (key === 'End') return { to: 'most' };
  const up = ['ArrowRight', 'ArrowUp', 'PageUp'].includes(key);
  const down = ['ArrowLeft', 'ArrowDown', 'PageDown'].includes(key);
  if (!up && !down) return undefined;
  const step = key.startsWith('Page') ? PAGE : shift ? fine : 1;
  return { by: up ? step : -step };
}

/** Left and right as a right-to-left track takes them. */
const MIRRORED: Record<string, string> = { ArrowLeft: 'ArrowRight', ArrowRight: 'ArrowLeft' };

/** The key as the track is laid out: right to left, right is earlier, as on a native range input. */
export const trackKey = (key: string, rtl: boolean): string => (rtl ? (MIRRORED[key] ?? key) : key);

/**
 * I and O, which set the start and the end at the playhead: `start`, `end`, or undefined for any other key (or with
 * Ctrl, Alt or Meta, the page's and the system's shortcuts).
 */
export function markKey(
  event: Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'altKey'>,
): 'start' | 'end' | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  // The key that types i or o; on a layout of another script (Arabic, Hebrew, Russian…), the key in their place. A
  // key that types another Latin letter is that letter (on Dvorak, C is where QWERTY's I is).
  const typed = event.key.toLowerCase();
  const latin = /^[a-z]$/.test(typed);
  const key = latin ? typed : event.code === 'KeyI' ? 'i' : event.code === 'KeyO' ? 'o' : typed;
  return key === 'i' ? 'start' : key === 'o' ? 'end' : undefined;
}

/** Seconds at `clientX` along `track`, which stands for `length` seconds (laid out right to left with `rtl`). */
export function secondsAt(track: Element, clientX: number, length: number, rtl: boolean): number {
  const rect = track.getBoundingClientRect();
  const ratio = Math.min(1, Math.max(0, (clientX - rect.left) / rect.width));
  return (rtl ? 1 - ratio : ratio) * length;
}

/**
 * Follows the pointer pressed on `thumb` (`down`): `move` hears each of its moves, `end` once when the drag ends,
 * however the pointer goes: released, cancelled (a touch taken by the page's scroll), or its capture lost.
 */
export function drag(thumb: HTMLElement, down: PointerEvent, move: (e: PointerEvent) => void, end = () => {}): void {
  thumb.setPointerCapture(down.pointerId);
  thumb.focus();
  const dragging = new AbortController();
  const stop = () => {
    if (dragging.signal.aborted) return;
    dragging.abort();
    end();
  };
  thumb.addEventListener('pointermove', move, { signal: dragging.signal });
  for (const name of ['pointerup', 'pointercancel', 'lostpointercapture'])
    thumb.addEventListener(name, stop, { signal: dragging.signal });
  down.preventDefault();
}
