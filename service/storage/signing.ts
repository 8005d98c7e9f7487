import { createHmac, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../domain/errors.js';

/**
 * Signed storage URLs (#2, #4). The signature is an HMAC-SHA256 over the method, the path (which names
 * the link, or the session key and the chunk) and the expiry, so a URL is good for its own target only,
 * and until its expiry only. No Authorization header is needed or read (spec: Authentication 3).
 */
export class UrlSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly origin: () => string,
  ) {}

  private mac(path: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`PUT\n${path}\n${expires}`).digest('base64url');
  }

  sign(path: string, expires: number): string {
    const url = new URL(path, this.origin());
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
