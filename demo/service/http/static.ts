import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { HttpError } from './errors.js';

const TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.mp4': 'video/mp4',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/** Sends a file with its type, honouring one `Range` (players seek in the MP4 download). */
export async function sendFile(req: IncomingMessage, res: ServerResponse, path: string, headers: Record<string, string> = {}) {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new HttpError(404, 'not_found', 'That file does not exist.');
  const type = TYPES[extname(path)] ?? 'application/octet-stream';
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  let start = 0;
  let end = info.size - 1;
  if (range && (range[1] || range[2])) {
    start = range[1] ? Number(range[1]) : Math.max(0, info.size - Number(range[2]));
    end = range[1] && range[2] ? Math.min(Number(range[2]), end) : end;
    if (start > end) {
      res.writeHead(416, { 'content-range': `bytes */${info.size}` });
      res.end();
      return;
    }
    res.writeHead(206, { ...headers, 'content-type': type, 'content-length': end - start + 1, 'accept-ranges': 'bytes', 'content-range': `bytes ${start}-${end}/${info.size}` });
  } else {
    res.writeHead(200, { ...headers, 'content-type': type, 'content-length': info.size, 'accept-ranges': 'bytes' });
  }
  if (req.method === 'HEAD') return void res.end();
  await pipeline(createReadStream(path, { start, end }), res);
}
