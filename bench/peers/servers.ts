/**
 * The peers' servers, for bench/link.bench.ts, run at the server's end of the link:
 *   - s3rver (an S3 emulator, as published) with a bucket `bench` whose CORS lets a page upload multipart,
 *     for Uppy 6's @uppy/aws-s3;
 *   - a minimal resumable `Content-Range` endpoint for UpChunk: `POST /uploads` makes an upload and answers its
 *     URL; each `PUT` of `bytes a-b/total` is written at `a`, answered 308 with `Range: bytes=0-b` until the
 *     last byte is in, then 200.
 *
 *   servers.ts ADDRESS DIR    prints {"s3": "http://ADDRESS:PORT/bench", "upchunk": "http://ADDRESS:PORT/uploads"}
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

const [address, dir] = process.argv.slice(2) as [string, string];
await mkdir(join(dir, 'uploads'), { recursive: true });

const CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedMethod>POST</AllowedMethod>
    <AllowedMethod>DELETE</AllowedMethod><AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader><ExposeHeader>Location</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, address, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const s3Port = await freePort();
await new S3rver({
  address,
  port: s3Port,
  silent: true,
  directory: join(dir, 's3'),
  configureBuckets: [{ name: 'bench', configs: [CORS] }],
}).run();

/** Each upload's declared size and the bytes it has, contiguous from 0. */
const uploads = new Map<string, { path: string; total: number; received: number }>();
const cors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, PUT',
  'access-control-allow-headers': 'content-type, content-range',
  'access-control-expose-headers': 'range',
};

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
  if (req.method === 'POST' && req.url === '/uploads') {
    const id = randomUUID();
    uploads.set(id, { path: join(dir, 'uploads', id), total: -1, received: 0 });
    const { port } = server.address() as AddressInfo;
    return void res
      .writeHead(201, { ...cors, 'content-type': 'application/json' })
      .end(JSON.stringify({ url: `http://${address}:${port}/uploads/${id}` }));
  }
  const upload = req.method === 'PUT' && uploads.get(req.url?.slice('/uploads/'.length) ?? '');
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(req.headers['content-range'] ?? '');
  if (!upload || !range) return void res.writeHead(upload ? 400 : 404, cors).end();
  const [start, end, total] = range.slice(1).map(Number) as [number, number, number];
  if (start !== upload.received) {
    req.resume();
    return void res.writeHead(308, { ...cors, range: `bytes=0-${upload.received - 1}` }).end();
  }
  const file = await open(upload.path, upload.received ? 'r+' : 'w');
  await pipeline(req, createWriteStream('', { fd: file, start }));
  upload.total = total;
  upload.received = end + 1;
  if (upload.received < total) return void res.writeHead(308, { ...cors, range: `bytes=0-${end}` }).end();
  await rm(upload.path, { force: true });
  uploads.delete(req.url!.slice('/uploads/'.length));
  res.writeHead(200, cors).end();
}

const server = createHttpServer((req, res) =>
  handle(req, res).catch((err: Error) => res.writeHead(500, cors).end(err.message)),
);
await new Promise<void>((resolve) => server.listen(0, address, resolve));
console.log(
  JSON.stringify({
    s3: `http://${address}:${s3Port}/bench`,
    upchunk: `http://${address}:${(server.address() as AddressInfo).port}/uploads`,
  }),
);
