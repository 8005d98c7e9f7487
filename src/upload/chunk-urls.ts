/**
 * Chunk URLs (#4) asked for ahead of their PUTs. @uppy/aws-s3 5.x runs `signPart` in the same rate-limited
 * queue as the PUTs, so each #4 took one of the `parallel-uploads` slots, and a connection that finished a
 * chunk sat idle for a round trip before its next PUT. Here `signPart` answers at once with a placeholder, and
 * the URLs of the next chunks are already being fetched; a PUT takes its chunk's URL when it starts.
 *
 * A URL is used once: a chunk sent again (an expired URL, a retry after an error) asks for a fresh one. The
 * service's chunk URLs are valid until their session expires (docs/service.md: "Chunk URL validity").
 *
 * A video's first #4 goes alone, and the others once it has answered: every #4 of a video has one URL, so the
 * browser's preflight for it is cached by then (the API's `Access-Control-Max-Age`), and each of the others is one
 * round trip. Sent together, each had its own preflight, and the first chunk's URL came back behind a dozen requests
 * in the page's six connections to the API: on a 40 ms link, 190 ms after its #4 was asked instead of about 90
 * (bench/link.bench.ts, `BENCH_TIMELINE=1`).
 */
export type FetchChunkUrl = (videoId: string, sessionKey: string, chunkId: number) => Promise<string>;

export class ChunkUrls {
  private readonly pending = new Map<string, Promise<string>>();
  /** Chunks whose URL a PUT has taken: not fetched ahead again until the chunk is signed again (`again`). */
  private readonly taken = new Set<string>();
  /** Per video: its first #4, while it has not answered; once it has, the video is in `opened`. */
  private readonly opening = new Map<string, Promise<unknown>>();
  private readonly opened = new Set<string>();

  constructor(private readonly fetchUrl: FetchChunkUrl) {}

  /** Starts fetching the URLs of chunks `from` to `from + count - 1` (at most `last`) that are not on their way. */
  ahead(videoId: string, sessionKey: string, from: number, count: number, last: number, skip: (id: number) => boolean) {
    for (let chunkId = from; chunkId < from + count && chunkId <= last; chunkId++) {
      const id = `${sessionKey}/${chunkId}`;
      if (this.pending.has(id) || this.taken.has(id) || skip(chunkId)) continue;
      const url = this.fetch(videoId, sessionKey, chunkId);
      url.catch(() => undefined); // taken (and thrown) by the chunk's PUT, or forgotten with its session
      this.pending.set(id, url);
    }
  }

  /** The URL of a chunk, fetched now unless it was fetched ahead; it is not handed out again. */
  take(videoId: string, sessionKey: string, chunkId: number): Promise<string> {
    const id = `${sessionKey}/${chunkId}`;
    const url = this.pending.get(id) ?? this.fetch(videoId, sessionKey, chunkId);
    this.pending.delete(id);
    this.taken.add(id);
    return url;
  }

  /** A chunk is signed again (its URL expired, its PUT failed): its next URL may be fetched ahead. */
  again(sessionKey: string, chunkId: number): void {
    this.taken.delete(`${sessionKey}/${chunkId}`);
  }

  /** #4 for one chunk: at once, or after the video's first #4 answered (or failed) if it is on its way. */
  private fetch(videoId: string, sessionKey: string, chunkId: number): Promise<string> {
    const go = () => this.fetchUrl(videoId, sessionKey, chunkId);
    if (this.opened.has(videoId)) return go();
    const first = this.opening.get(videoId);
    if (first) return first.then(go, go);
    const url = go();
    this.opening.set(videoId, url);
    const open = () => {
      this.opening.delete(videoId);
      this.opened.add(videoId);
    };
    url.then(open, open);
    return url;
  }

  /** Drops a session's URLs (completed, aborted or expired). */
  forget(sessionKey: string): void {
    const prefix = `${sessionKey}/`;
    for (const id of this.pending.keys()) if (id.startsWith(prefix)) this.pending.delete(id);
    for (const id of this.taken) if (id.startsWith(prefix)) this.taken.delete(id);
  }
}
