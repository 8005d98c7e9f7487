import { RETRY_WAITS_MS } from '../domain/webhooks.js';
import { DEFAULT_INGEST_LIMITS as INGEST } from '../live/ingest.js';

/**
 * The prose of `/openapi.json` that no route carries: its head, the security scheme, and what lives off the
 * API origin (RTMP ingest, the storage origin). Operations and schemas are generated from the routes.
 */
export const DOCUMENT = {
  head: {
    openapi: '3.1.0',
    info: {
      title: 'Video service (local implementation)',
      version: '1.0.0',
      description:
        'Implements shared/service-spec.md; summaries name its endpoint numbers (#1 to #11). Every "not shown" of the spec is ' +
        'decided here and in docs/service.md ("Decision: …"). Every error is `{"error": {"status", "code", "message", "field"?}}`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4500', description: 'The local service (`npm run service`)' }],
    webhooks: {
      'video-ready': {
        post: {
          operationId: 'videoReady',
          summary: 'A video is ready: a conversion (#10) finished, or (decision) an uploaded video was processed',
          description:
            'Standard Webhooks: headers `webhook-id` (the same on every retry), `webhook-timestamp` (seconds) and ' +
            "`webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the secret's key). At least once: " +
            `a non-2xx answer, an error or no answer in 15 s is retried after ${RETRY_WAITS_MS.map((ms) => `${ms / 1000} s`).join(', ')} ` +
            '(about 27.6 hours in all); deliveries are kept in the database, so a restart loses none.',
          security: [],
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/VideoReadyEvent' } } },
          },
          responses: {
            200: { description: 'Any 2xx is a delivery' },
            400: { description: 'Any other answer is retried' },
          },
        },
      },
    },
  },
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description:
        'Decision: `Authorization: Bearer <token>`; the bare token is accepted too. Each operation names the token ' +
        'scopes it takes in `x-token-scopes`: `key` (an organization key, from the dashboard: everything), `upload` (a ' +
        "browser's token for one end user's uploads, #1–#8) and `clip` (a browser's token for one live stream: #9–#11, " +
        'its publish key masked). Limits and caps per token and per organization: docs/security.md.',
    },
  },
  extensions: {
    'x-rtmp-ingest': {
      description:
        'RTMP on the service host (port 1935 by default; `--rtmp-port`). Publish to rtmp://HOST:PORT/live/{stream_key}. H.264 + AAC ' +
        'is recorded as it comes; anything else is encoded to H.264 + AAC. HLS segments of 2 s. Only a key sees a stream key; ' +
        '`POST /live_streams/{id}/stream-key` issues a new one and cuts a publisher using the old. ' +
        // docs/security.md, live/rtmp-worker.ts: what a connection is held to before it publishes.
        `Until it publishes, a connection must finish the handshake and \`connect\` within ${INGEST.connectWithinMs / 1000} s ` +
        `(\`--rtmp-connect-within-seconds\`) and publish within ${INGEST.publishWithinMs / 1000} s (\`--rtmp-publish-within-seconds\`); one address may ` +
        `hold ${INGEST.unpublishedPerAddress} such connections (\`--rtmp-unpublished-per-address\`), and they may hold half of the ${INGEST.maxConnections} connections ` +
        '(`--rtmp-max-connections`), the oldest closed for a new one; the other half is kept for publishers. A publish ' +
        'whose recording cannot be started is cut.',
    },
    'x-storage-origin': {
      description:
        '#5 PUT {upload_url}: a separate origin. No Authorization header; the signature in the query string ' +
        'authorises the PUT. 200 with the ETag header (quoted hex MD5 of the body; ETag and Retry-After are exposed to browsers); the chunk ' +
        'response body is empty. Any Content-Type is accepted. 403: bad or expired signature, `capability_revoked` (the ' +
        'key or token that asked for the link or session was revoked, or its organization purged), or ' +
        "`storage_quota_exceeded` (the organization's stored bytes and the body would pass its quota); 404: unknown link or " +
        'session; 409: session completed or aborted, the video already has its file (chunks too), or `upload_in_progress`: ' +
        'another PUT to the same link or chunk is still sending (one write at a time); 413: 5 GiB or more; 507 ' +
        '`insufficient_storage`: the data volume would keep less than its reserve free (`--min-free-mb`, 256 MiB), ' +
        'counting every body in flight at its declared length (5 GiB without one), and looked at again every 4 MiB or ' +
        'second while the body arrives (then the body is cut with 507; chunks accepted before stay). ' +
        'A body that sends nothing for 60 s (`--stall-timeout-seconds`) is cut. Bytes are fsynced before the chunk or ' +
        'source counts. Uploading a chunkId again replaces it; its new ETag is the one that counts. A session abandoned ' +
        'a day after it expired is aborted and its chunks deleted.',
    },
  },
} as const;
