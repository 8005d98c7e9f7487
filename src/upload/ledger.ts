import type { UploadPlan } from './plan.js';

/** What the element remembers of a multipart upload, so that it can continue after a reload or a crash. */
export interface LedgerEntry {
  /** Of the file: name, size, lastModified and a hash of its first and last MiB (fingerprint.ts). */
  fingerprint: string;
  /** The service it was uploading to. */
  baseUrl: string;
  videoId: string;
  name: string;
  session: { key: string; expiresAt: number };
  plan: UploadPlan;
  /** chunkId → ETag exactly as received. */
  chunks: Record<number, string>;
  /** The session expired unfinished and was aborted; kept so the re-added file reuses its video. */
  discarded?: boolean;
}

/** A discarded entry is forgotten this long after its session expired, whether or not its file came back. */
const KEEP_DISCARDED_MS = 3 * 24 * 60 * 60 * 1000;

const STORAGE_KEY = 'video-uploader:uploads:v1';

function browserStorage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage disabled: the ledger lives in memory only
  }
}

/**
 * The chunks each multipart session has finished. The spec has no "list parts" endpoint, so this
 * is what `signPart` asks, and a finished chunk is never sent again. Kept in localStorage
 * (never the token: only what is listed in LedgerEntry), re-read before each change so that two tabs
 * do not erase each other's entries.
 */
export class ChunkLedger {
  private entries: Record<string, LedgerEntry> = {};

  constructor(private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = browserStorage()) {
    this.load();
  }

  open(entry: Omit<LedgerEntry, 'chunks'>): void {
    this.change(() => (this.entries[entry.session.key] = { ...entry, chunks: {} }));
  }

  record(sessionKey: string, chunkId: number, eTag: string): void {
    this.change(() => {
      const entry = this.entries[sessionKey];
      if (entry) entry.chunks[chunkId] = eTag;
    });
  }

  get(sessionKey: string, chunkId: number): string | undefined {
    return this.entries[sessionKey]?.chunks[chunkId];
  }

  count(sessionKey: string): number {
    return Object.keys(this.entries[sessionKey]?.chunks ?? {}).length;
  }

  parts(sessionKey: string): { PartNumber: number; ETag: string }[] {
    return Object.entries(this.entries[sessionKey]?.chunks ?? {}).map(([id, ETag]) => ({
      PartNumber: Number(id),
      ETag,
    }));
  }

  bySession(sessionKey: string): LedgerEntry | undefined {
    return this.entries[sessionKey];
  }

  /** The unfinished upload of this very file to this service, if there is one. */
  find(fingerprint: string, baseUrl: string): LedgerEntry | undefined {
    return Object.values(this.entries).find((e) => e.fingerprint === fingerprint && e.baseUrl === baseUrl);
  }

  /**
   * Whether an entry could be of a file of this name: only such a file is worth fingerprinting before its upload
   * starts (a fingerprint begins with the name, so a file with another name can match no entry).
   */
  mayHold(name: string, baseUrl: string): boolean {
    return this.all(baseUrl).some((e) => e.name === name);
  }

  all(baseUrl: string): LedgerEntry[] {
    for (const e of Object.values(this.entries))
      if (e.discarded && e.session.expiresAt + KEEP_DISCARDED_MS < Date.now()) this.forget(e.session.key);
    this.load();
    return Object.values(this.entries).filter((e) => e.baseUrl === baseUrl);
  }

  discard(sessionKey: string): void {
    this.change(() => {
      const entry = this.entries[sessionKey];
      if (entry) Object.assign(entry, { discarded: true, chunks: {} });
    });
  }

  forget(sessionKey: string): void {
    this.change(() => delete this.entries[sessionKey]);
  }

  private change(mutate: () => void): void {
    this.load();
    mutate();
    try {
      this.storage?.setItem(STORAGE_KEY, JSON.stringify(this.entries));
    } catch {
      this.inMemoryOnly = true; // storage full or refused: this page keeps the ledger in memory
    }
  }

  private inMemoryOnly = false;

  private load(): void {
    if (!this.storage || this.inMemoryOnly) return;
    try {
      this.entries = JSON.parse(this.storage.getItem(STORAGE_KEY) ?? '{}') as Record<string, LedgerEntry>;
    } catch {
      this.entries = {};
    }
  }
}
