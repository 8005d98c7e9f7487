import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceError } from '../domain/errors.js';
import type { Uploads } from '../domain/uploads.js';
import type { Faults } from '../faults.js';
import { sendError } from '../http/errors.js';
import { requestUrl } from '../http/url.js';

/**
 * The storage origin ({upload_url}), #5. Its own port, so the browser meets real cross-origin rules:
 * preflights are answered, PUT with any Content-Type is allowed from any origin, and ETag is exposed
 * (without that header exposed, a browser uploader cannot complete a multipart upload).
 * The signature in the query string authorises a PUT; an Authorization header is never read.
 */
export interface StorageRequest {
  method: string;
  path: string;
  /** Whether the request carried an Authorization header (it never should). */
  authorization: boolean;
  /** When it arrived and when its answer was sent (ms), and the answer's status (0: closed without one). */
  startedAt: number;
  endedAt?: number;
  status?: number;
}

export function storageHandler(
  uploads: Uploads,
  hooks: { log?: (entry: StorageRequest) => void; faults?: Faults } = {},
) {
  const { log, faults } = hooks;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (log) {
      const entry: StorageRequest = {
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0]!,
        authorization: req.headers.authorization !== undefined,
        startedAt: Date.now(),
      };
      res.once('finish', () => Object.assign(entry, { endedAt: Date.now(), status: res.statusCode }));
      // A request the client gave up on (a pause, a cut connection) ends without an answer: status 0.
      res.once('close', () => entry.endedAt === undefined && Object.assign(entry, { endedAt: Date.now(), status: 0 }));
      log(entry);
    }
    res.setHeader('access-control-allow-origin', '*');
    // ETag to complete a multipart upload; Retry-After so a throttled client knows how long to wait.
    if (faults?.exposeEtag !== false) res.setHeader('access-control-expose-headers', 'ETag, Retry-After');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'PUT, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    try {
      const url = requestUrl(req.url);
      if (req.method !== 'PUT') {
        sendError(
          res,
          new ServiceError('method_not_allowed', 'The storage accepts PUT only.', undefined, { allow: 'PUT, OPTIONS' }),
        );
        req.resume();
        return;
      }
      const chunk = url.pathname.startsWith('/chunks/');
      const fault = faults
        ? await faults.apply(chunk ? 'chunk-put' : 'single-put', req, res, (n) => uploads.countFor(url.pathname, n))
        : false;
      if (fault === true) return;
      const corrupt = fault === 'corrupt';
      const { etag } = chunk
        ? await uploads.receiveChunk(url, req, corrupt)
        : await uploads.receiveSingle(url, req, corrupt);
      res.writeHead(200, { etag, 'content-length': '0' });
      res.end();
    } catch (err) {
      // The rest of a refused body is not read: close the connection once the answer is out.
      res.setHeader('connection', 'close');
      sendError(res, err);
      req.resume();
    }
  };
}
