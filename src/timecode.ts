/** Time codes, as sliders say them (`aria-valuetext`) and fields show them, and as a person types them. */

/** `hh:mm:ss.mmm`; `mm:ss.mmm` without `hours` (the minutes then count on past 59). */
export function timecode(seconds: number, { hours = true } = {}): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const minutes = Math.floor(ms / 60_000);
  const clock = `${two(hours ? minutes % 60 : minutes)}:${two(Math.floor(ms / 1000) % 60)}.${String(ms % 1000).padStart(3, '0')}`;
  return hours ? `${two(Math.floor(ms / 3_600_000))}:${clock}` : clock;
}

/** Seconds from `hh:mm:ss.mmm`, `mm:ss.mmm` or `ss.mmm` (milliseconds optional); undefined for anything else. */
export function parseTimecode(text: string): number | undefined {
  const match = /^\s*(?:(?:(\d+):)?([0-5]?\d):)?([0-5]?\d|\d+)(?:\.(\d{1,3}))?\s*$/.exec(text);
  if (!match) return undefined;
  const [, h = '0', m = '0', s = '0', ms = '0'] = match;
  if ((match[1] !== undefined || match[2] !== undefined) && Number(s) > 59) return undefined;
  return Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms.padEnd(3, '0')) / 1000;
}
