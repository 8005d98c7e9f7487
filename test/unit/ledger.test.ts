import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkLedger, type LedgerEntry } from '../../src/upload/ledger.js';

/** localStorage as two tabs share it. */
class Shared {
  data = new Map<string, string>();
  full = false;
  getItem = (k: string) => this.data.get(k) ?? null;
  setItem = (k: string, v: string) => {
    if (this.full) throw new Error('QuotaExceededError');
    this.data.set(k, v);
  };
}

const entry = (
  key: string,
  fingerprint = `fp-${key}`,
  expiresAt = Date.now() + 3_600_000,
): Omit<LedgerEntry, 'chunks'> => ({
  fingerprint,
  baseUrl: 'https://api.example',
  videoId: `video-${key}`,
  name: 'a.mp4',
  session: { key, expiresAt },
  plan: { method: 'multipart', chunkSize: 5 * 1024 * 1024, chunks: 3 },
});

describe('chunk ledger (src/upload/ledger.ts)', () => {
  it("lists each finished chunk's ETag exactly as received, and finds a file's unfinished upload", () => {
    const ledger = new ChunkLedger(new Shared());
    ledger.open(entry('k1'));
    ledger.record('k1', 2, '"b"');
    ledger.record('k1', 1, '"a"');
    assert.deepEqual(
      ledger.parts('k1').sort((x, y) => x.PartNumber - y.PartNumber),
      [
        { PartNumber: 1, ETag: '"a"' },
        { PartNumber: 2, ETag: '"b"' },
      ],
    );
    assert.equal(ledger.count('k1'), 2);
    assert.equal(ledger.find('fp-k1', 'https://api.example')?.videoId, 'video-k1');
    assert.equal(ledger.find('fp-k1', 'https://other.example'), undefined);
  });

  it('says which files may be an unfinished upload (only those are hashed before theirs starts): same name, same service', () => {
    const storage = new Shared();
    new ChunkLedger(storage).open(entry('k1'));
    const afterReload = new ChunkLedger(storage);
    assert.equal(afterReload.mayHold('a.mp4', 'https://api.example'), true);
    assert.equal(afterReload.mayHold('b.mp4', 'https://api.example'), false);
    assert.equal(afterReload.mayHold('a.mp4', 'https://other.example'), false);
  });

  it('survives a reload, and two tabs do not erase each other', () => {
    const storage = new Shared();
    const tabA = new ChunkLedger(storage);
    const tabB = new ChunkLedger(storage);
    tabA.open(entry('a'));
    tabB.open(entry('b'));
    tabA.record('a', 1, 'x');
    const reloaded = new ChunkLedger(storage);
    assert.equal(reloaded.get('a', 1), 'x');
    assert.ok(reloaded.bySession('b'));
    assert.ok(!JSON.stringify([...storage.data.values()]).includes('token'), 'no token is stored');
  });

  it('forgets a discarded upload three days after its session expired', () => {
    const ledger = new ChunkLedger(new Shared());
    ledger.open(entry('old', 'fp', Date.now() - 4 * 24 * 3_600_000));
    ledger.open(entry('recent', 'fp2', Date.now() - 24 * 3_600_000));
    ledger.discard('old');
    ledger.discard('recent');
    assert.deepEqual(
      ledger.all('https://api.example').map((e) => e.session.key),
      ['recent'],
    );
    assert.equal(ledger.count('recent'), 0, 'a discarded upload keeps no chunk');
  });

  it('keeps working in memory when storage is full or missing', () => {
    const storage = new Shared();
    storage.full = true;
    const ledger = new ChunkLedger(storage);
    ledger.open(entry('k'));
    ledger.record('k', 1, 'e');
    assert.equal(ledger.get('k', 1), 'e');
    const none = new ChunkLedger(undefined);
    none.open(entry('k'));
    assert.ok(none.bySession('k'));
  });
});
