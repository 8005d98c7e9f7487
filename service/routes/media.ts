import type { FastifyReply, FastifyRequest } from 'fastify';
import { createRequire } from 'node:module';
import type { Accounts } from '../domain/accounts.js';
import type { Videos } from '../domain/videos.js';
import { fileAnswer, op, params, type Api } from '../http/api.js';
import { sendFile } from '../http/static.js';
import type { S3Media } from '../storage/s3-media.js';

const hlsJs = createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');
const CACHE = 'public, max-age=60';

/**
 * Playback: like a real service's CDN, media addresses need no token (the ids are unguessable), send
 * CORS headers so hls.js can fetch them from any page, and answer 404 until the video is ready.
 */
export function mediaRoutes(
  app: Api,
  { accounts, videos, remote }: { accounts: Accounts; videos: Videos; remote?: S3Media },
): void {
  const playback = { scopes: 'public', errors: ['not_found', 'not_ready'] } as const;
  /** A ready video's file from the data directory, or on an S3 store its playlist or a redirect (storage/s3-media.ts). */
  const serve = async (
    req: FastifyRequest,
    reply: FastifyReply,
    id: string,
    rendition: string | undefined,
    name: string,
  ) => {
    const path = await videos.mediaFile(id, rendition, name);
    if (!remote) return sendFile(req, reply, path, CACHE);
    const { organization_id: org } = (await videos.row(id))!;
    const answer = await remote.answer(org, id, rendition === undefined ? name : `${rendition}/${name}`);
    reply.header('cache-control', CACHE);
    if ('redirect' in answer) return reply.redirect(answer.redirect, 302);
    return reply.type('application/vnd.apple.mpegurl').send(answer.playlist);
  };

  app.get(
    '/media/:id/:file',
    op(accounts, {
      ...playback,
      operationId: 'getMediaFile',
      summary: 'HLS master playlist, download MP4 or poster of a ready video',
      description:
        'Decision: playback addresses need no token (ids are unguessable) and allow any origin. `file`: index.m3u8, download.mp4 or poster.jpg. Range, If-None-Match and If-Modified-Since are honoured.',
      params: params('id', 'file'),
      ok: fileAnswer('The file (206 for a range)', ['application/vnd.apple.mpegurl', 'video/mp4', 'image/jpeg']),
    }),
    (req, reply) => serve(req, reply, req.params.id, undefined, req.params.file),
  );

  app.get(
    '/media/:id/:rendition/:file',
    op(accounts, {
      ...playback,
      operationId: 'getRenditionFile',
      summary: 'A rendition playlist or segment',
      description:
        "Renditions: `main` (the MP4's streams, ≤1080p) and, for encoded sources above 480p, `360p`; `file`: stream.m3u8 or its segments.",
      params: params('id', 'rendition', 'file'),
      ok: fileAnswer('The file', ['application/vnd.apple.mpegurl', 'video/mp2t']),
    }),
    (req, reply) => serve(req, reply, req.params.id, req.params.rendition, req.params.file),
  );

  // embed_url: a page that plays the video with hls.js, made to live in an iframe on any site.
  app.get(
    '/embed/hls.min.js',
    op(accounts, {
      operationId: 'getEmbedScript',
      summary: 'hls.js for the embed page',
      scopes: 'public',
      ok: fileAnswer('JavaScript', ['text/javascript']),
    }),
    (req, reply) => sendFile(req, reply, hlsJs, 'public, max-age=86400'),
  );

  app.get(
    '/embed/:id',
    op(accounts, {
      operationId: 'getEmbedPage',
      summary: 'embed_url: a page that plays the video with hls.js',
      description: 'Sent with `Content-Security-Policy: frame-ancestors *` so it works in an iframe on any site.',
      scopes: 'public',
      params: params('id'),
      ok: fileAnswer('HTML page', ['text/html']),
      errors: ['not_found'],
    }),
    async (req, reply) => {
      const { hlsUrl, status } = await videos.embed(req.params.id);
      return reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          "frame-ancestors *; default-src 'self'; media-src 'self' blob:; img-src 'self'; style-src 'unsafe-inline'; script-src 'self' 'unsafe-inline'",
        )
        .send(embedPage(hlsUrl, status));
    },
  );
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
