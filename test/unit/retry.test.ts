import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VideoServiceError } from '../../src/api/errors.js';
import { isRetryableStatus, parseRetryAfter, RETRY_TRIES, retryDelayMs, wait, withRetry } from '../../src/api/retry.js';
import { expiryMs } from '../../src/api/token.js';

describe('retry policy (src/api/retry.ts)', () => {
  it('retries network errors, 408, 429 and 5xx gateway statuses, and nothing else', () => {
    for (const status of [0, 408, 429, 500, 502, 503, 504])
      assert.equal(isRetryableStatus(status), true, String(status));
    for (const status of [200, 400, 401, 403, 404, 409, 410, 413, 422, 501, 505])
      assert.equal(isRetryableStatus(status), false, String(status));
  });

  it('waits 1, 2, 4, 8, 16 s with 50-100 % jitter, never over 30 s', () => {
    const low = () => 0;
    const high = () => 0.999999;
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((r) => retryDelayMs(r, undefined, low)),
      [500, 1000, 2000, 4000, 8000],
    );
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((r) => retryDelayMs(r, undefined, high)),
      [1000, 2000, 4000, 8000, 16000],
    );
    assert.equal(retryDelayMs(10, undefined, high), 30_000);
  });

  it('waits what Retry-After says instead, at most 5 minutes', () => {
    assert.equal(retryDelayMs(1, 2), 2000);
    assert.equal(retryDelayMs(4, 0), 0);
    assert.equal(retryDelayMs(1, 3600), 300_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7);
    assert.equal(parseRetryAfter(' 120 ', now), 120);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 12:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now), 0, 'a date in the past means now');
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
  });

  it('makes 6 tries of a retryable failure, then gives up with the last error', async () => {
    let tries = 0;
    const err = new VideoServiceError('bad gateway', 502, 'http_error', true, 0);
    await assert.rejects(
      withRetry(async () => {
        tries++;
        throw err;
      }),
      (e) => e === err,
    );
    assert.equal(tries, RETRY_TRIES);
    assert.equal(RETRY_TRIES, 6);
  });

  it('makes one try of a failure retrying cannot fix', async () => {
    let tries = 0;
    await assert.rejects(
      withRetry(async () => {
        tries++;
        throw new VideoServiceError('bad request', 400, 'invalid', false);
      }),
    );
    assert.equal(tries, 1);
  });
});

describe('wait() while the browser is offline', () => {
  // Node has no window: give it the two things wait() reads, navigator.onLine and the online event.
  const events = new EventTarget();
  const browser = globalThis as unknown as {
    navigator: { onLine: boolean };
    addEventListener: EventTarget['addEventListener'];
    removeEventListener: EventTarget['removeEventListener'];
  };
  Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true, writable: true });
  browser.addEventListener = events.addEventListener.bind(events);
  browser.removeEventListener = events.removeEventListener.bind(events);

  it('holds past its delay until the browser is online again, then resolves', async () => {
    browser.navigator.onLine = false;
    let done = false;
    const waited = wait(10).then(() => (done = true));
    // Its 10 ms are long over; it still holds, and goes on only at the online event.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(done, false, 'still waiting while offline');
    browser.navigator.onLine = true;
    events.dispatchEvent(new Event('online'));
    await waited;
    assert.equal(done, true);
  });

  it('resolves after its delay when online', async () => {
    browser.navigator.onLine = true;
    const started = Date.now();
    await wait(50);
    assert.ok(Date.now() - started >= 45);
  });

  it('makes no try while offline, the first included, and makes it at the online event', async () => {
    browser.navigator.onLine = false;
    let tries = 0;
    const result = withRetry(async () => ++tries);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(tries, 0, 'no try while offline');
    browser.navigator.onLine = true;
    events.dispatchEvent(new Event('online'));
    assert.equal(await result, 1);
  });

  it('rejects when aborted while it holds offline', async () => {
    browser.navigator.onLine = false;
    const abort = new AbortController();
    const waited = wait(10, abort.signal);
    await new Promise((r) => setTimeout(r, 50));
    abort.abort(new DOMException('stop', 'AbortError'));
    await assert.rejects(waited, { name: 'AbortError' });
    browser.navigator.onLine = true;
  });
});

describe('expiryMs (token expiresAt)', () => {
  it('takes milliseconds, seconds or ISO 8601, and no expiry as never', () => {
    assert.equal(expiryMs(1_735_689_600_000), 1_735_689_600_000);
    assert.equal(expiryMs(1_735_689_600), 1_735_689_600_000);
    assert.equal(expiryMs('2025-01-01T00:00:00Z'), 1_735_689_600_000);
    assert.equal(expiryMs(undefined), Infinity);
  });

  it('refuses a string that is not a date, naming it', () => {
    assert.throws(() => expiryMs('tomorrow'), /"tomorrow" is not a date/);
  });
});
