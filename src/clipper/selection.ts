/**
 * The clipper's selection, as #10 needs it: a start placed to the frame, and a length in whole seconds (the
 * spec's `duration`), so the end moves in whole seconds from the start. Seconds count from the recording's
 * start on the player's timeline; `edge` is how much of it is recorded (the live edge while live).
 */
export interface Selection {
  start: number;
  /** Whole seconds, 1 or more. */
  duration: number;
}

export interface Bounds {
  /** Seconds recorded. */
  edge: number;
  /** Seconds of one frame. */
  frame: number;
}

export type Thumb = 'start' | 'end';

/** Away from float noise: frames of 1/30 s added up stay on their microsecond. */
const tidy = (s: number) => Math.round(s * 1e6) / 1e6;
const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));

/** The longest part that fits after `start`, in whole seconds (at least 1). */
export const longest = (start: number, edge: number) => Math.max(1, Math.floor(edge - start + 1e-6));

/** The start in [0, edge − 1] and the length in whole seconds that fit before the edge. */
export function fit(selection: Selection, { edge }: Bounds): Selection {
  const start = tidy(clamp(selection.start, 0, Math.max(0, edge - 1)));
  return { start, duration: clamp(Math.round(selection.duration), 1, longest(start, edge)) };
}

/** Moves the start to `start`, keeping the end where it was as nearly as whole seconds allow (at least 1 s after). */
export function moveStart(selection: Selection, start: number, bounds: Bounds): Selection {
  const end = selection.start + selection.duration;
  const at = tidy(clamp(start, 0, Math.max(0, bounds.edge - 1)));
  return fit({ start: at, duration: Math.round(end - at) }, bounds);
}

/** Moves the end to `end`, rounded to whole seconds from the start. */
export const moveEnd = (selection: Selection, end: number, bounds: Bounds): Selection =>
  fit({ start: selection.start, duration: Math.round(end - selection.start) }, bounds);

/**
 * What a key does to a thumb, after the WAI-ARIA slider pattern: arrows 1 s (Shift+arrow: the start one frame),
 * Page Up / Page Down 10 s, Home and End to the ends. Undefined for any other key.
 */
export function keyStep(
  selection: Selection,
  thumb: Thumb,
  key: string,
  shift: boolean,
  bounds: Bounds,
): Selection | undefined {
  const up = ['ArrowRight', 'ArrowUp', 'PageUp'].includes(key);
  const down = ['ArrowLeft', 'ArrowDown', 'PageDown'].includes(key);
  if (!up && !down && key !== 'Home' && key !== 'End') return undefined;
  const step = key.startsWith('Page') ? 10 : shift && thumb === 'start' ? bounds.frame : 1;
  const delta = up ? step : -step;
  const end = selection.start + selection.duration;
  if (thumb === 'start') {
    if (key === 'Home') return moveStart(selection, 0, bounds);
    if (key === 'End') return moveStart(selection, end - 1, bounds);
    return moveStart(selection, selection.start + delta, bounds);
  }
  if (key === 'Home') return fit({ ...selection, duration: 1 }, bounds);
  if (key === 'End') return fit({ ...selection, duration: longest(selection.start, bounds.edge) }, bounds);
  return fit({ ...selection, duration: selection.duration + delta }, bounds);
}

/** `hh:mm:ss.mmm`. */
export function timecode(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(ms / 3_600_000))}:${two(Math.floor(ms / 60_000) % 60)}:${two(Math.floor(ms / 1000) % 60)}.${String(ms % 1000).padStart(3, '0')}`;
}

/** Seconds from `hh:mm:ss.mmm`, `mm:ss.mmm` or `ss.mmm` (milliseconds optional); undefined for anything else. */
export function parseTimecode(text: string): number | undefined {
  const match = /^\s*(?:(?:(\d+):)?([0-5]?\d):)?([0-5]?\d|\d+)(?:\.(\d{1,3}))?\s*$/.exec(text);
  if (!match) return undefined;
  const [, h = '0', m = '0', s = '0', ms = '0'] = match;
  if ((match[1] !== undefined || match[2] !== undefined) && Number(s) > 59) return undefined;
  return Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms.padEnd(3, '0')) / 1000;
}
