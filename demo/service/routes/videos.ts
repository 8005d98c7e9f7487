import * as C from '../../../src/api/contract.js';
import type { Accounts } from '../domain/accounts.js';
import { DEFAULT_IMPORT_LIMITS, type Imports } from '../domain/imports.js';
import type { LiveStreams } from '../domain/live.js';
import type { Uploads } from '../domain/uploads.js';
import { DEFAULT_QUEUE_CAPS, QUEUE_RETRY_AFTER_SECONDS, type Videos } from '../domain/videos.js';
import { DEFAULT_OPEN_UPLOAD_CAPS } from '../domain/open-uploads.js';
import { DEFAULT_RATE_LIMITS, op, params, ref, type Api } from '../http/api.js';

/** #1–#7: keys and upload tokens. */
const UPLOADS = ['key', 'upload'] as const;
/** The caps of domain/open-uploads.ts, in the words of each operation's description. */
const OPEN_UPLOADS =
  `Decision (issue 28): an end user (of an upload token) may hold at most ${DEFAULT_OPEN_UPLOAD_CAPS.perUser} {what} ` +
  `(\`--max-open-uploads-per-user\`), an organization ${DEFAULT_OPEN_UPLOAD_CAPS.perOrganization} ` +
  '(`--max-open-uploads-per-organization`); past it, 429 `limit_reached` naming the cap, with `Retry-After` (when the ' +
  'oldest stops counting).';
const CHUNK_URL = {
  summary: '#4 Get the upload URL of one chunk',
  description:
    'One URL per chunk, valid for that chunk of that session only, until the session expires (decision: a chunk URL ' +
    'lives as long as its session). The spec shows the path with and without {id}; both are served. 403 ' +
    '`capability_revoked` once the key or token that began the session was revoked (or the key that made that token), ' +
    'whoever asks. Decision: its rate ' +
    `limit is a budget of its own, ${DEFAULT_RATE_LIMITS.chunkUrlsPerMinute} a minute per token ` +
    '(`--chunk-url-rate-limit-per-minute`), as it is called once per chunk.',
};
const COMPLETE = {
  summary: '#6 Complete a multipart upload',
  description:
    "chunkIds must run 1..N with no gap or duplicate; each eTag must be the stored chunk's (with or without quotes). " +
    'Accepted after the session expired. Decision: #6 answers once the list is checked and committed, and processing starts; ' +
    'the chunks are joined into the source as its first step, so no upload waits for that copy (a chunk sent again ' +
    "meanwhile is refused, naming it). Decision: `url` is the video's #8 address. 403 `capability_revoked` as for #4; " +
    '507 `insufficient_storage` when the joined source would take the data volume below its reserve (`--min-free-mb`).',
};
const QUEUE_FULL =
  'Decision: queued work is capped. While the organization has ' +
  `${DEFAULT_QUEUE_CAPS.perOrganization} videos processing (--max-queued-per-organization), or the end user of an ` +
  `upload token ${DEFAULT_QUEUE_CAPS.perUser} (--max-queued-per-user), the answer is 429 \`queue_full\` with ` +
  `Retry-After: ${QUEUE_RETRY_AFTER_SECONDS}. Processing counts from the accepted file (or the import's start) to ready ` +
  'or failed; conversions do not count. A link or session given before is never refused its bytes.';
const { headerTimeoutMs, idleTimeoutMs } = DEFAULT_IMPORT_LIMITS;
/** #2 and #3 start an upload: the caps on what is open (`what`) and on queued work, and every refusal they bring. */
const newUploadCaps = (what: string) => `${OPEN_UPLOADS.replace('{what}', what)} ${QUEUE_FULL}`;
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
  }: { accounts: Accounts; videos: Videos; uploads: Uploads; imports: Imports; streams: LiveStreams },
): void {
  const upload = { scopes: UPLOADS, what: 'upload' } as const;

  app.post(
    '/videos',
    op(accounts, {
      operationId: 'createVideo',
      summary: '#1 Create a video',
      description:
        "Decision: an optional body `{file_name}` records the uploaded file's name. " +
        OPEN_UPLOADS.replace('{what}', 'videos waiting for their file (made in the last day)'),
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
    (req) => videos.get(req.caller, req.params.id),
  );

  app.post(
    '/videos/:id/uploads',
    op(accounts, {
      ...upload,
      operationId: 'getUploadUrl',
      summary: '#2 Get a signed link for a single upload',
      description:
        'Valid 6 hours (then its PUT gets 403), and while the key or token that asked for it is not revoked (then its PUT ' +
        'gets 403 `capability_revoked`). Refused once the video has its file, once the hosting-minute quota is used up, and ' +
        "once the organization's storage quota in bytes is (403 `storage_quota_exceeded`; `plan --quota-bytes`, " +
        "`--storage-quota-mb`). The PUT (#5) gets 403 `storage_quota_exceeded` when the organization's stored bytes and " +
        'its body would pass that quota, and 507 `insufficient_storage` when the data volume would keep less than its ' +
        'reserve free (`--min-free-mb`), counting the bodies in flight (an undeclared length as 5 GiB), looked at again ' +
        'every 4 MiB or second of the body. ' +
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
        'The session lives 6 hours, and while the key or token that began it is not revoked; the quotas, and the limits ' +
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
        'downloads the file (http or https; it and each redirect, at most 5, must reach a public address on port 80 or 443 ' +
        "unless the service runs with --allow-private-network, or --allow-any-port for the port; a redirect's body is not " +
        'read) and processes it like an upload. Limits: the file size (--import-max-mb, 20 GiB), the whole download ' +
        "(--import-timeout-seconds, 2 h), the time to the answer's headers at each hop " +
        `(--import-header-timeout-seconds, ${headerTimeoutMs / 1000} s) and a body that sends nothing ` +
        `(--import-idle-timeout-seconds, ${idleTimeoutMs / 1000} s). Meanwhile #8 shows \`import: {bytes, total}\`; on ` +
        'failure `failure_reason` says why (the address, the port, the DNS, an HTTP status, too big, a timeout and which, ' +
        'or not media, or the storage full: the download holds its length, or the most an import takes when undeclared, ' +
        'against the disk reserve, and looks again every 4 MiB). Refused as #2 is: once the video has its file, once a quota is used up, and while the queued ' +
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
