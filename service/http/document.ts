import { GIB, HOUR_MS, MAX_PART_BYTES, MiB } from '../../src/api/limits.js';
import { ABANDONED_AFTER_EXPIRY_MS } from '../domain/uploads.js';
import { ATTEMPT_TIMEOUT_MS, RETRY_WAITS_MS } from '../domain/webhooks.js';
import { SEGMENT_SECONDS } from '../live/recorder.js';
import { DEFAULT_HOST, DEFAULT_PORTS } from '../ports.js';
import { spoken } from '../processing/ffmpeg.js';
import type { Settings } from '../settings.js';
import { CHECK_EVERY_BYTES, CHECK_EVERY_MS } from '../storage/files.js';

/** Bytes as the document says them: `256 MiB`, `5 GiB`. */
export const spokenBytes = (bytes: number) =>
  bytes >= GIB && bytes % GIB === 0 ? `${bytes / GIB} GiB` : `${bytes / MiB} MiB`;

/** The webhook's retries, all of them, in hours. */
const retryHours = (RETRY_WAITS_MS.reduce((a, b) => a + b, 0) / HOUR_MS).toFixed(1);

/**
 * The prose of `/openapi.json` that no route carries: its head, the security scheme, and what lives off the
 * API origin (RTMP ingest, the storage origin). Operations and schemas are generated from the routes. Every
 * limit in it is the running service's (`settings`), so a flag that changes one changes what is written here.
 */
export const document = ({ ingestLimits: INGEST, minFreeBytes, stallTimeoutMs }: Settings) => ({
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
    servers: [
      { url: `http://${DEFAULT_HOST}:${DEFAULT_PORTS.api}`, description: 'The local service (`npm run service`)' },
    ],
    webhooks: {
      'video-ready': {
        post: {
          operationId: 'videoReady',
          summary: 'A video is ready: a conversion (#10) finished, or (decision) an uploaded video was processed',
          description:
            'Standard Webhooks: headers `webhook-id` (the same on every retry), `webhook-timestamp` (seconds) and ' +
            "`webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the secret's key). At least once: " +
            `a non-2xx answer, an error or no answer in ${spoken(ATTEMPT_TIMEOUT_MS / 1000)} is retried after ` +
            `${RETRY_WAITS_MS.map((ms) => `${ms / 1000} s`).join(', ')} (about ${retryHours} hours in all); deliveries ` +
            'are kept in the database, so a restart loses none.',
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
        `RTMP on the service host (port ${DEFAULT_PORTS.rtmp} by default; \`--rtmp-port\`). Publish to rtmp://HOST:PORT/live/{stream_key}. H.264 + AAC ` +
        `is recorded as it comes; anything else is encoded to H.264 + AAC. HLS segments of ${SEGMENT_SECONDS} s. Only a key sees a stream key; ` +
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
        '#5 PUT {upload_url}: a separate origin, on one or more hosts (`--storage-hosts`, default 2: browsers open ' +
        "six connections per host). Chunk N's link names host N-1, round the hosts; a #2 link the first. The signature " +
        'covers the method, the path and the expiry, not the host: a link is good on any of the hosts. ' +
        'No Authorization header; the signature in the query string ' +
        'authorises the PUT. 200 with the ETag header (quoted hex MD5 of the body; ETag and Retry-After are exposed to browsers); the chunk ' +
        'response body is empty. Any Content-Type is accepted. 403: bad or expired signature, `capability_revoked` (the ' +
        'key or token that asked for the link or session was revoked, or its organization purged), or ' +
        "`storage_quota_exceeded` (the organization's stored bytes and the body would pass its quota); 404: unknown link or " +
        'session; 409: session completed or aborted, the video already has its file (chunks too), or `upload_in_progress`: ' +
        `another PUT to the same link is still sending, or two to the same chunk (an uploader may send a slow chunk again on a second connection, as S3 takes it); 413: ${spokenBytes(MAX_PART_BYTES)} or more; 507 ` +
        `\`insufficient_storage\`: the data volume would keep less than its reserve free (\`--min-free-mb\`, ${spokenBytes(minFreeBytes)}), ` +
        `counting every body in flight at its declared length (${spokenBytes(MAX_PART_BYTES)} without one), and looked at again every ` +
        `${spokenBytes(CHECK_EVERY_BYTES)} or ${spoken(CHECK_EVERY_MS / 1000)} while the body arrives (then the body is cut with 507; ` +
        'chunks accepted before stay). ' +
        `A body that sends nothing for ${spoken(stallTimeoutMs / 1000)} (\`--stall-timeout-seconds\`) is cut. Bytes are fsynced before the chunk or ` +
        'source counts. Uploading a chunkId again replaces it; its new ETag is the one that counts. A session abandoned ' +
        `${spoken(ABANDONED_AFTER_EXPIRY_MS / 1000)} after it expired is aborted and its chunks deleted.`,
    },
  },
});
