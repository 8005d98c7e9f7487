/**
 * The chunks a multipart session has finished, chunkId → ETag as received. The spec has no "list
 * parts" endpoint, so this answers @uppy/aws-s3's `listParts` when an upload resumes: a finished
 * chunk is never sent again.
 */
export class ChunkLedger {
  private readonly sessions = new Map<string, Map<number, string>>();

  record(sessionKey: string, chunkId: number, eTag: string): void {
    let chunks = this.sessions.get(sessionKey);
    if (!chunks) this.sessions.set(sessionKey, (chunks = new Map()));
    chunks.set(chunkId, eTag);
  }

  get(sessionKey: string, chunkId: number): string | undefined {
    return this.sessions.get(sessionKey)?.get(chunkId);
  }

  count(sessionKey: string): number {
    return this.sessions.get(sessionKey)?.size ?? 0;
  }

  parts(sessionKey: string): { PartNumber: number; ETag: string }[] {
    return [...(this.sessions.get(sessionKey) ?? [])].map(([PartNumber, ETag]) => ({ PartNumber, ETag }));
  }

  forget(sessionKey: string): void {
    this.sessions.delete(sessionKey);
  }
}
