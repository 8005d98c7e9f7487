import type { FastifyInstance } from 'fastify';
import { pathOnly, REQUEST_ID_HEADER } from '../log.js';
import type { Metrics } from '../metrics.js';

/** A request that matched no route: one label for all of them, whatever their paths. */
const UNMATCHED = 'unmatched';

/**
 * Each API request, once: its id in the answer's `X-Request-Id` (the one a load balancer sent, or a new one:
 * log.ts), then one log line and one observation of the request histogram, by route template, when it ends.
 * Added before any route (http/api.ts), so every route and the 404/405 answers have it.
 */
export function observe(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.header(REQUEST_ID_HEADER, req.id);
  });
  app.addHook('onResponse', async (req, reply) => {
    // `/videos/:id` as the document writes it, `/videos/{id}`: never the URL, which holds ids.
    const route = req.routeOptions.url?.replace(/:(\w+)/g, '{$1}') ?? UNMATCHED;
    const ms = reply.elapsedTime;
    metrics.requestFinished(req.method, route, reply.statusCode, ms / 1000);
    req.log.info(
      { method: req.method, route, path: pathOnly(req.url), status: reply.statusCode, ms: Math.round(ms * 10) / 10 },
      'request',
    );
  });
}
