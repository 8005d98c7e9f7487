/**
 * The service's one source of time. Every timed rule of the spec (session and link expiry,
 * retention, webhook retries) reads `now()`, so tests move time with `advance()` through
 * POST /__test__/clock instead of waiting six hours.
 */
export interface Clock {
  now(): number;
  advance(ms: number): number;
}

export function systemClock(): Clock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += ms;
      return Date.now() + offset;
    },
  };
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** A clock that stands still until `advance` moves it: fast tests of the timed rules (test/unit). */
export function testClock(start = Date.UTC(2026, 0, 1)): Clock {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}
