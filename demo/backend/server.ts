/**
 * The integrator's side of the demo: what a site that embeds <video-uploader> runs on its server.
 * It keeps its key to the service to itself and hands each signed-in visitor a short-lived upload token, minted
 * for that visitor: the token can only upload, and sees only the visitor's own videos.
 * Signing in, the demo's stand-in for the site's own: loading a demo page (`signIn`, called by the page server)
 * sets a `demo_visitor` cookie, a random id with its HMAC under a secret made at start (HttpOnly, SameSite=Lax).
 * Every route but /api/config wants that cookie (401 without it): a cookie another page on this host set is
 * not signed, so it names nobody. A POST from a page of another origin is refused (403).
 *   POST /api/video-token → {token, expiresAt}   (the element's token-url)
 *   GET  /api/config      → {baseUrl}            (where the page finds the service)
 * For the Live page, the site's one live stream, made with its key the first time it is asked for:
 *   GET  /api/live        → {streamId, server, streamKey}   (what to give OBS or ffmpeg)
 *   POST /api/clip-token  → {token, expiresAt}   (<recording-clipper>'s token-url: scope clip, this stream only)
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_HOST } from '../../service/ports.js';

export interface Backend {
  url: string;
  server: Server;
  /** Signs the visitor in on a page's answer: sets the cookie unless the request carries a valid one. */
  signIn(req: IncomingMessage, res: ServerResponse): void;
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

/** The cookie as a request carries it: 12 random bytes and a SHA-256 HMAC, base64url. */
const VISITOR_COOKIE = /(?:^|;\s*)demo_visitor=([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})(?=;|$)/g;

/** The visitor cookie: `<id>.<HMAC of id>`, made and checked with this process's secret. */
function visitorCookies(secret: Buffer) {
  const mac = (id: string) => createHmac('sha256', secret).update(id).digest();
  return {
    make: () => {
      const id = randomBytes(12).toString('base64url');
      return `demo_visitor=${id}.${mac(id).toString('base64url')}; Path=/; HttpOnly; SameSite=Lax`;
    },
    /** The id of the first validly signed cookie (another page may have set one of the same name beside it). */
    visitor: (req: IncomingMessage): string | undefined => {
      for (const [, id, signature] of (req.headers.cookie ?? '').matchAll(VISITOR_COOKIE)) {
        if (timingSafeEqual(Buffer.from(signature!, 'base64url'), mac(id!))) return id;
      }
      return undefined;
    },
  };
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

  const cookies = visitorCookies(randomBytes(32));
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const refuse = (status: number, code: string, message: string) =>
      send(status, { error: { status, code, message } });
    try {
      if (req.method === 'GET' && req.url === '/api/config') return send(200, { baseUrl: options.serviceUrl });
      // Through the page server's proxy the Host is the page's, so a page's own POST carries its Origin; a
      // browser sends Origin with every POST, so a missing one is not a page's (curl, the tests' proxies).
      const origin = req.headers.origin;
      if (req.method === 'POST' && origin !== undefined && origin !== `http://${req.headers.host}`) {
        return refuse(403, 'cross_origin', `This backend takes POSTs from its own pages only, not from ${origin}.`);
      }
      // A real site checks its own session here, and names its signed-in user.
      const visitor = cookies.visitor(req);
      if (!visitor) {
        return refuse(401, 'not_signed_in', 'Open a demo page first: loading it signs the visitor in (a cookie).');
      }
      if (req.method === 'POST' && req.url === '/api/video-token') {
        const answer = await service('/tokens', {
          scope: 'upload',
          user: `visitor-${visitor}`,
          ttl_seconds: BROWSER_TOKEN_SECONDS,
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
      refuse(404, 'not_found', `No route ${req.method} ${req.url}`);
    } catch (err) {
      refuse(502, 'service_unreachable', `The video service could not be reached: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, DEFAULT_HOST, resolve));
  return {
    url: `http://${DEFAULT_HOST}:${(server.address() as AddressInfo).port}`,
    server,
    signIn: (req, res) => void (cookies.visitor(req) || res.setHeader('set-cookie', cookies.make())),
  };
}
