import { bareToken, MINTED_SCOPES, TOKEN_TTL, type Accounts } from '../domain/accounts.js';
import type { LiveStreams } from '../domain/live.js';
import type { Uploads } from '../domain/uploads.js';
import type { Videos } from '../domain/videos.js';
import { badField } from '../http/errors.js';
import type { Usage } from '../domain/usage.js';
import { readJson, show, type Router } from '../http/router.js';
import { authed as authedBy } from './authed.js';

const MAX_FILE_NAME = 1024;
const MAX_USER = 256;
/** #1–#7: keys and upload tokens. */
const UPLOADS = ['key', 'upload'] as const;

/** #1–#4 and #6–#8 of the spec. Every one needs a token (spec: Authentication 1). */
export function videoRoutes(router: Router, accounts: Accounts, videos: Videos, uploads: Uploads, usage: Usage, streams: LiveStreams): void {
  const authed = authedBy(accounts);

  // #1 Create video. Decision: an optional body {file_name} records the uploaded file's name.
  router.add('POST', '/videos', authed(async (caller, req) => {
    const { file_name } = await readJson(req);
    if (file_name !== undefined && (typeof file_name !== 'string' || file_name.length > MAX_FILE_NAME)) {
      throw badField('file_name', `file_name must be a string of at most ${MAX_FILE_NAME} characters; got ${show(file_name)}.`);
    }
    return videos.create(caller, file_name ?? null);
  }, UPLOADS, 'create videos'));

  // #8 Get video (a clip token: the videos converted from its stream).
  router.add('GET', '/videos/{id}', authed((caller, req) => videos.details(videos.find(caller, req.params.id!)), ['key', 'upload', 'clip']));

  // #2 Signed link for a single upload. Refused once the hosting-minute quota is used up.
  router.add('POST', '/videos/{id}/uploads', authed((caller, req) => {
    const video = videos.find(caller, req.params.id!);
    usage.assertRoom(caller.organizationId, 0);
    return uploads.createLink(video);
  }, UPLOADS, 'upload'));

  // #3 Begin a multipart session; the quota as for #2.
  router.add('POST', '/videos/{id}/multipart-upload/begin', authed((caller, req) => {
    const video = videos.find(caller, req.params.id!);
    usage.assertRoom(caller.organizationId, 0);
    return uploads.begin(video);
  }, UPLOADS, 'upload'));

  // #4 One URL per chunk; the spec shows the path with and without {video-id}, so both are served.
  router.add('POST', '/videos/{id}/multipart-upload/get-chunk-upload-url', authed(async (caller, req) =>
    uploads.chunkUrl(caller, await readJson(req), req.params.id),
  UPLOADS, 'upload'));
  router.add('POST', '/videos/multipart-upload/get-chunk-upload-url', authed(async (caller, req) =>
    uploads.chunkUrl(caller, await readJson(req)),
  UPLOADS, 'upload'));

  // #6 Complete; both path forms, as for #4.
  router.add('POST', '/videos/{id}/multipart-upload/complete', authed(async (caller, req) =>
    uploads.complete(caller, await readJson(req), req.params.id),
  UPLOADS, 'upload'));
  router.add('POST', '/videos/multipart-upload/complete', authed(async (caller, req) =>
    uploads.complete(caller, await readJson(req)),
  UPLOADS, 'upload'));

  // Decision: short-lived, scoped tokens for browsers (the spec leaves lifetime, scopes and refresh "not shown").
  router.add('POST', '/tokens', authed(async (caller, req) => {
    const { ttl_seconds = TOKEN_TTL.default, scope = 'upload', user, live_stream_id } = await readJson(req);
    if (typeof ttl_seconds !== 'number' || !Number.isInteger(ttl_seconds) || ttl_seconds < TOKEN_TTL.min || ttl_seconds > TOKEN_TTL.max) {
      throw badField('ttl_seconds', `ttl_seconds must be a whole number from ${TOKEN_TTL.min} to ${TOKEN_TTL.max}; got ${show(ttl_seconds)}.`);
    }
    if (!(MINTED_SCOPES as readonly unknown[]).includes(scope)) {
      throw badField('scope', `scope must be one of ${MINTED_SCOPES.map((s) => JSON.stringify(s)).join(', ')}; got ${show(scope)}.`);
    }
    if (user !== undefined && (typeof user !== 'string' || user.length === 0 || user.length > MAX_USER)) {
      throw badField('user', `user must be a non-empty string of at most ${MAX_USER} characters (your end user's id); got ${show(user)}.`);
    }
    if (scope === 'clip' && user !== undefined) throw badField('user', 'user goes with scope "upload" only.');
    if ((scope === 'clip') !== (live_stream_id !== undefined)) {
      throw badField('live_stream_id', scope === 'clip' ? 'A clip token needs the live_stream_id it is for.' : 'live_stream_id goes with scope "clip" only.');
    }
    // A stream of the caller's own (404 otherwise, as for any other id).
    const stream = scope === 'clip' ? streams.find(caller, typeof live_stream_id === 'string' ? live_stream_id : '') : undefined;
    return accounts.createScopedToken(caller, bareToken(req.raw.headers.authorization)!, {
      ttlSeconds: ttl_seconds,
      scope: scope as (typeof MINTED_SCOPES)[number],
      endUser: (user as string | undefined) ?? null,
      liveStreamId: stream?.id ?? null,
    });
  }));

  // #7 Abort.
  router.add('POST', '/videos/multipart-upload/abort', authed(async (caller, req) => uploads.abort(caller, await readJson(req)), UPLOADS, 'upload'));
}
