import { VideoServiceError } from './errors.js';

/**
 * The retry policy of the element, for service calls and chunk PUTs alike. Written here only.
 *
 *  - Retried: network errors (status 0), 408, 429, 500, 502, 503, 504. Nothing else: any other 4xx
 *    says the request itself is wrong, and sending it again cannot fix it.
 *  - Tries: 6 in all (the first and 5 retries) per request; a chunk is retried alone, and a finished
 *    chunk is never sent again.
 *  - Delays: exponential from 1 s (1, 2, 4, 8, 16 s, at most 30 s), each with jitter (a random 50-100 %
 *    of it), so many clients failing together do not come back together. A 429 or 503 that carries
 *    `Retry-After` waits what it says instead (at most 5 minutes).
 *  - Offline: while the browser says it is offline, no request is made and no try is spent: each try,
 *    the first included, waits until the browser is online.
 *  - A 403 from the storage on a chunk means its signed URL expired: the chunk gets a fresh URL from #4
 *    and is sent again (upload/put.ts); a 401 from the service gets a fresh token once (client.ts).
 */
export const RETRY_TRIES = 6;
const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
const MAX_RETRY_AFTER_MS = 5 * 60_000;

export function isRetryableStatus(status: number): boolean {
  return (
    status === 0 ||
    status === 408 ||
    status === 429 ||
    status === 500 ||
    status === 502 ||
    status === 503 ||
    status === 504
  );
}

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** How long to wait before retry number `retry` (1 for the first retry). */
export function retryDelayMs(retry: number, retryAfterSeconds?: number, random = Math.random): number {
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
  const exponential = Math.min(BASE_DELAY_MS * 2 ** (retry - 1), MAX_DELAY_MS);
  return Math.round(exponential * (0.5 + random() / 2));
}

const offline = () => globalThis.navigator?.onLine === false;

/** Resolves at once when the browser is online, else at its `online` event; rejects when `signal` aborts. */
export function whenOnline(signal?: AbortSignal): Promise<void> {
  return wait(0, signal);
}

/** Resolves after `ms`, and only once the browser is online; rejects when `signal` aborts. */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ms <= 0 && !offline() && !signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      globalThis.removeEventListener?.('online', onOnline);
      reject(signal!.reason ?? new DOMException('Aborted', 'AbortError'));
    };
    const onOnline = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const timer = setTimeout(() => {
      if (offline()) globalThis.addEventListener('online', onOnline, { once: true });
      else onOnline();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs `attempt` under the policy above; `onRetry` hears of each retry before its wait. */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  {
    signal,
    onRetry,
  }: { signal?: AbortSignal; onRetry?: (err: VideoServiceError, retry: number, delayMs: number) => void } = {},
): Promise<T> {
  for (let retry = 1; ; retry++) {
    await whenOnline(signal);
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof VideoServiceError) || !err.retryable || retry >= RETRY_TRIES || signal?.aborted) throw err;
      const delay = retryDelayMs(retry, err.retryAfter);
      onRetry?.(err, retry, delay);
      await wait(delay, signal);
    }
  }
}
