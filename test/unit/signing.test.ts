import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../service/domain/errors.js';
import { UrlSigner } from '../../service/storage/signing.js';

const signer = new UrlSigner(Buffer.alloc(32, 7), () => ['http://127.0.0.1:4501', 'http://127.0.0.2:4501']);
const NOW = Date.parse('2026-11-23T12:00:00Z');
const refused = (code: string) => (e: unknown) => e instanceof ServiceError && e.code === code;

describe('signed storage URLs (service/storage/signing.ts)', () => {
  it('a signed URL is good for its own path until it expires', () => {
    const url = new URL(signer.sign('/chunks/mpu_x/1', NOW + 60_000));
    assert.equal(url.origin, 'http://127.0.0.1:4501');
    signer.verify(url, NOW);
    signer.verify(url, NOW + 59_999);
    assert.throws(() => signer.verify(url, NOW + 60_000), refused('signature_expired'));
  });

  it('refuses another path, a changed expiry, a missing or altered signature, and another secret', () => {
    const url = new URL(signer.sign('/chunks/mpu_x/1', NOW + 60_000));
    const other = new URL(url);
    other.pathname = '/chunks/mpu_x/2';
    const later = new URL(url);
    later.searchParams.set('expires', String(NOW + 3_600_000));
    const unsigned = new URL(url);
    unsigned.searchParams.delete('signature');
    const altered = new URL(url);
    altered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -1)}A`);
    const foreign = new URL(
      new UrlSigner(Buffer.alloc(32, 8), () => ['http://127.0.0.1:4501']).sign('/chunks/mpu_x/1', NOW + 60_000),
    );
    for (const bad of [other, later, unsigned, altered, foreign])
      assert.throws(() => signer.verify(bad, NOW), refused('invalid_signature'), bad.href);
  });

  it('names the host the caller picks, round the hosts, and a URL is good on every host (the host is not signed)', () => {
    const urls = [0, 1, 2].map((slot) => new URL(signer.sign('/chunks/mpu_x/1', NOW + 60_000, slot)));
    assert.deepEqual(
      urls.map((url) => url.origin),
      ['http://127.0.0.1:4501', 'http://127.0.0.2:4501', 'http://127.0.0.1:4501'],
    );
    assert.equal(new Set(urls.map((url) => url.pathname + url.search)).size, 1, 'one path and signature on each');
    const elsewhere = new URL(urls[1]!);
    elsewhere.host = '198.18.0.2:4502';
    for (const url of [...urls, elsewhere]) signer.verify(url, NOW);
  });
});
