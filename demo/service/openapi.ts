import { AUDIO_FIELDS, ENVIRONMENTS, GENERAL_FIELDS, VIDEO_FIELDS, VIDEO_STATUSES } from '../../src/api/types.js';
import { MINTED_SCOPES } from './domain/accounts.js';
import { MAX_WEBHOOKS, RETRY_WAITS_MS, WEBHOOK_EVENTS } from './domain/webhooks.js';
import { FAULT_ACTIONS } from './faults.js';
import { RECORDING_PART, RECORDING_SEGMENT } from './routes/live.js';

/**
 * OpenAPI 3.1 of everything the local service implements: the spec's endpoints and fields, and each
 * decision taken where the spec says "not shown" (marked "Decision:"). A test checks that every
 * registered route is here.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const strings = (fields: readonly string[]) => Object.fromEntries(fields.map((f) => [f, { type: 'string' }]));
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s], ...json(ref('Error')) }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'Bad JSON, or a field with a bad value; `error.field` names it.',
  401: 'Token missing, unknown, revoked or expired.',
  403: 'Upload URL signature missing, tampered or expired; `insufficient_scope`: the token\'s scope does not reach this route (see POST /tokens); a short-lived token asked for a token; or `quota_exceeded`: the hosting-minute quota is used up.',
  404: 'Not found, or belongs to another organization or environment (never 403).',
  405: 'Method not allowed on this path.',
  409: 'Session already completed or aborted (a session abandoned a day after it expired is aborted); video already has its file; completion of the video in progress (one at a time, whichever session); `recording_not_complete`; or `too_many_webhooks`.',
  410: 'Multipart session expired: no more chunk URLs (complete and abort still work).',
  413: 'Body too large: JSON over 1 MiB, or a chunk or single upload of 5 GiB or more.',
};
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } };
const op = (summary: string, extra: object) => ({ summary, security: [{ bearer: [] }], ...extra });
const publicOp = (summary: string, extra: object) => ({ summary, security: [], ...extra });
const chunkUrlOp = (withId: boolean) =>
  op('#4 Get the upload URL of one chunk', {
    description:
      'One URL per chunk, valid for that chunk of that session only, until the session expires (Decision: ' +
      'a chunk URL lives as long as its session). Both path forms, with and without {id}, are served.',
    ...(withId ? { parameters: [idParam] } : {}),
    requestBody: json(ref('ChunkUrlRequest')),
    responses: { 200: { description: 'Upload URL', ...json(ref('UploadUrl')) }, ...errors(400, 401, 404, 409, 410) },
  });
const completeOp = (withId: boolean) =>
  op('#6 Complete a multipart upload', {
    description:
      'chunkIds must run 1..N with no gap or duplicate; each eTag must be the stored chunk\'s (with or without ' +
      'quotes). Accepted after the session expired. The source is assembled by streaming and processing starts. ' +
      'Decision: `url` is the video\'s #8 address. Both path forms are served.',
    ...(withId ? { parameters: [idParam] } : {}),
    requestBody: json(ref('CompleteRequest')),
    responses: { 200: { description: 'Completed', ...json(ref('CompleteResponse')) }, ...errors(400, 401, 404, 409) },
  });

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Video service (local implementation)',
      version: '1.0.0',
      description:
        'Implements shared/service-spec.md. Every "not shown" of the spec is decided here and in the README. ' +
        'Decision: every error is `{"error": {"status", "code", "message", "field"?}}`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Decision: `Authorization: Bearer <token>`; the bare token is accepted too.',
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['status', 'code', 'message'],
              properties: {
                status: { type: 'integer' },
                code: {
                  type: 'string',
                  examples: ['invalid_json', 'invalid_field', 'unauthorized', 'token_expired', 'not_found', 'not_ready',
                    'invalid_signature', 'signature_expired', 'session_expired', 'session_closed', 'session_completing',
                    'already_uploaded', 'payload_too_large', 'incomplete_body', 'method_not_allowed', 'internal',
                    'recording_not_complete', 'quota_exceeded'],
                },
                message: { type: 'string', description: 'Names what was wrong and the bad value.' },
                field: { type: 'string', description: 'The field at fault, e.g. `chunks[2].eTag`.' },
              },
            },
          },
        },
        Playback: {
          type: 'object',
          required: ['embed_url', 'hls_url'],
          properties: {
            embed_url: { type: 'string', format: 'uri', description: 'A page that plays the video; works in an iframe.' },
            hls_url: { type: 'string', format: 'uri', description: 'HLS master playlist (index.m3u8); 404 until ready.' },
            poster_url: { type: ['string', 'null'], format: 'uri', description: 'Decision: a JPEG frame; null until ready and for audio-only videos.' },
          },
        },
        Video: {
          type: 'object',
          required: ['_id', 'playback', 'user', 'environment', 'organization', 'creation_time'],
          properties: {
            _id: { type: 'string', pattern: '^[0-9a-f]{24}$' },
            playback: ref('Playback'),
            user: { type: 'string' },
            environment: { enum: ENVIRONMENTS, description: 'Decision: production or sandbox, the token\'s environment.' },
            organization: { type: 'string' },
            creation_time: { type: 'string', format: 'date-time', description: 'ISO 8601 with milliseconds, UTC.' },
          },
        },
        VideoDetails: {
          description: 'Decision: the full video object of #8.',
          allOf: [
            ref('Video'),
            {
              type: 'object',
              required: ['status', 'failure_reason', 'download_url', 'duration', 'size', 'file_name', 'upload_method', 'live_stream_id', 'mediainfo', 'update_time', 'ready_time'],
              properties: {
                status: { enum: VIDEO_STATUSES, description: 'Decision: waiting (for its file) → processing → ready | failed.' },
                failure_reason: { type: ['string', 'null'], description: 'Why processing failed, for a person, with no server path: not a media container (uploads open only as one; a playlist or concat list is refused), or past a limit (4 h, 4096×2304 either way up, 120 fps, 60 s + 10× the length to process; the service\'s flags change them), naming the limit and the file\'s value.' },
                download_url: { type: ['string', 'null'], format: 'uri', description: 'H.264/AAC MP4; null until ready.' },
                duration: { type: ['number', 'null'], description: 'Seconds.' },
                size: { type: ['integer', 'null'], description: 'Bytes of the uploaded source.' },
                file_name: { type: ['string', 'null'], description: 'From the optional body of #1.' },
                upload_method: { enum: ['single', 'multipart', null], description: 'null for a video converted from a recording.' },
                live_stream_id: { type: ['string', 'null'], description: 'Decision: the live stream a converted recording came from; null for uploads.' },
                mediainfo: { oneOf: [ref('MediaInfo'), { type: 'null' }] },
                update_time: { type: 'string', format: 'date-time' },
                ready_time: { type: ['string', 'null'], format: 'date-time' },
              },
            },
          ],
        },
        MediaInfo: {
          type: 'object',
          description:
            'Decision: MediaInfo of the delivered MP4 (what viewers get), every value a string. `OverallBitRate_Mode`, which ' +
            'MediaInfo leaves out for most MP4s, is derived: "CBR" when every track reports CBR, otherwise "VBR". Another ' +
            'field MediaInfo does not report is "" (e.g. `ChannelPositions` of an unusual layout).',
          required: ['duration', 'track'],
          properties: {
            duration: { type: 'string', pattern: '^\\d+\\.\\d{3}$' },
            track: {
              type: 'array',
              items: {
                oneOf: [
                  { type: 'object', properties: { '@type': { const: 'General' }, ...strings(GENERAL_FIELDS) } },
                  { type: 'object', properties: { '@type': { const: 'Video' }, ...strings(VIDEO_FIELDS) } },
                  { type: 'object', properties: { '@type': { const: 'Audio' }, ...strings(AUDIO_FIELDS) } },
                ],
              },
            },
          },
        },
        CreateVideoRequest: {
          type: 'object',
          description: 'Decision: an optional body (the spec sends none); `file_name` is kept as the source\'s name.',
          properties: { file_name: { type: 'string', maxLength: 1024 } },
        },
        UploadUrl: {
          type: 'object',
          required: ['url'],
          properties: {
            url: {
              type: 'string',
              format: 'uri',
              description: 'PUT target on the storage origin, signed in its query string (HMAC over path and expiry).',
            },
          },
        },
        MultipartSession: {
          type: 'object',
          required: ['key', 'expiresAt'],
          properties: {
            key: { type: 'string', description: 'Opaque session key.' },
            expiresAt: { type: 'integer', description: 'Decision: milliseconds since the epoch (13 digits); 6 hours after begin.' },
          },
        },
        ChunkUrlRequest: {
          type: 'object',
          required: ['key', 'chunkId'],
          properties: { key: { type: 'string' }, chunkId: { type: 'integer', minimum: 1, maximum: 10000 } },
        },
        ChunkDetail: {
          type: 'object',
          required: ['chunkId', 'eTag'],
          properties: {
            chunkId: { type: 'integer', minimum: 1, maximum: 10000 },
            eTag: { type: 'string', description: 'The ETag of the chunk\'s PUT (quoted hex MD5), with or without quotes.' },
          },
        },
        CompleteRequest: {
          type: 'object',
          required: ['chunks', 'key'],
          properties: { chunks: { type: 'array', minItems: 1, items: ref('ChunkDetail') }, key: { type: 'string' } },
        },
        CompleteResponse: {
          type: 'object',
          required: ['success', 'url'],
          properties: { success: { type: 'boolean' }, url: { type: 'string', format: 'uri' } },
        },
        AbortRequest: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
        LiveStream: {
          type: 'object',
          description: 'Decision: a live stream (the spec shows none of its endpoints).',
          required: ['_id', 'name', 'stream_key', 'ingest', 'status', 'creation_time'],
          properties: {
            _id: { type: 'string', pattern: '^[0-9a-f]{24}$' },
            name: { type: ['string', 'null'] },
            stream_key: { type: 'string', pattern: '^lv_', description: 'Secret: whoever has it can publish.' },
            ingest: {
              type: 'object',
              required: ['server', 'url'],
              properties: {
                server: { type: 'string', description: 'RTMP server URL for OBS (rtmp://HOST:PORT/live); the stream key goes in its own box.' },
                url: { type: 'string', description: 'server + "/" + stream_key, for ffmpeg.' },
              },
            },
            status: { enum: ['idle', 'live'] },
            creation_time: { type: 'string', format: 'date-time' },
          },
        },
        ExportEntry: {
          type: 'object',
          required: ['from', 'duration', 'bytes', 'status', 'download_url'],
          properties: {
            from: { type: 'string', format: 'date-time' },
            duration: { type: 'integer', description: 'Seconds.' },
            bytes: { type: 'integer', description: 'Size of the file at download_url; 0 while processing.' },
            status: { enum: ['PROCESSING', 'EXPORTED', 'FAILED'], description: 'Decision: FAILED (an addition) when the cut or processing failed; the video\'s #8 says why.' },
            video_id: { type: 'string', description: 'In listed entries once EXPORTED (or FAILED); never in the #10 response.' },
            download_url: { type: ['string', 'null'], format: 'uri', description: 'The new video\'s MP4; null until EXPORTED.' },
          },
        },
        TemporaryRecording: {
          type: 'object',
          required: ['_id', 'stream_key', 'start_time', 'end_time', 'export_data', 'duration', 'playback', 'download_url', 'status'],
          properties: {
            _id: { type: 'string', pattern: '^[0-9a-f]{24}$' },
            stream_key: { type: 'string' },
            start_time: { type: 'string', format: 'date-time', description: 'When the first publish began.' },
            end_time: { type: ['string', 'null'], format: 'date-time', description: 'Decision: when the last publish stopped; null until complete.' },
            export_data: { type: 'array', items: ref('ExportEntry') },
            duration: { type: 'integer', description: 'Whole seconds of media recorded so far; final once complete.' },
            playback: {
              type: 'object',
              required: ['temporary_playback'],
              properties: {
                temporary_playback: {
                  type: 'string',
                  format: 'uri',
                  description: 'HLS playlist: EVENT while it can grow, VOD once complete; a discontinuity where a publisher came back; program date times on the service clock.',
                },
              },
            },
            download_url: { type: ['string', 'null'], format: 'uri', description: 'Decision: MP4 of the whole recording; null until complete.' },
            status: { enum: ['live', 'stopped', 'complete'], description: 'Decision: live (a publisher is on), stopped (inside the merge window, or being finished), complete.' },
          },
        },
        ConversionRequest: {
          type: 'object',
          description:
            'Both fields for a part; decision: `{}` or no body at all converts the whole recording. `from` must fall inside ' +
            'the media of the recording (between start_time and the end of a publish; not in a gap between publishes), ' +
            '`duration` be a positive integer that fits after `from` (the parts are counted one after another).',
          properties: { from: { type: 'string', format: 'date-time' }, duration: { type: 'integer', minimum: 1 } },
        },
        Webhook: {
          type: 'object',
          required: ['_id', 'url', 'events', 'creation_time'],
          properties: {
            _id: { type: 'string' },
            url: { type: 'string', format: 'uri' },
            events: { type: 'array', items: { enum: WEBHOOK_EVENTS } },
            creation_time: { type: 'string', format: 'date-time' },
            secret: { type: 'string', description: 'Only in the answer to POST /webhooks: `whsec_` + base64 key for Standard Webhooks signatures.' },
          },
        },
        Usage: {
          type: 'object',
          properties: {
            hosting_minutes: {
              type: 'object',
              properties: {
                used: { type: 'number', description: 'Minutes of permanent videos (ready ones, and conversions under way at their asked duration). Temporary recordings do not count.' },
                quota: { type: ['number', 'null'], description: 'null: unlimited (the default).' },
              },
            },
            plan: {
              type: 'object',
              properties: {
                end_time: { type: ['string', 'null'], format: 'date-time' },
                files_deleted_time: { type: ['string', 'null'], format: 'date-time', description: '15 days after the plan ends every file is deleted, permanently.' },
              },
            },
          },
        },
        AbortResponse: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } },
      },
    },
    paths: {
      '/videos': {
        post: op('#1 Create a video', {
          requestBody: { required: false, ...json(ref('CreateVideoRequest')) },
          responses: { 200: { description: 'The new video', ...json(ref('Video')) }, ...errors(400, 401, 413) },
        }),
      },
      '/videos/{id}': {
        get: op('#8 Get a video', {
          parameters: [idParam],
          responses: { 200: { description: 'Video details', ...json(ref('VideoDetails')) }, ...errors(401, 404) },
        }),
      },
      '/videos/{id}/uploads': {
        post: op('#2 Get a signed link for a single upload', {
          description: 'Valid 6 hours (then its PUT gets 403). Refused with 409 once the video has its file.',
          parameters: [idParam],
          responses: { 200: { description: 'Signed link', ...json(ref('UploadUrl')) }, ...errors(401, 404, 409) },
        }),
      },
      '/videos/{id}/multipart-upload/begin': {
        post: op('#3 Begin a multipart upload', {
          parameters: [idParam],
          responses: { 200: { description: 'Session', ...json(ref('MultipartSession')) }, ...errors(401, 404, 409) },
        }),
      },
      '/videos/{id}/multipart-upload/get-chunk-upload-url': { post: chunkUrlOp(true) },
      '/videos/multipart-upload/get-chunk-upload-url': { post: chunkUrlOp(false) },
      '/videos/{id}/multipart-upload/complete': { post: completeOp(true) },
      '/videos/multipart-upload/complete': { post: completeOp(false) },
      '/videos/multipart-upload/abort': {
        post: op('#7 Abort a multipart upload', {
          description: 'Deletes the chunks; later chunk URLs, chunk PUTs and completes get 409. Accepted after expiry. Decision: aborting twice succeeds.',
          requestBody: json(ref('AbortRequest')),
          responses: { 200: { description: 'Aborted', ...json(ref('AbortResponse')) }, ...errors(400, 401, 404, 409) },
        }),
      },
      '/tokens': {
        post: op('Create a short-lived, scoped token (for a browser)', {
          description:
            'Decision (token lifetime, scopes and refresh: not shown): a key (from the dashboard, or `npm run service -- token`) ' +
            'trades for a short-lived token of the same organization and environment, which a backend hands to the browser. ' +
            'Scopes: `upload` (the default) reaches #1–#8 only, on the videos of the end user `user` names (videos it creates carry ' +
            'that `user`; tokens minted for the same user share them; without `user`, the videos created without one); `clip` is ' +
            'bound to `live_stream_id` and reaches #9, #10 and #11 of that stream and #8 of the videos converted from it. Any ' +
            'other route answers 403 `insufficient_scope`; another user\'s or stream\'s objects are 404. Only a key creates tokens ' +
            '(403). Revoking a key revokes the tokens made from it. Expired → 401 token_expired.',
          requestBody: {
            required: false,
            ...json({
              type: 'object',
              properties: {
                ttl_seconds: { type: 'integer', minimum: 60, maximum: 86400, default: 3600 },
                scope: { enum: MINTED_SCOPES, default: 'upload' },
                user: { type: 'string', minLength: 1, maxLength: 256, description: "scope upload: the integrator's end user, the videos' `user`" },
                live_stream_id: { type: 'string', description: 'scope clip (required there): the live stream the token is for' },
              },
            }),
          },
          responses: {
            200: {
              description: 'The token',
              ...json({
                type: 'object',
                required: ['token', 'expiresAt', 'scope'],
                properties: { token: { type: 'string' }, expiresAt: { type: 'integer', description: 'ms since the epoch' }, scope: { enum: MINTED_SCOPES } },
              }),
            },
            ...errors(400, 401, 403, 404),
          },
        }),
      },
      '/media/{id}/{file}': {
        get: publicOp('HLS master playlist, download MP4 or poster of a ready video', {
          description: 'Decision: playback addresses need no token (ids are unguessable), allow any origin, and honour Range. 404 until ready.',
          parameters: [idParam, { name: 'file', in: 'path', required: true, schema: { enum: ['index.m3u8', 'download.mp4', 'poster.jpg'] } }],
          responses: { 200: { description: 'The file' }, 206: { description: 'A range of it' }, ...errors(404) },
        }),
      },
      '/media/{id}/{rendition}/{file}': {
        get: publicOp('A rendition playlist or segment', {
          description: 'Renditions: `main` (the MP4\'s streams, ≤1080p) and, for encoded sources above 480p, `360p`.',
          parameters: [
            idParam,
            { name: 'rendition', in: 'path', required: true, schema: { type: 'string', pattern: '^(main|\\d{3,4}p)$' } },
            { name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^(stream\\.m3u8|seg\\d{4,6}\\.ts)$' } },
          ],
          responses: { 200: { description: 'The file' }, ...errors(404) },
        }),
      },
      '/embed/{id}': {
        get: publicOp('embed_url: a page that plays the video with hls.js', {
          description: 'Sent with `Content-Security-Policy: frame-ancestors *` so it works in an iframe on any site.',
          parameters: [idParam],
          responses: { 200: { description: 'HTML page', content: { 'text/html': {} } }, ...errors(404) },
        }),
      },
      '/embed/hls.min.js': {
        get: publicOp('hls.js for the embed page', { responses: { 200: { description: 'JavaScript' } } }),
      },
      '/live_streams': {
        post: op('Create a live stream', {
          description: 'Decision. Optional body {name}. Publish to `ingest.url` (RTMP); a publish with an unknown key is refused.',
          requestBody: { required: false, ...json({ type: 'object', properties: { name: { type: 'string', maxLength: 256 } } }) },
          responses: { 200: { description: 'The stream', ...json(ref('LiveStream')) }, ...errors(400, 401) },
        }),
        get: op('List live streams', { responses: { 200: { description: 'Streams, oldest first', ...json({ type: 'array', items: ref('LiveStream') }) }, ...errors(401) } }),
      },
      '/live_streams/{id}': {
        get: op('Get a live stream', { parameters: [idParam], responses: { 200: { description: 'The stream', ...json(ref('LiveStream')) }, ...errors(401, 404) } }),
        delete: op('Delete a live stream', {
          description: 'Decision: ends its publish and deletes its temporary recordings; videos converted from it stay.',
          parameters: [idParam],
          responses: { 200: { description: 'Deleted', ...json(ref('AbortResponse')) }, ...errors(401, 404) },
        }),
      },
      '/live_streams/{id}/temporary_recordings': {
        get: op('#9 List temporary recordings', {
          description:
            'Listed as soon as a publish begins. A publisher back within the merge window (1 minute) continues the same ' +
            'recording; a recording is complete once the stream has stayed stopped for more than the window. Deleted 3 days after its end.',
          parameters: [idParam],
          responses: { 200: { description: 'Recordings, oldest first', ...json({ type: 'array', items: ref('TemporaryRecording') }) }, ...errors(401, 404) },
        }),
      },
      '/live_streams/{id}/temporary_recordings/{recordingId}': {
        post: op('#10 Convert a recording (or a part) into a permanent video', {
          description:
            'Cut frame-accurately, then the normal processing; `video-ready` when done. Several conversions may run at once. ' +
            '409 recording_not_complete until the recording is complete; 403 quota_exceeded past the hosting-minute quota.',
          parameters: [idParam, { name: 'recordingId', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } }],
          requestBody: { required: false, ...json(ref('ConversionRequest')) },
          responses: { 200: { description: 'Export entry: PROCESSING, bytes 0, download_url null, no video_id', ...json(ref('ExportEntry')) }, ...errors(400, 401, 403, 404, 409) },
        }),
      },
      '/live_streams/{id}/recordings': {
        get: op('#11 List permanent videos converted from the stream', {
          description: 'Decision: #8 video objects, oldest first, whatever their status.',
          parameters: [idParam],
          responses: { 200: { description: 'Videos', ...json({ type: 'array', items: ref('VideoDetails') }) }, ...errors(401, 404) },
        }),
      },
      '/recordings/{id}/index.m3u8': {
        get: publicOp('temporary_playback of a recording', { parameters: [idParam], responses: { 200: { description: 'HLS playlist' }, ...errors(404) } }),
      },
      '/recordings/{id}/download.mp4': {
        get: publicOp('download_url of a complete recording', { parameters: [idParam], responses: { 200: { description: 'MP4' }, 206: { description: 'A range of it' }, ...errors(404) } }),
      },
      '/recordings/{id}/{part}/{segment}': {
        get: publicOp('A segment of a recording', {
          parameters: [
            idParam,
            { name: 'part', in: 'path', required: true, schema: { type: 'string', pattern: RECORDING_PART.source } },
            { name: 'segment', in: 'path', required: true, schema: { type: 'string', pattern: RECORDING_SEGMENT.source } },
          ],
          responses: { 200: { description: 'MPEG-TS segment' }, ...errors(404) },
        }),
      },
      '/webhooks': {
        post: op('Register a webhook endpoint', {
          description:
            'Decision (registration: not shown). Body {url, events?} (events default to all: ' + WEBHOOK_EVENTS.join(', ') + '). ' +
            'The answer carries the signing `secret`, shown only here. `url` must be http(s) without credentials and reach no ' +
            'internal address (loopback, private, shared, link-local, unique-local, multicast, unspecified, reserved, IPv4-mapped ' +
            'or -embedding IPv6, `localhost`), in any spelling, nor a name resolving to one: 400 naming why. It is checked again ' +
            'at each delivery, which connects to the address checked and follows no redirect. The service flag ' +
            '`--allow-private-network` lifts the address rule for local development. At most ' + MAX_WEBHOOKS + ' webhooks per ' +
            'organization and environment (409 `too_many_webhooks`).',
          requestBody: json({ type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' }, events: { type: 'array', items: { enum: WEBHOOK_EVENTS } } } }),
          responses: { 200: { description: 'The webhook, with its secret', ...json(ref('Webhook')) }, ...errors(400, 401, 409) },
        }),
        get: op('List webhook endpoints (without secrets)', { responses: { 200: { description: 'Webhooks', ...json({ type: 'array', items: ref('Webhook') }) }, ...errors(401) } }),
      },
      '/webhooks/{id}': {
        delete: op('Delete a webhook endpoint', {
          description: 'Its pending deliveries are dropped.',
          parameters: [idParam],
          responses: { 200: { description: 'Deleted', ...json(ref('AbortResponse')) }, ...errors(401, 404) },
        }),
      },
      '/usage': {
        get: op('Hosting minutes and plan of the organization', {
          description: 'Decision. Quota and plan end are set by the account owner (`npm run service -- plan`), not through the API.',
          responses: { 200: { description: 'Usage', ...json(ref('Usage')) }, ...errors(401) },
        }),
      },
      '/openapi.json': {
        get: publicOp('This document', { responses: { 200: { description: 'OpenAPI 3.1', ...json({ type: 'object' }) } } }),
      },
      '/__test__/clock': {
        post: publicOp('Test hooks only (--test-hooks): move the service clock forward', {
          requestBody: json({ type: 'object', required: ['advanceMs'], properties: { advanceMs: { type: 'number', minimum: 0 } } }),
          responses: { 200: { description: 'The new time', ...json({ type: 'object', properties: { now: { type: 'integer' } } }) }, ...errors(400) },
        }),
      },
      '/__test__/received/{id}': {
        get: publicOp('Test hooks only: bytes received for a video (single link) or a session key, failed attempts included', {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'Count', ...json({ type: 'object', properties: { bytes: { type: 'integer' } } }) } },
        }),
      },
      '/__test__/expire-token': {
        post: publicOp('Test hooks only: make a token expire now', {
          requestBody: json({ type: 'object', required: ['token'], properties: { token: { type: 'string' } } }),
          responses: { 200: { description: 'Whether a token was found', ...json({ type: 'object' }) }, ...errors(400) },
        }),
      },
      '/__test__/faults': {
        post: publicOp('Test hooks only: make storage PUTs or API calls fail on demand (see demo/service/faults.ts)', {
          requestBody: json({
            type: 'object',
            properties: {
              rules: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['target', 'action'],
                  properties: {
                    target: { type: 'string', description: "'chunk-put', 'single-put', or an API route as 'METHOD /path-template'" },
                    nth: { type: 'array', items: { type: 'integer' } },
                    probability: { type: 'number' },
                    action: { enum: FAULT_ACTIONS },
                    status: { type: 'integer' },
                    code: { type: 'string' },
                    retryAfter: { type: 'integer' },
                    stallMs: { type: 'integer' },
                    times: { type: 'integer' },
                  },
                },
              },
              exposeEtag: { type: 'boolean', description: 'false: the storage stops exposing ETag to browsers' },
            },
          }),
          responses: { 200: { description: 'Set', ...json({ type: 'object' }) }, ...errors(400) },
        }),
      },
      '/__test__/storage-requests': {
        get: publicOp('Test hooks only: the requests that reached the storage origin, and whether each carried Authorization', {
          responses: { 200: { description: 'Requests', ...json({ type: 'object', properties: { requests: { type: 'array' } } }) } },
        }),
      },
      '/__test__/jobs/idle': {
        post: publicOp('Test hooks only: wait until no job is due or running', {
          responses: { 200: { description: 'Idle', ...json({ type: 'object' }) } },
        }),
      },
      '/__test__/sweep': {
        post: publicOp('Test hooks only: run one whole pass of the sweeper (merge window, retention, plan end) and wait for it', {
          responses: { 200: { description: 'Swept', ...json({ type: 'object' }) } },
        }),
      },
    },
    webhooks: {
      'video-ready': {
        post: {
          summary: 'A video is ready: a conversion (#10) finished, or (decision) an uploaded video was processed',
          description:
            'Standard Webhooks: headers `webhook-id` (the same on every retry), `webhook-timestamp` (seconds) and ' +
            '`webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the secret\'s key). At least once: ' +
            `a non-2xx answer, an error or no answer in 15 s is retried after ${RETRY_WAITS_MS.map((ms) => `${ms / 1000} s`).join(', ')} ` +
            '(about 27.6 hours in all); deliveries are kept in the database, so a restart loses none.',
          requestBody: json({
            type: 'object',
            required: ['event', 'payload'],
            properties: {
              event: { const: 'video-ready' },
              payload: { type: 'object', required: ['_id', 'mediainfo'], properties: { _id: { type: 'string' }, mediainfo: ref('MediaInfo') } },
            },
          }),
          responses: { 200: { description: 'Any 2xx is a delivery' } },
        },
      },
    },
    'x-rtmp-ingest': {
      description:
        'RTMP on the service host (port 1935 by default; `--rtmp-port`). Publish to rtmp://HOST:PORT/live/{stream_key}. H.264 + AAC ' +
        'is recorded as it comes; anything else is encoded to H.264 + AAC. HLS segments of 2 s.',
    },
    'x-storage-origin': {
      description:
        '#5 PUT {upload_url}: a separate origin. No Authorization header; the signature in the query string ' +
        'authorises the PUT. 200 with the ETag header (quoted hex MD5 of the body; ETag and Retry-After are exposed to browsers); the chunk ' +
        'response body is empty. Any Content-Type is accepted. 403: bad or expired signature; 404: unknown link or ' +
        'session; 409: session completed or aborted, the video already has its file (chunks too), or `upload_in_progress`: ' +
        'another PUT to the same link or chunk is still sending (one write at a time); 413: 5 GiB or more; 507 ' +
        '`insufficient_storage`: the data volume would keep less than its reserve free (`--min-free-mb`, 256 MiB). ' +
        'A body that sends nothing for 60 s (`--stall-timeout-seconds`) is cut. Bytes are fsynced before the chunk or ' +
        'source counts. Uploading a chunkId again replaces it; its new ETag is the one that counts. A session abandoned ' +
        'a day after it expired is aborted and its chunks deleted.',
    },
  };
}
