import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { basename, dirname, extname } from 'node:path';
import { notFound } from '../domain/errors.js';

const TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.mp4': 'video/mp4',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
};

/**
 * Sends a file through `@fastify/send`: Range (players seek in the MP4 download), `ETag` with `If-None-Match`,
 * `Last-Modified` with `If-Modified-Since`, and HEAD. A file that is not there is the service's 404.
 */
export async function sendFile(
  req: FastifyRequest,
  reply: FastifyReply,
  path: string,
  cacheControl: string,
): Promise<FastifyReply> {
  const { statusCode, headers, stream, type } = await send(req.raw, `/${encodeURIComponent(basename(path))}`, {
    root: dirname(path),
    index: false,
    dotfiles: 'deny',
    cacheControl: false,
    contentType: false,
  });
  if (type === 'error' && statusCode === 404) throw notFound(`The file ${JSON.stringify(basename(path))}`);
  const mime = TYPES[extname(path)] ?? 'application/octet-stream';
  return reply
    .code(statusCode)
    .headers({ ...headers, ...(statusCode < 300 ? { 'content-type': mime, 'cache-control': cacheControl } : {}) })
    .send(stream);
}
