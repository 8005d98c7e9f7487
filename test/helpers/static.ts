import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * Serves a built app's folder as static files on 127.0.0.1, as a consumer's web server would, and
 * forwards `/api/…` to `apiOrigin` (the demo, whose integrator backend mints tokens for a signed-in visitor).
 */
export async function serveStatic(root: string, apiOrigin: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/api/')) {
      // As a reverse proxy would: the visitor's cookie (its sign-in) goes along, and comes back.
      const answer = await fetch(new URL(path, apiOrigin), {
        method: req.method,
        headers: { 'content-type': 'application/json', ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}) },
        body: req.method === 'POST' ? '{}' : undefined,
      });
      const cookie = answer.headers.get('set-cookie');
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        ...(cookie ? { 'set-cookie': cookie } : {}),
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const file = join(root, normalize(path.endsWith('/') ? `${path}index.html` : path));
    if (
      !file.startsWith(root) ||
      !(await stat(file).then(
        (s) => s.isFile(),
        () => false,
      ))
    ) {
      res.writeHead(404).end();
      return;
    }
    // Loading a page signs the visitor in, as on the integrator's site: here by loading a page of the demo, whose
    // backend answers the forwarded `/api/…` (its signed cookie is for the visitor's host, whatever the port).
    if (file.endsWith('.html')) {
      const page = await fetch(apiOrigin, { headers: req.headers.cookie ? { cookie: req.headers.cookie } : {} });
      await page.body?.cancel();
      const cookie = page.headers.get('set-cookie');
      if (cookie) res.setHeader('set-cookie', cookie);
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}
