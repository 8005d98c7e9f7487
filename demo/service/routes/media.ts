import { createRequire } from 'node:module';
import type { ServerResponse } from 'node:http';
import type { Files } from '../storage/files.js';
import type { Videos } from '../domain/videos.js';
import { HttpError, notFound } from '../http/errors.js';
import type { Request, Router } from '../http/router.js';
import { sendFile } from '../http/static.js';
import { isId } from '../ids.js';

const hlsJs = createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');
const FILE = /^(index\.m3u8|download\.mp4|poster\.jpg)$/;
const RENDITION_FILE = /^(stream\.m3u8|seg\d{4,6}\.ts)$/;

/**
 * Playback: like a real service's CDN, media addresses need no token (the ids are unguessable), send
 * CORS headers so hls.js can fetch them from any page, and answer 404 until the video is ready.
 */
export function mediaRoutes(router: Router, videos: Videos, files: Files): void {
  const ready = (id: string) => {
    const row = isId(id) ? videos.row(id) : undefined;
    if (!row) throw notFound(`Video ${JSON.stringify(id)}`);
    if (row.status !== 'ready') throw new HttpError(404, 'not_ready', `Video ${id} is not ready yet (status ${row.status}).`);
    return row;
  };
  const cache = { 'cache-control': 'public, max-age=60' };

  router.add('GET', '/media/{id}/{file}', async (req: Request, res: ServerResponse) => {
    const { id, file } = req.params as { id: string; file: string };
    ready(id);
    if (!FILE.test(file)) throw notFound(`The file ${JSON.stringify(file)}`);
    await sendFile(req.raw, res, files.media(id, file), cache);
  });
  router.add('GET', '/media/{id}/{rendition}/{file}', async (req: Request, res: ServerResponse) => {
    const { id, rendition, file } = req.params as { id: string; rendition: string; file: string };
    ready(id);
    if (!/^(main|\d{3,4}p)$/.test(rendition) || !RENDITION_FILE.test(file)) throw notFound(`The file ${JSON.stringify(file)}`);
    await sendFile(req.raw, res, files.media(id, `${rendition}/${file}`), cache);
  });

  // embed_url: a page that plays the video with hls.js, made to live in an iframe on any site.
  router.add('GET', '/embed/hls.min.js', (req: Request, res: ServerResponse) =>
    sendFile(req.raw, res, hlsJs, { 'cache-control': 'public, max-age=86400' }),
  );
  router.add('GET', '/embed/{id}', (req: Request, res: ServerResponse) => {
    const id = req.params.id!;
    const row = isId(id) ? videos.row(id) : undefined;
    if (!row) throw notFound(`Video ${JSON.stringify(id)}`);
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "frame-ancestors *; default-src 'self'; media-src 'self' blob:; img-src 'self'; style-src 'unsafe-inline'; script-src 'self' 'unsafe-inline'",
    });
    res.end(embedPage(videos.object(row).playback.hls_url, row.status));
  });
}

function embedPage(hlsUrl: string, status: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Video</title>
<style>html,body{margin:0;height:100%;background:#000;color:#ddd;font:16px system-ui}
video{width:100%;height:100%;display:block}p{position:absolute;inset:auto 0 45% 0;text-align:center}</style></head>
<body><video id="v" controls playsinline></video>${status === 'ready' ? '' : `<p>This video is ${status === 'failed' ? 'not playable' : 'still processing'}.</p>`}
<script src="/embed/hls.min.js"></script>
<script>
const video = document.getElementById('v');
const src = ${JSON.stringify(hlsUrl)};
if (window.Hls && Hls.isSupported()) { const hls = new Hls(); hls.loadSource(src); hls.attachMedia(video); }
else if (video.canPlayType('application/vnd.apple.mpegurl')) video.src = src;
</script></body></html>`;
}
