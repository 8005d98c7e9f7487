import { VideoServiceError } from './errors.js';

/** What a token provider may return: the token, or the token and when it expires. */
export type TokenResult = string | { token: string; expiresAt?: number | string };
/** Returns an access token of the video service (from the integrator's backend, usually). */
export type TokenProvider = () => Promise<TokenResult>;

/** A token is renewed this long before it expires, so no request leaves with one about to die. */
const EXPIRY_MARGIN_MS = 30_000;

/** `expiresAt` as milliseconds: a number of ms (13 digits) or seconds (10 digits), or an ISO 8601 string. */
export function expiryMs(expiresAt: number | string | undefined): number {
  if (expiresAt === undefined) return Infinity;
  if (typeof expiresAt === 'number') return expiresAt < 1e11 ? expiresAt * 1000 : expiresAt;
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms))
    throw new VideoServiceError(`The token's expiresAt ${JSON.stringify(expiresAt)} is not a date.`, 0, 'token', false);
  return ms;
}

/**
 * Asks the provider lazily, caches the token until `expiresAt` minus a margin, and shares one call
 * among concurrent callers. Kept in memory only: never in localStorage, sessionStorage or IndexedDB.
 */
export class TokenCache {
  private cached: { token: string; expires: number } | undefined;
  private pending: Promise<{ token: string; expires: number }> | undefined;

  constructor(private readonly provider: TokenProvider) {}

  async get(): Promise<string> {
    if (this.cached && this.cached.expires - EXPIRY_MARGIN_MS > Date.now()) return this.cached.token;
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    this.cached = await this.pending;
    return this.cached.token;
  }

  /** Forgets `token` after the service refused it (401), unless a newer one was fetched meanwhile. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetch(): Promise<{ token: string; expires: number }> {
    let result: TokenResult;
    try {
      result = await this.provider();
    } catch (err) {
      if (err instanceof VideoServiceError) throw err;
      throw new VideoServiceError(`The token provider failed: ${(err as Error).message}`, 0, 'token', true);
    }
    const token = typeof result === 'string' ? result : result?.token;
    if (typeof token !== 'string' || token === '') {
      throw new VideoServiceError(
        'The token provider returned no token (expected a string or {token, expiresAt}).',
        0,
        'token',
        false,
      );
    }
    return { token, expires: typeof result === 'string' ? Infinity : expiryMs(result.expiresAt) };
  }
}

/**
 * The token provider behind the `token-url` attribute. Decision: POST to the URL (same-origin
 * cookies go along) and expect JSON `{token, expiresAt}`, `expiresAt` in ms since the epoch or ISO 8601.
 */
export function tokenFromUrl(url: string): TokenProvider {
  return async () => {
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json' } });
    } catch {
      throw new VideoServiceError(`The token URL ${url} could not be reached.`, 0, 'network', true);
    }
    if (!res.ok)
      throw new VideoServiceError(
        `The token URL ${url} answered ${res.status}.`,
        res.status,
        'token',
        res.status >= 500,
      );
    const body = (await res.json().catch(() => null)) as { token?: unknown; expiresAt?: unknown } | null;
    if (typeof body?.token !== 'string') {
      throw new VideoServiceError(
        `The token URL ${url} did not answer with JSON {token, expiresAt}.`,
        res.status,
        'token',
        false,
      );
    }
    return { token: body.token, expiresAt: body.expiresAt as number | string | undefined };
  };
}
