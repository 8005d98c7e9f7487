import * as C from '../../src/api/contract.js';
import { MAX_PART_BYTES, MAX_REDIRECTS, UPLOAD_TTL_MS } from '../../src/api/limits.js';
import type { Accounts } from '../domain/accounts.js';
import type { Imports } from '../domain/imports.js';
import type { LiveStreams } from '../domain/live-streams.js';
import type { Uploads } from '../domain/uploads.js';
import { QUEUE_RETRY_AFTER_SECONDS, type Videos } from '../domain/videos.js';
import { op, params, ref, type Api } from '../http/api.js';
import { spokenBytes } from '../http/document.js';
import { WEB_PORTS } from '../net/outbound.js';
import { spoken } from '../processing/ffmpeg.js';
import type { Settings } from '../settings.js';
import { CHECK_EVERY_BYTES, CHECK_EVERY_MS } from '../storage/files.js';

/** #1–#7: keys and upload tokens. */
const UPLOADS = ['key', 'upload'] as const;
/** How long a signed link or a multipart session lives, in words. */
const UPLOAD_TTL = spoken(UPLOAD_TTL_MS / 1000);
/** How often a body's room is looked at again (storage/files.ts), in words. */
const RECHECK = `${spokenBytes(CHECK_EVERY_BYTES)} or ${spoken(CHECK_EVERY_MS / 1000)}`;

/**
 * The descriptions that state limits a flag changes, as the service runs with them: started with
 * `--max-open-uploads-per-user 5`, its document says 5.
 */
function described({ openUploadCaps, queueCaps, rateLimits, limits }: Settings) {
  /** The caps of domain/open-uploads.ts, in the words of each operation's description. */
  const openUploads = (what: string) =>
    `Decision (issue 28): an end user (of an upload token) may hold at most ${openUploadCaps.perUser} ${what} ` +
    `(\`--max-open-uploads-per-user\`), an organization ${openUploadCaps.perOrganization} ` +
    '(`--max-open-uploads-per-organization`); past it, 429 `limit_reached` naming the cap, with `Retry-After` (when the ' +
    'oldest stops counting).';
  const queueFull =
    'Decision: queued work is capped. While the organization has ' +
    `${queueCaps.perOrganization} videos processing (--max-queued-per-organization), or the end user of an ` +
    `upload token ${queueCaps.perUser} (--max-queued-per-user), the answer is 429 \`queue_full\` with ` +
    `Retry-After: ${QUEUE_RETRY_AFTER_SECONDS}. Processing counts from the accepted file (or the import's start) to ready ` +
    'or failed; conversions do not count. A link or session given before is never refused its bytes.';
  return {
    openUploads,
    /** #2 and #3 start an upload: the caps on what is open (`what`) and on queued work, and every refusal they bring. */
    newUploadCaps: (what: string) => `${openUploads(what)} ${queueFull}`,
    /** The limits of processing/pipeline.ts, which `failure_reason` (#8) names when a file passes one. */
    processing:
      `A video may be up to ${spoken(limits.maxDurationSeconds)} long (\`--max-duration-seconds\`), ` +
      `${limits.maxLongSide}×${limits.maxShortSide} either way up (\`--max-resolution\`) and ${limits.maxFrameRate} fps ` +
      `(\`--max-frame-rate\`); its processing may take ${spoken(limits.baseSeconds)} + ${limits.secondsPerMediaSecond}× ` +
      'its length (`--processing-base-seconds`, `--processing-seconds-per-media-second`). Past any, processing fails ' +
      'and `failure_reason` names the limit.',
    chunkUrl: {
      summary: '#4 Get the upload URL of one chunk',
      description:
        'One URL per chunk, valid for that chunk of that session only, until the session expires (decision: a chunk URL ' +
        'lives as long as its session). The spec shows the path with and without {id}; both are served. 403 ' +
        '`capability_revoked` once the key or token that began the session was revoked (or the key that made that token), ' +
        'whoever asks. Decision: its rate ' +
        `limit is a budget of its own, ${rateLimits.chunkUrlsPerMinute} a minute per token ` +
        '(`--chunk-url-rate-limit-per-minute`), as it is called once per chunk.',
    },
  };
}
const COMPLETE = {
  summary: '#6 Complete a multipart upload',
  description:
    "chunkIds must run 1..N with no gap or duplicate; each eTag must be the stored chunk's (with or without quotes). " +
    'Accepted after the session expired. Decision: #6 answers once the list is checked and committed, and processing starts; ' +
    'the chunks are joined into the source as its first step, so no upload waits for that copy (a chunk sent again ' +
    "meanwhile is refused, naming it). Decision: `url` is the video's #8 address. 403 `capability_revoked` as for #4; " +
    '507 `insufficient_storage` when the joined source would take the data volume below its reserve (`--min-free-mb`).',
};
const NEW_UPLOAD_ERRORS = [
  'not_found',
  'already_uploaded',
  'quota_exceeded',
  'storage_quota_exceeded',
  'limit_reached',
  'queue_full',
] as const;

/** #1–#4, #6–#8 of the spec, and POST /tokens. Every one needs a token (spec: Authentication 1). */
export function videoRoutes(
  app: Api,
  {
    accounts,
    videos,
    uploads,
    imports,
    streams,
    settings,
  }: {
    accounts: Accounts;
    videos: Videos;
    uploads: Uploads;
    imports: Imports;
    streams: LiveStreams;
    /** The running service's limits, which the descriptions state. */
    settings: Settings;
  },
): void {
  const upload = { scopes: UPLOADS, what: 'upload' } as const;
  const { openUploads, newUploadCaps, processing, chunkUrl: CHUNK_URL } = described(settings);
  const { importLimits, minFreeBytes } = settings;

  app.post(
    '/videos',
    op(accounts, {
      operationId: 'createVideo',
      summary: '#1 Create a video',
      description:
        "Decision: an optional body `{file_name}` records the uploaded file's name. " +
        `${openUploads('videos waiting for their file (made in the last day)')} ${processing}`,
      scopes: UPLOADS,
      what: 'create videos',
      body: C.CreateVideoRequest,
      ok: ref(C.Video),
      errors: ['limit_reached'],
    }),
    (req) => videos.create(req.caller, req.body.file_name ?? null),
  );

  app.get(
    '/videos/:id',
    op(accounts, {
      operationId: 'getVideo',
      summary: '#8 Get a video',
      description: 'A clip token sees the videos converted from its stream; an upload token those of its end user.',
      scopes: ['key', 'upload', 'clip'],
      params: params('id'),
      ok: ref(C.VideoDetails),
      errors: ['not_found'],
    }),
    async (req) => {
      const video = await videos.find(req.caller, req.params.id);
      // On an S3 store a #2 PUT goes to the store, not the service: the video's own poll sees it (domain/uploads.ts).
      if (video.status === 'waiting' && (await uploads.sourceArrived(video.id)))
        return videos.get(req.caller, video.id);
      return videos.details(video);
    },
  );

  app.post(
    '/videos/:id/uploads',
    op(accounts, {
      ...upload,
      operationId: 'getUploadUrl',
      summary: '#2 Get a signed link for a single upload',
      description:
        `Valid ${UPLOAD_TTL} (then its PUT gets 403), and while the key or token that asked for it is not revoked (then its PUT ` +
        'gets 403 `capability_revoked`). Refused once the video has its file, once the hosting-minute quota is used up, and ' +
        "once the organization's storage quota in bytes is (403 `storage_quota_exceeded`; `plan --quota-bytes`, " +
        "`--storage-quota-mb`). The PUT (#5) gets 403 `storage_quota_exceeded` when the organization's stored bytes and " +
        'its body would pass that quota, and 507 `insufficient_storage` when the data volume would keep less than its ' +
        `reserve free (\`--min-free-mb\`, ${spokenBytes(minFreeBytes)}), counting the bodies in flight (an undeclared ` +
        `length as ${spokenBytes(MAX_PART_BYTES)}), looked at again every ${RECHECK} of the body. ` +
        newUploadCaps('signed links not expired (a link stops counting once its video has its file)'),
      params: params('id'),
      ok: ref(C.UploadUrl),
      errors: NEW_UPLOAD_ERRORS,
    }),
    (req) => uploads.createLink(req.caller, req.params.id),
  );

  app.post(
    '/videos/:id/multipart-upload/begin',
    op(accounts, {
      ...upload,
      operationId: 'beginMultipartUpload',
      summary: '#3 Begin a multipart upload',
      description:
        `The session lives ${UPLOAD_TTL}, and while the key or token that began it is not revoked; the quotas, and the limits ` +
        'of its chunk PUTs (#5), as for #2. ' +
        newUploadCaps('multipart sessions open and not expired (complete or abort one to free its place)'),
      params: params('id'),
      ok: ref(C.MultipartSession),
      errors: NEW_UPLOAD_ERRORS,
    }),
    (req) => uploads.begin(req.caller, req.params.id),
  );

  const chunkUrl = {
    ...upload,
    ...CHUNK_URL,
    body: C.ChunkUrlRequest,
    ok: ref(C.UploadUrl),
    errors: ['not_found', 'session_closed', 'session_expired', 'capability_revoked'],
  } as const;
  app.post(
    '/videos/:id/multipart-upload/get-chunk-upload-url',
    op(accounts, { ...chunkUrl, operationId: 'getChunkUploadUrlOfVideo', params: params('id') }),
    (req) => uploads.chunkUrl(req.caller, req.body, req.params.id),
  );
  app.post(
    '/videos/multipart-upload/get-chunk-upload-url',
    op(accounts, { ...chunkUrl, operationId: 'getChunkUploadUrl' }),
    (req) => uploads.chunkUrl(req.caller, req.body),
  );

  const complete = {
    ...upload,
    ...COMPLETE,
    body: C.CompleteRequest,
    ok: ref(C.CompleteResponse),
    errors: [
      'not_found',
      'session_closed',
      'session_completing',
      'already_uploaded',
      'insufficient_storage',
      'capability_revoked',
    ],
  } as const;
  app.post(
    '/videos/:id/multipart-upload/complete',
    op(accounts, { ...complete, operationId: 'completeMultipartUploadOfVideo', params: params('id') }),
    (req) => uploads.complete(req.caller, req.body, req.params.id),
  );
  app.post(
    '/videos/multipart-upload/complete',
    op(accounts, { ...complete, operationId: 'completeMultipartUpload' }),
    (req) => uploads.complete(req.caller, req.body),
  );

  app.post(
    '/videos/multipart-upload/abort',
    op(accounts, {
      ...upload,
      operationId: 'abortMultipartUpload',
      summary: '#7 Abort a multipart upload',
      description:
        'Deletes the chunks; later chunk URLs, chunk PUTs and completes get 409. Accepted after expiry. Decision: aborting twice succeeds.',
      body: C.AbortRequest,
      ok: ref(C.Success),
      errors: ['not_found', 'session_closed', 'session_completing'],
    }),
    (req) => uploads.abort(req.caller, req.body),
  );

  app.post(
    '/videos/:id/import',
    op(accounts, {
      ...upload,
      operationId: 'importVideo',
      summary: 'Upload from a third-party URL',
      description:
        'Decision (the spec names this third way and shows no more): answers 202 with the #8 object; the service then ' +
        `downloads the file (http or https; it and each redirect, at most ${MAX_REDIRECTS}, must reach a public address on port ${WEB_PORTS.join(' or ')} ` +
        "unless the service runs with --allow-private-network, or --allow-any-port for the port; a redirect's body is not " +
        `read) and processes it like an upload. Limits: the file size (--import-max-mb, ${spokenBytes(importLimits.maxBytes)}), the whole download ` +
        `(--import-timeout-seconds, ${spoken(importLimits.timeoutMs / 1000)}), the time to the answer's headers at each hop ` +
        `(--import-header-timeout-seconds, ${spoken(importLimits.headerTimeoutMs / 1000)}) and a body that sends nothing ` +
        `(--import-idle-timeout-seconds, ${spoken(importLimits.idleTimeoutMs / 1000)}). Meanwhile #8 shows \`import: {bytes, total}\`; on ` +
        'failure `failure_reason` says why (the address, the port, the DNS, an HTTP status, too big, a timeout and which, ' +
        'or not media, or the storage full: the download holds its length, or the most an import takes when undeclared, ' +
        `against the disk reserve, and looks again every ${spokenBytes(CHECK_EVERY_BYTES)}). Refused as #2 is: once the video has its file, once a quota is used up, and while the queued ` +
        'work is at its cap (an import under way counts).',
      params: params('id'),
      body: C.ImportRequest,
      ok: ref(C.VideoDetails),
      okStatus: 202,
      errors: ['not_found', 'already_uploaded', 'quota_exceeded', 'storage_quota_exceeded', 'queue_full'],
    }),
    async (req, reply) => {
      reply.code(202);
      return imports.start(req.caller, req.params.id, req.body.url);
    },
  );

  app.post(
    '/tokens',
    op(accounts, {
      operationId: 'createToken',
      summary: 'Create a short-lived, scoped token (for a browser)',
      description:
        'Decision (token lifetime, scopes and refresh: not shown): a key (from the dashboard, or `npm run service -- token`) ' +
        'trades for a short-lived token of the same organization and environment, which a backend hands to the browser. ' +
        'Scopes: `upload` (the default) reaches #1–#8 only, on the videos of the end user `user` names (videos it creates carry ' +
        'that `user`; tokens minted for the same user share them; without `user`, only the videos that token itself ' +
        "created: a token refreshed without `user` cannot continue the last one's upload, so name a `user` for that); `clip` is " +
        'bound to `live_stream_id` and reaches #9, #10 and #11 of that stream and #8 of the videos converted from it. Any ' +
        "other route answers 403 `insufficient_scope`; another user's or stream's objects are 404. Only a key creates tokens. " +
        'Revoking a key revokes the tokens made from it, and the signed links and sessions they asked for (403 ' +
        "`capability_revoked`). A purged organization's keys and tokens get 403 `capability_revoked`.",
      body: C.TokenRequest,
      ok: ref(C.Token),
      errors: ['not_found'],
    }),
    (req) =>
      accounts.mintToken(req.caller, req.headers.authorization, req.body, (caller, id) => streams.find(caller, id)),
  );
}
