import { sliderMove } from '../range-slider.js';

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
 * What a key does to a thumb (range-slider.ts: arrows 1 s, Page Up / Page Down 10 s, Home and End to the ends); Shift
 * moves the start one frame and the end, whose length is whole seconds, 1 s. Undefined for any other key.
 */
export function keyStep(
  selection: Selection,
  thumb: Thumb,
  key: string,
  shift: boolean,
  bounds: Bounds,
): Selection | undefined {
  const move = sliderMove(key, shift, thumb === 'start' ? bounds.frame : 1);
  if (!move) return undefined;
  const end = selection.start + selection.duration;
  if (thumb === 'start') {
    if ('to' in move) return moveStart(selection, move.to === 'least' ? 0 : end - 1, bounds);
    return moveStart(selection, selection.start + move.by, bounds);
  }
  if ('to' in move)
    return fit({ ...selection, duration: move.to === 'least' ? 1 : longest(selection.start, bounds.edge) }, bounds);
  return fit({ ...selection, duration: selection.duration + move.by }, bounds);
}
