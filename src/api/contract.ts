/**
 * The video service's contract (shared/service-spec.md), written once as JSON Schema (TypeBox).
 *   - The local service (service) validates requests, serializes answers and generates `/openapi.json` from it.
 *   - The element takes its types from it through `import type` (./types.ts): nothing of it reaches the browser.
 * Fields the spec marks "not shown" are decisions, said in each description ("Decision: …") and in docs/service.md.
 */
import { Type, type Static, type TSchema } from 'typebox';
import {
  GIB,
  HOUR_MS,
  LEAD_IN_MS,
  MAX_CHUNKS,
  MAX_JSON_BYTES,
  MAX_PART_BYTES,
  MAX_REDIRECTS,
  MAX_WEBHOOKS,
  MiB,
  PLAN_GRACE_MS,
  UPLOAD_TTL_MS,
} from './limits.js';
import { AUDIO_FIELDS, GENERAL_FIELDS, VIDEO_FIELDS } from './mediainfo-fields.js';

/** Decision: a token belongs to one environment; its videos carry it. */
export const ENVIRONMENTS = ['production', 'sandbox'] as const;
/** Decision: the life of a video object ("Transitions of a video object: not shown"). */
export const VIDEO_STATUSES = ['waiting', 'processing', 'ready', 'failed'] as const;
/** Decision: scopes POST /tokens mints (the key itself has scope `key`). */
export const MINTED_SCOPES = ['upload', 'clip'] as const;
export const WEBHOOK_EVENTS = ['video-ready'] as const;
/** Decision: lifetimes POST /tokens accepts, in seconds (default one hour). */
export const TOKEN_TTL = { min: 60, max: 24 * 60 * 60, default: 60 * 60 } as const;

/**
 * Every error code the service sends, with its HTTP status and when. The one table: the domain throws a code,
 * the HTTP layer reads its status here, and the document's enum and error descriptions come from it.
 */
export const ERRORS = {
  invalid_json: [400, 'The body is not a JSON object.'],
  invalid_field: [400, 'A field has a bad value; `error.field` names it and the message the value.'],
  invalid_path: [400, 'A path segment is not valid percent-encoding.'],
  unauthorized: [401, 'Token missing, unknown or revoked.'],
  token_expired: [401, 'The token lived past its lifetime.'],
  forbidden: [403, 'A short-lived token asked for a token.'],
  insufficient_scope: [403, "The token's scope does not reach this route (see POST /tokens)."],
  quota_exceeded: [403, 'The hosting-minute quota is used up.'],
  storage_quota_exceeded: [403, "The organization's storage quota in bytes is used up (`plan --quota-bytes`)."],
  capability_revoked: [
    403,
    'The key or token that asked for this link or session was revoked (#4, #5, #6), or the organization was purged (every route).',
  ],
  invalid_signature: [403, 'Storage: the upload URL is unsigned or tampered with.'],
  signature_expired: [403, 'Storage: the upload URL has expired.'],
  not_found: [404, 'Not found, or belongs to another organization, environment, end user or stream (never 403).'],
  not_ready: [404, 'The video is not ready yet.'],
  method_not_allowed: [405, 'The path exists with other methods; `Allow` names them.'],
  already_uploaded: [409, 'The video already has its file.'],
  session_closed: [
    409,
    'The multipart session was completed or aborted (a day after it expired, the service aborts it).',
  ],
  session_completing: [409, "The video's multipart upload is being completed (one at a time, whichever session)."],
  upload_in_progress: [409, 'Storage: another PUT to this URL is still sending its body.'],
  recording_not_complete: [
    409,
    'The temporary recording can still grow: it is complete once stopped for longer than the merge window.',
  ],
  too_many_webhooks: [409, `An organization has at most ${MAX_WEBHOOKS} webhooks per environment.`],
  session_expired: [410, 'The multipart session expired: no more chunk URLs (complete and abort still work).'],
  payload_too_large: [
    413,
    `A JSON body over ${MAX_JSON_BYTES / MiB} MiB, or a chunk or single upload of ${MAX_PART_BYTES / GIB} GiB or more.`,
  ],
  unsupported_media_type: [415, 'Test hooks take application/json only.'],
  incomplete_body: [400, 'Storage: the body ended before its Content-Length.'],
  invalid_host: [421, 'Test hooks: the Host header is not the address the service listens on.'],
  rate_limited: [429, 'Too many requests from this token; `Retry-After` says when to try again.'],
  queue_full: [
    429,
    'The organization, or the end user, has as much work queued as it may; `Retry-After` says when to try again.',
  ],
  limit_reached: [
    429,
    'A cap on open uploads (videos, links, sessions) or on conversions under way; `Retry-After` says when to try again.',
  ],
  internal: [500, 'The service failed; it was logged.'],
  insufficient_storage: [507, 'Storage: the data volume would keep less than its reserve free.'],
  storage_unavailable: [
    503,
    'The object store (`--storage s3://…`) did not answer or refused the service; try again later.',
  ],
} as const satisfies Record<string, readonly [number, string]>;
export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

const Id = (description = 'A 24-hex id.') => Type.String({ pattern: '^[0-9a-f]{24}$', description });
const DateTime = (description = 'ISO 8601 with milliseconds, UTC.') =>
  Type.String({ format: 'date-time', description });
const Uri = (description: string) => Type.String({ format: 'uri', description });
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const OneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: values, ...(description ? { description } : {}) });
const strings = <const T extends readonly string[]>(fields: T) =>
  Object.fromEntries(fields.map((f) => [f, Type.String()])) as { [K in T[number]]: ReturnType<typeof Type.String> };

/** Decision: the one shape of every failure of the service. */
export const ApiError = Type.Object(
  {
    error: Type.Object({
      status: Type.Integer(),
      code: Type.String({ enum: ERROR_CODES, description: 'Stable, for programs; see docs/service.md.' }),
      message: Type.String({ description: 'A sentence that names what was wrong and the bad value.' }),
      field: Type.Optional(Type.String({ description: 'The request field at fault, e.g. `chunks[2].eTag`.' })),
    }),
  },
  { $id: 'Error', description: 'Decision: every error is `{"error": {"status", "code", "message", "field"?}}`.' },
);
export type ApiErrorBody = Static<typeof ApiError>;

const Playback = Type.Object({
  embed_url: Uri('A page that plays the video; works in an iframe on any site.'),
  hls_url: Uri('HLS master playlist (index.m3u8); 404 until ready.'),
  poster_url: Type.Optional(Nullable(Uri('A JPEG frame.'), 'Decision: null until ready, and for audio-only videos.')),
});

const videoFields = {
  _id: Id(),
  playback: Playback,
  user: Type.String({
    description: "The integrator's end user, when an upload token named one; else the organization's user.",
  }),
  environment: OneOf(ENVIRONMENTS, "Decision: production or sandbox, the token's environment."),
  organization: Type.String(),
  creation_time: DateTime(),
};
/** Response of #1 POST /videos. */
export const Video = Type.Object(videoFields, { $id: 'Video' });

const MediaTrack = Type.Union([
  Type.Object({ '@type': Type.Literal('General'), ...strings(GENERAL_FIELDS) }),
  Type.Object({ '@type': Type.Literal('Video'), ...strings(VIDEO_FIELDS) }),
  Type.Object({ '@type': Type.Literal('Audio'), ...strings(AUDIO_FIELDS) }),
]);
export const MediaInfo = Type.Object(
  {
    duration: Type.String({ pattern: '^\\d+\\.\\d{3}$', description: 'Seconds with three decimals, e.g. "12.345".' }),
    track: Type.Array(MediaTrack),
  },
  {
    description:
      'Decision: MediaInfo of the delivered MP4 (what viewers get), every value a string. `OverallBitRate_Mode`, which ' +
      'MediaInfo leaves out for most MP4s, is derived: "CBR" when every track reports CBR, otherwise "VBR". Another ' +
      'field MediaInfo does not report is "" (e.g. `ChannelPositions` of an unusual layout).',
  },
);

/** Response of #8 GET /videos/{id}: the video object plus what the service knows of it. */
export const VideoDetails = Type.Object(
  {
    ...videoFields,
    status: OneOf(VIDEO_STATUSES, 'Decision: waiting (for its file) → processing → ready | failed.'),
    failure_reason: Nullable(
      Type.String(),
      'Why processing failed, for a person, with no server path: not a media container, or past one of the ' +
        "service's limits (length, size either way up, frame rate, time to process; #1's description states them as " +
        "the service runs), naming the limit and the file's value.",
    ),
    download_url: Nullable(Uri('H.264/AAC MP4.'), 'null until ready.'),
    duration: Nullable(Type.Number(), 'Seconds, from the processed media; null until ready.'),
    size: Nullable(Type.Integer(), 'Bytes of the uploaded source; null until uploaded.'),
    file_name: Nullable(Type.String(), 'From the optional body of #1.'),
    upload_method: Nullable(
      OneOf(['single', 'multipart', 'import']),
      'How the source arrived; null for a video converted from a recording.',
    ),
    import: Nullable(
      Type.Object({
        bytes: Type.Integer({ minimum: 0, description: 'Bytes downloaded so far.' }),
        total: Nullable(Type.Integer({ minimum: 0 }), "The file's length, when its server says it; else null."),
      }),
      'Decision: while the service downloads the file of an import (POST /videos/{id}/import), its progress; null otherwise.',
    ),
    live_stream_id: Nullable(
      Type.String(),
      'Decision: the live stream a converted recording came from (#10, listed by #11); null for uploads.',
    ),
    mediainfo: Nullable(MediaInfo, 'null until ready.'),
    update_time: DateTime(),
    ready_time: Nullable(DateTime(), 'null until ready.'),
  },
  { $id: 'VideoDetails', description: 'Decision: the full video object of #8.' },
);

/** Body of POST /videos/{id}/import (decision: the spec names upload from a third-party URL, and shows no more). */
export const ImportRequest = Type.Object({
  url: Type.String({
    maxLength: 2048,
    description:
      `An http(s) URL of the file, with no user name or password. It and every redirect (at most ${MAX_REDIRECTS}) must reach a ` +
      'public address, unless the service runs with --allow-private-network.',
  }),
});

/** Optional body of #1 (decision: the spec sends none); `file_name` is kept as the source's name. */
export const CreateVideoRequest = Type.Object({ file_name: Type.Optional(Type.String({ maxLength: 1024 })) });

/** Response of #2 and #4. */
export const UploadUrl = Type.Object(
  { url: Uri('A signed storage URL for one PUT (#5); no Authorization goes with it.') },
  { $id: 'UploadUrl' },
);

/** Response of #3. */
export const MultipartSession = Type.Object(
  {
    key: Type.String({ description: 'Opaque session key.' }),
    expiresAt: Type.Integer({
      description: `Decision: milliseconds since the epoch (13 digits); ${UPLOAD_TTL_MS / HOUR_MS} hours after begin.`,
    }),
  },
  { $id: 'MultipartSession' },
);

const ChunkId = Type.Integer({ minimum: 1, maximum: MAX_CHUNKS });
const SessionKey = Type.String({ minLength: 1, description: 'The session key from begin (#3).' });
/** Body of #4. */
export const ChunkUrlRequest = Type.Object({ key: SessionKey, chunkId: ChunkId });

/** Element of `chunks` in #6. */
export const ChunkDetail = Type.Object({
  chunkId: ChunkId,
  eTag: Type.String({
    pattern: '^"?[0-9a-fA-F]{32}"?$',
    description: "The ETag of the chunk's PUT (quoted hex MD5), with or without its quotes.",
  }),
});
/** Body of #6: chunkIds 1..N in any order, with no gap or duplicate. */
export const CompleteRequest = Type.Object({
  chunks: Type.Array(ChunkDetail, { minItems: 1, maxItems: MAX_CHUNKS }),
  key: SessionKey,
});
/** Response of #6. Decision: `url` is the video's #8 address. */
export const CompleteResponse = Type.Object(
  { success: Type.Boolean(), url: Uri("The video's #8 address.") },
  { $id: 'CompleteResponse' },
);

/** Body of #7. */
export const AbortRequest = Type.Object({ key: SessionKey });
/** Response of #7 and of the DELETEs. */
export const Success = Type.Object({ success: Type.Boolean() }, { $id: 'Success' });

/** Body of POST /tokens (decision: token lifetime, scopes and refresh are "not shown"). */
export const TokenRequest = Type.Object({
  ttl_seconds: Type.Optional(
    Type.Integer({ minimum: TOKEN_TTL.min, maximum: TOKEN_TTL.max, default: TOKEN_TTL.default }),
  ),
  scope: Type.Optional(OneOf(MINTED_SCOPES)),
  user: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: "scope upload: the integrator's end user, the videos' `user`.",
    }),
  ),
  live_stream_id: Type.Optional(
    Type.String({ description: 'scope clip (required there): the live stream the token is for.' }),
  ),
});
export const Token = Type.Object(
  {
    token: Type.String(),
    expiresAt: Type.Integer({ description: 'Milliseconds since the epoch.' }),
    scope: OneOf(MINTED_SCOPES),
  },
  { $id: 'Token' },
);

/**
 * Decision: a live stream ("Other live stream endpoints: not shown"). Answered to an organization's key only (no
 * route that answers one is open to another scope); were it ever answered to another, `stream_key` and
 * `ingest.url` would come masked, as in #9.
 */
export const LiveStream = Type.Object(
  {
    _id: Id(),
    name: Nullable(Type.String(), 'As given at creation.'),
    stream_key: Type.String({
      pattern: '^lv_',
      description:
        'Secret: whoever has it can publish. Only a key sees it whole (anyone else: `lv_…` and its last four characters). ' +
        'POST /live_streams/{id}/stream-key issues a new one and cuts a publish using the old one.',
    }),
    ingest: Type.Object({
      server: Type.String({
        description: 'RTMP server URL for OBS (rtmp://HOST:PORT/live); the stream key goes in its own box.',
      }),
      url: Type.String({ description: 'server + "/" + stream_key, for ffmpeg; with the key masked as stream_key is.' }),
    }),
    status: OneOf(['idle', 'live'], '`live` while a publisher is on.'),
    creation_time: DateTime(),
  },
  { $id: 'LiveStream' },
);
export const CreateLiveStreamRequest = Type.Object({ name: Type.Optional(Type.String({ maxLength: 256 })) });

/** #10's response and an element of `export_data`. */
export const ExportEntry = Type.Object(
  {
    from: DateTime('Where the part starts, on the service clock.'),
    duration: Type.Integer({ description: 'Seconds.' }),
    bytes: Type.Integer({ description: 'Size of the file at download_url; 0 while processing.' }),
    status: OneOf(
      ['PROCESSING', 'EXPORTED', 'FAILED'],
      "Decision: FAILED (an addition) when the cut or processing failed; the video's #8 says why.",
    ),
    video_id: Type.Optional(
      Type.String({ description: 'In listed entries once EXPORTED (or FAILED); never in the #10 response.' }),
    ),
    download_url: Nullable(Uri("The new video's MP4."), 'null until EXPORTED.'),
  },
  { $id: 'ExportEntry' },
);

/** Element of #9's array. */
export const TemporaryRecording = Type.Object(
  {
    _id: Id(),
    stream_key: Type.String({
      description:
        "The stream's current publish key, whole for an organization's key only. Decision: a clip token (or any other " +
        'token) gets it masked, `lv_…` and its last four characters (`lv_…abcd`), which cannot publish.',
    }),
    start_time: DateTime('When the first publish began.'),
    end_time: Nullable(DateTime(), 'Decision: when the last publish stopped; null until complete.'),
    export_data: Type.Array(ExportEntry),
    duration: Type.Integer({ description: 'Whole seconds of media recorded so far; final once complete.' }),
    playback: Type.Object({
      temporary_playback: Uri(
        'HLS playlist: EVENT while it can grow, VOD once complete; a discontinuity where a publisher came back; program date times on the service clock.',
      ),
      storyboard: Uri(
        'Decision (an addition): WebVTT of thumbnails, one per segment, on the timeline of temporary_playback; each cue is a sheet address relative to it with `#xywh=x,y,w,h`. Grows with the recording.',
      ),
    }),
    download_url: Nullable(Uri('MP4 of the whole recording.'), 'Decision: null until complete.'),
    status: OneOf(
      ['live', 'stopped', 'complete'],
      'Decision: live (a publisher is on), stopped (inside the merge window, or being finished), complete.',
    ),
  },
  { $id: 'TemporaryRecording' },
);

/** Body of #10: both fields for a part; decision: `{}` or no body at all converts the whole recording. */
export const ConversionRequest = Type.Object(
  {
    from: Type.Optional(
      Type.String({
        description: `ISO 8601 with a time zone, inside the media of the recording (not in a gap between publishes). Decision: a \`from\` at most ${LEAD_IN_MS} ms before a publish's first media is that publish's start, and the answer's \`from\` says so (a player asking for the first frame half a frame early lands just before it).`,
      }),
    ),
    duration: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Whole seconds that fit after `from` (the parts counted one after another).',
      }),
    ),
  },
  { description: 'Both fields for a part; `{}` or no body at all converts the whole recording.' },
);

export const Webhook = Type.Object(
  {
    _id: Id(),
    url: Uri('The receiver.'),
    events: Type.Array(OneOf(WEBHOOK_EVENTS)),
    creation_time: DateTime(),
    secret: Type.Optional(
      Type.String({
        description: 'Only in the answer to POST /webhooks: `whsec_` + base64 key for Standard Webhooks signatures.',
      }),
    ),
  },
  { $id: 'Webhook' },
);
export const CreateWebhookRequest = Type.Object({
  url: Type.String({ description: 'http(s), without credentials, reaching no internal address.' }),
  events: Type.Optional(Type.Array(OneOf(WEBHOOK_EVENTS), { minItems: 1 })),
});

export const Usage = Type.Object(
  {
    hosting_minutes: Type.Object({
      used: Type.Number({
        description:
          'Minutes of permanent videos (ready ones, and conversions under way at their asked duration). Temporary recordings do not count.',
      }),
      quota: Nullable(Type.Number(), 'null: unlimited (the default).'),
    }),
    plan: Type.Object({
      end_time: Nullable(DateTime(), 'null: the plan does not end.'),
      files_deleted_time: Nullable(
        DateTime(),
        `${PLAN_GRACE_MS / (24 * HOUR_MS)} days after the plan ends every file is deleted, permanently.`,
      ),
    }),
  },
  { $id: 'Usage' },
);

/** The `video-ready` webhook's body. */
export const VideoReadyEvent = Type.Object(
  { event: Type.Literal('video-ready'), payload: Type.Object({ _id: Type.String(), mediainfo: MediaInfo }) },
  { $id: 'VideoReadyEvent' },
);

/** Components of the document: schemas with an `$id`, which routes name by reference. */
export const COMPONENTS = [
  ApiError,
  Video,
  VideoDetails,
  UploadUrl,
  MultipartSession,
  CompleteResponse,
  Success,
  Token,
  LiveStream,
  ExportEntry,
  TemporaryRecording,
  Webhook,
  Usage,
  VideoReadyEvent,
];
