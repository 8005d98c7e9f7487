/**
 * The integrator's side of the demo: what a site that embeds <video-uploader> runs on its server.
 * It keeps its key to the service to itself and hands each visitor a short-lived upload token, minted for
 * that visitor (a cookie stands in for the site's sign-in): the token can only upload, and sees only the
 * visitor's own videos.
 *   POST /api/video-token → {token, expiresAt}   (the element's token-url)
 *   GET  /api/config      → {baseUrl}            (where the page finds the service)
 * For the Live page, the site's one live stream, made with its key the first time it is asked for:
 *   GET  /api/live        → {streamId, server, streamKey}   (what to give OBS or ffmpeg)
 *   POST /api/clip-token  → {token, expiresAt}   (<recording-clipper>'s token-url: scope clip, this stream only)
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  url: string;
  server: Server;
}

interface LiveStream {
  _id: string;
  name: string | null;
  stream_key: string;
  ingest: { server: string; url: string };
}
const DEMO_STREAM = 'demo live stream';

/** Lifetime of the tokens handed to browsers. The element renews them before they expire. */
const BROWSER_TOKEN_SECONDS = 15 * 60;

/** The visitor's id from its cookie, made on the first visit: the demo's stand-in for a signed-in user. */
function visitor(req: IncomingMessage, res: ServerResponse): string {
  const known = /(?:^|;\s*)demo_visitor=([A-Za-z0-9_-]{16,64})(?:;|$)/.exec(req.headers.cookie ?? '')?.[1];
  const id = known ?? randomBytes(12).toString('base64url');
  if (!known) res.setHeader('set-cookie', `demo_visitor=${id}; Path=/; HttpOnly; SameSite=Lax`);
  return `visitor-${id}`;
}

export async function startBackend(options: {
  serviceUrl: string;
  serviceToken: string;
  port?: number;
}): Promise<Backend> {
  const service = (path: string, body?: unknown) =>
    fetch(`${options.serviceUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${options.serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** The demo's stream: one, made once, by name (it survives a restart of the demo in the service's data). */
  let stream: Promise<LiveStream> | undefined;
  const liveStream = () =>
    (stream ??= (async () => {
      const all = (await (await service('/live_streams')).json()) as LiveStream[];
      return (
        all.find((s) => s.name === DEMO_STREAM) ??
        ((await (await service('/live_streams', { name: DEMO_STREAM })).json()) as LiveStream)
      );
    })().catch((err: unknown) => {
      stream = undefined;
      throw err;
    }));

  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method === 'POST' && req.url === '/api/video-token') {
        // A real site checks its own session here, and names its signed-in user.
        const user = visitor(req, res);
        const answer = await fetch(`${options.serviceUrl}/tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.serviceToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ scope: 'upload', user, ttl_seconds: BROWSER_TOKEN_SECONDS }),
        });
        return send(answer.status, await answer.json());
      }
      if (req.method === 'GET' && req.url === '/api/live') {
        const { _id, ingest, stream_key } = await liveStream();
        return send(200, { streamId: _id, server: ingest.server, streamKey: stream_key });
      }
      if (req.method === 'POST' && req.url === '/api/clip-token') {
        // A real site checks here that the signed-in user may clip this stream.
        const answer = await service('/tokens', {
          scope: 'clip',
          live_stream_id: (await liveStream())._id,
          ttl_seconds: BROWSER_TOKEN_SECONDS,
        });
        return send(answer.status, await answer.json());
      }
      if (req.method === 'GET' && req.url === '/api/config') return send(200, { baseUrl: options.serviceUrl });
      send(404, { error: { status: 404, code: 'not_found', message: `No route ${req.method} ${req.url}` } });
    } catch (err) {
      send(502, {
        error: {
          status: 502,
          code: 'service_unreachable',
          message: `The video service could not be reached: ${(err as Error).message}`,
        },
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
