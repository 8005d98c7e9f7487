/**
 * The integrator's side of the demo: what a site that embeds <video-uploader> runs on its server.
 * It keeps the long-lived service token to itself and hands the browser short-lived ones.
 *   POST /api/video-token → {token, expiresAt}   (the element's token-url)
 *   GET  /api/config      → {baseUrl}            (where the page finds the service)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  url: string;
  server: Server;
}

/** Lifetime of the tokens handed to browsers. The element renews them before they expire. */
const BROWSER_TOKEN_SECONDS = 15 * 60;

export async function startBackend(options: { serviceUrl: string; serviceToken: string; port?: number }): Promise<Backend> {
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method === 'POST' && req.url === '/api/video-token') {
        // A real site checks its own session here before handing out upload rights.
        const answer = await fetch(`${options.serviceUrl}/tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.serviceToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ttl_seconds: BROWSER_TOKEN_SECONDS }),
        });
        return send(answer.status, await answer.json());
      }
      if (req.method === 'GET' && req.url === '/api/config') return send(200, { baseUrl: options.serviceUrl });
      send(404, { error: { status: 404, code: 'not_found', message: `No route ${req.method} ${req.url}` } });
    } catch (err) {
      send(502, { error: { status: 502, code: 'service_unreachable', message: `The video service could not be reached: ${(err as Error).message}` } });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
