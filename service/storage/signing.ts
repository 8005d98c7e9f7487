import { createHmac, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../domain/errors.js';

/**
 * Signed storage URLs (#2, #4). The signature is an HMAC-SHA256 over the method, the path (which names
 * the link, or the session key and the chunk) and the expiry, so a URL is good for its own target only,
 * and until its expiry only. No Authorization header is needed or read (spec: Authentication 3).
 *
 * Decision (issue 32): the host is not signed. A URL names one of the storage origin's hosts (`--storage-hosts`),
 * chosen by the caller's `slot`, and is good on every one of them, and on another API process's storage origin of
 * the same fleet (its secret is the database's): a link stays one path and one signature, whichever host it names.
 */
export class UrlSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly origins: () => string[],
  ) {}

  private mac(path: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`PUT\n${path}\n${expires}`).digest('base64url');
  }

  /** The URL of `path` on host `slot` (counted round the hosts), good until `expires`. */
  sign(path: string, expires: number, slot = 0): string {
    const origins = this.origins();
    const url = new URL(path, origins[slot % origins.length]);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('signature', this.mac(path, expires));
    return url.toString();
  }

  /** Throws 403 for a missing, tampered or expired signature. */
  verify(url: URL, now: number): void {
    const expires = Number(url.searchParams.get('expires'));
    const given = Buffer.from(url.searchParams.get('signature') ?? '');
    const wanted = Buffer.from(this.mac(url.pathname, expires));
    if (!Number.isSafeInteger(expires) || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      throw new ServiceError('invalid_signature', 'The upload URL signature is missing or does not match this URL.');
    }
    if (now >= expires) {
      throw new ServiceError(
        'signature_expired',
        `The upload URL expired at ${new Date(expires).toISOString()}; ask the service for a new one.`,
      );
    }
  }
}
