/**
 * Chunk URLs (#4) asked for ahead of their PUTs. @uppy/aws-s3 5.x runs `signPart` in the same rate-limited
 * queue as the PUTs, so each #4 took one of the `parallel-uploads` slots, and a connection that finished a
 * chunk sat idle for a round trip before its next PUT. Here `signPart` answers at once with a placeholder, and
 * the URLs of the next chunks are already being fetched; a PUT takes its chunk's URL when it starts.
 *
 * A URL is used once: a chunk sent again (an expired URL, a retry after an error) asks for a fresh one. The
 * service's chunk URLs are valid until their session expires (docs/service.md: "Chunk URL validity").
 */
export type FetchChunkUrl = (videoId: string, sessionKey: string, chunkId: number) => Promise<string>;

export class ChunkUrls {
  private readonly pending = new Map<string, Promise<string>>();
  /** Chunks whose URL a PUT has taken: not fetched ahead again until the chunk is signed again (`again`). */
  private readonly taken = new Set<string>();

  constructor(private readonly fetchUrl: FetchChunkUrl) {}

  /** Starts fetching the URLs of chunks `from` to `from + count - 1` (at most `last`) that are not on their way. */
  ahead(videoId: string, sessionKey: string, from: number, count: number, last: number, skip: (id: number) => boolean) {
    for (let chunkId = from; chunkId < from + count && chunkId <= last; chunkId++) {
      const id = `${sessionKey}/${chunkId}`;
      if (this.pending.has(id) || this.taken.has(id) || skip(chunkId)) continue;
      const url = this.fetchUrl(videoId, sessionKey, chunkId);
      url.catch(() => undefined); // taken (and thrown) by the chunk's PUT, or forgotten with its session
      this.pending.set(id, url);
    }
  }

  /** The URL of a chunk, fetched now unless it was fetched ahead; it is not handed out again. */
  take(videoId: string, sessionKey: string, chunkId: number): Promise<string> {
    const id = `${sessionKey}/${chunkId}`;
    const url = this.pending.get(id) ?? this.fetchUrl(videoId, sessionKey, chunkId);
    this.pending.delete(id);
    this.taken.add(id);
    return url;
  }

  /** A chunk is signed again (its URL expired, its PUT failed): its next URL may be fetched ahead. */
  again(sessionKey: string, chunkId: number): void {
    this.taken.delete(`${sessionKey}/${chunkId}`);
  }

  /** Drops a session's URLs (completed, aborted or expired). */
  forget(sessionKey: string): void {
    const prefix = `${sessionKey}/`;
    for (const id of this.pending.keys()) if (id.startsWith(prefix)) this.pending.delete(id);
    for (const id of this.taken) if (id.startsWith(prefix)) this.taken.delete(id);
  }
}
