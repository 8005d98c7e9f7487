/**
 * The integrator's side of the demo: what a site that embeds <video-uploader> runs on its server.
 * It keeps its key to the service to itself and hands each visitor a short-lived upload token, minted for
 * that visitor (a cookie stands in for the site's sign-in): the token can only upload, and sees only the
 * visitor's own videos.
 *   POST /api/video-token → {token, expiresAt}   (the element's token-url)
 *   GET  /api/config      → {baseUrl}            (where the page finds the service)
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  url: string;
  server: Server;
}

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
