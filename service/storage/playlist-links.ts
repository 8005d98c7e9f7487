/**
 * A rendition playlist for players when media lives in a private bucket. A presigned URL signs one object: the
 * segments named relative to a presigned playlist would resolve without the signature and be refused. So the API
 * serves the playlists (the master's relative URIs then lead back to the API's rendition playlists, unchanged) and
 * each URI of a rendition playlist becomes the presigned GET of its segment, which the player fetches straight from
 * the store: the playlist is a few kB through the API, the segments' bytes never are. Decision over the alternatives:
 * a redirect per segment costs a round trip per segment; signed cookies (CloudFront) exist on one CDN only.
 * With `--media-base-url` none of this runs: the playlists are served from the base as written.
 */

/** URI lines and `URI="…"` attributes (EXT-X-MAP, EXT-X-MEDIA, EXT-X-I-FRAME-STREAM-INF, EXT-X-KEY). */
const URI_ATTRIBUTE = /URI="([^"]*)"/g;

/** `text` with each relative URI replaced by `sign(uri)`; absolute URIs (http:, https:, data:, skd:) are left alone. */
export async function signPlaylist(text: string, sign: (uri: string) => Promise<string>): Promise<string> {
  const relative = (uri: string) => uri !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(uri);
  const lines = text.split('\n');
  return (
    await Promise.all(
      lines.map(async (line) => {
        const trimmed = line.trim();
        if (trimmed === '') return line;
        if (!trimmed.startsWith('#')) return relative(trimmed) ? sign(trimmed) : line;
        const uris = [...trimmed.matchAll(URI_ATTRIBUTE)].map((m) => m[1]!).filter(relative);
        if (uris.length === 0) return line;
        const signed = new Map(await Promise.all(uris.map(async (u) => [u, await sign(u)] as const)));
        return line.replace(URI_ATTRIBUTE, (all, uri: string) => (signed.has(uri) ? `URI="${signed.get(uri)}"` : all));
      }),
    )
  ).join('\n');
}

/** The key a playlist's relative URI names: resolved against the playlist's own key, no climbing above `root`. */
export function keyBeside(playlistKey: string, uri: string, root: string): string | null {
  const base = new URL(`s3://k/${playlistKey}`);
  const target = new URL(uri.split(/[?#]/)[0]!, base);
  const key = decodeURIComponent(target.pathname.slice(1));
  return target.host === 'k' && key.startsWith(root) ? key : null;
}
