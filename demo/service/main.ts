/**
 * The local video service's command line.
 *   npm run service -- [--port 4500] [--storage-port 4501] [--rtmp-port 1935] [--data DIR]
 *                       [--merge-window-seconds 60] [--cut whole|edges] [--test-hooks] [--allow-private-network]
 *                       [--stall-timeout-seconds 60] [--min-free-mb 256] [--import-max-mb 20480]
 *                       [--import-timeout-seconds 7200] [--import-header-timeout-seconds 30]
 *                       [--import-idle-timeout-seconds 60] [--allow-any-port] [--max-queued-per-organization 500]
 *                       [--max-queued-per-user 20] [--max-duration-seconds 14400]
 *                       [--max-resolution 4096x2304] [--max-frame-rate 120] [--processing-base-seconds 60]
 *                       [--processing-seconds-per-media-second 10] [--probe-timeout-seconds 30]
 *                       [--rtmp-max-connections 512]
 *                       [--rtmp-idle-seconds 30] [--rtmp-publish-within-seconds 10]
 *                       [--rtmp-connect-within-seconds 5] [--rtmp-unpublished-per-address 8]
 *                       [--rtmp-restart-max-seconds 60]
 *                       [--max-conversions-per-stream 4] [--max-conversions-per-token 2]
 *                       [--max-open-uploads-per-user 100] [--max-open-uploads-per-organization 10000]
 *                       [--rate-limit-per-minute 1200] [--chunk-url-rate-limit-per-minute 6000]
 *                       [--storage-quota-mb unlimited]
 *   npm run service -- token --org NAME [--environment production|sandbox] [--data DIR]
 *   npm run service -- revoke-token [--data DIR] < token-file     (the token on standard input, never in argv)
 *   npm run service -- plan --org NAME [--ends ISO-DATE|none] [--quota-minutes N|unlimited]
 *                       [--quota-bytes N|unlimited|default] [--data DIR]
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { ENVIRONMENTS } from '../../src/api/contract.js';
import type { Environment } from '../../src/api/types.js';
import { DEFAULT_MIN_FREE_BYTES, DEFAULT_STALL_TIMEOUT_MS, startService } from './app.js';
import { systemClock } from './clock.js';
import { openDb } from './db.js';
import { Accounts } from './domain/accounts.js';
import { CUT_STRATEGIES, type CutStrategy } from './processing/cut.js';
import { DEFAULT_CONVERSION_LIMITS } from './domain/exports.js';
import { DEFAULT_IMPORT_LIMITS } from './domain/imports.js';
import { DEFAULT_QUEUE_CAPS } from './domain/videos.js';
import { DEFAULT_OPEN_UPLOAD_CAPS } from './domain/open-uploads.js';
import { DEFAULT_RATE_LIMITS } from './http/api.js';
import { DEFAULT_INGEST_LIMITS } from './live/ingest.js';
import { DEFAULT_LIMITS, type ProcessingLimits } from './processing/pipeline.js';
import { portInUse } from './ports.js';
import { readFileSync } from 'node:fs';
import { DEFAULT_DATA } from './data-dir.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string', default: '4500' },
    'storage-port': { type: 'string', default: '4501' },
    'rtmp-port': { type: 'string', default: '1935' },
    'merge-window-seconds': { type: 'string', default: '60' },
    cut: { type: 'string', default: 'whole' },
    ends: { type: 'string' },
    'quota-minutes': { type: 'string' },
    'quota-bytes': { type: 'string' },
    'storage-quota-mb': { type: 'string', default: 'unlimited' },
    host: { type: 'string', default: '127.0.0.1' },
    data: { type: 'string', default: DEFAULT_DATA },
    'test-hooks': { type: 'boolean', default: false },
    'allow-private-network': { type: 'boolean', default: false },
    'stall-timeout-seconds': { type: 'string', default: String(DEFAULT_STALL_TIMEOUT_MS / 1000) },
    'min-free-mb': { type: 'string', default: String(DEFAULT_MIN_FREE_BYTES / 1024 / 1024) },
    'import-max-mb': { type: 'string', default: String(DEFAULT_IMPORT_LIMITS.maxBytes / 1024 / 1024) },
    'import-timeout-seconds': { type: 'string', default: String(DEFAULT_IMPORT_LIMITS.timeoutMs / 1000) },
    'import-header-timeout-seconds': { type: 'string', default: String(DEFAULT_IMPORT_LIMITS.headerTimeoutMs / 1000) },
    'import-idle-timeout-seconds': { type: 'string', default: String(DEFAULT_IMPORT_LIMITS.idleTimeoutMs / 1000) },
    'allow-any-port': { type: 'boolean', default: false },
    'max-queued-per-organization': { type: 'string', default: String(DEFAULT_QUEUE_CAPS.perOrganization) },
    'max-queued-per-user': { type: 'string', default: String(DEFAULT_QUEUE_CAPS.perUser) },
    'max-duration-seconds': { type: 'string', default: String(DEFAULT_LIMITS.maxDurationSeconds) },
    'max-resolution': { type: 'string', default: `${DEFAULT_LIMITS.maxLongSide}x${DEFAULT_LIMITS.maxShortSide}` },
    'max-frame-rate': { type: 'string', default: String(DEFAULT_LIMITS.maxFrameRate) },
    'processing-base-seconds': { type: 'string', default: String(DEFAULT_LIMITS.baseSeconds) },
    'processing-seconds-per-media-second': { type: 'string', default: String(DEFAULT_LIMITS.secondsPerMediaSecond) },
    'probe-timeout-seconds': { type: 'string', default: String(DEFAULT_LIMITS.probeSeconds) },
    'rtmp-max-connections': { type: 'string', default: String(DEFAULT_INGEST_LIMITS.maxConnections) },
    'rtmp-idle-seconds': { type: 'string', default: String(DEFAULT_INGEST_LIMITS.idleMs / 1000) },
    'rtmp-publish-within-seconds': { type: 'string', default: String(DEFAULT_INGEST_LIMITS.publishWithinMs / 1000) },
    'rtmp-connect-within-seconds': { type: 'string', default: String(DEFAULT_INGEST_LIMITS.connectWithinMs / 1000) },
    'rtmp-unpublished-per-address': { type: 'string', default: String(DEFAULT_INGEST_LIMITS.unpublishedPerAddress) },
    'rtmp-restart-max-seconds': { type: 'string', default: String(DEFAULT_INGEST_LIMITS.restartMaxMs / 1000) },
    'max-conversions-per-stream': { type: 'string', default: String(DEFAULT_CONVERSION_LIMITS.perStream) },
    'max-conversions-per-token': { type: 'string', default: String(DEFAULT_CONVERSION_LIMITS.perToken) },
    'max-open-uploads-per-user': { type: 'string', default: String(DEFAULT_OPEN_UPLOAD_CAPS.perUser) },
    'max-open-uploads-per-organization': { type: 'string', default: String(DEFAULT_OPEN_UPLOAD_CAPS.perOrganization) },
    'rate-limit-per-minute': { type: 'string', default: String(DEFAULT_RATE_LIMITS.perMinute) },
    'chunk-url-rate-limit-per-minute': { type: 'string', default: String(DEFAULT_RATE_LIMITS.chunkUrlsPerMinute) },
    org: { type: 'string' },
    environment: { type: 'string', default: 'production' },
  },
});

function fail(message: string): never {
  console.error(`video service: ${message}`);
  process.exit(2);
}

function port(flag: 'port' | 'storage-port' | 'rtmp-port'): number {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    fail(`--${flag} must be a port number from 0 to 65535; got ${JSON.stringify(values[flag])}.`);
  return n;
}

function accounts(): Accounts {
  return new Accounts(openDb(values.data), systemClock());
}

/** The account owner's side of the plan (a dashboard's job): its end date, hosting-minute and storage quotas. */
function plan(): string {
  if (!values.org) fail('plan needs --org NAME.');
  let endAt: number | null | undefined;
  if (values.ends !== undefined) {
    endAt = values.ends === 'none' ? null : Date.parse(values.ends);
    if (Number.isNaN(endAt)) fail(`--ends must be an ISO 8601 date or "none"; got ${JSON.stringify(values.ends)}.`);
  }
  let quotaMinutes: number | null | undefined;
  if (values['quota-minutes'] !== undefined) {
    quotaMinutes = values['quota-minutes'] === 'unlimited' ? null : Number(values['quota-minutes']);
    if (quotaMinutes !== null && !(quotaMinutes >= 0))
      fail(
        `--quota-minutes must be a number of minutes or "unlimited"; got ${JSON.stringify(values['quota-minutes'])}.`,
      );
  }
  // Stored as given; "unlimited" as -1, "default" as null (the service's --storage-quota-mb).
  let quotaBytes: number | null | undefined;
  const bytes = values['quota-bytes'];
  if (bytes !== undefined) {
    quotaBytes = bytes === 'default' ? null : bytes === 'unlimited' ? -1 : Number(bytes);
    if (quotaBytes !== null && quotaBytes !== -1 && !(Number.isSafeInteger(quotaBytes) && quotaBytes >= 0))
      fail(`--quota-bytes must be a whole number of bytes, "unlimited" or "default"; got ${JSON.stringify(bytes)}.`);
  }
  const now = accounts().setPlan(values.org, { endAt, quotaMinutes, quotaBytes });
  if (!now) fail(`no organization is named ${JSON.stringify(values.org)}; make a token for it first.`);
  const storage =
    now.quota_bytes === null ? "the service's default" : now.quota_bytes < 0 ? 'unlimited' : `${now.quota_bytes}`;
  return `plan of ${values.org}: ends ${now.plan_end_at === null ? 'never' : new Date(now.plan_end_at).toISOString()}, quota ${now.quota_minutes ?? 'unlimited'} minutes, storage quota ${storage} bytes`;
}

function limits(): ProcessingLimits {
  const [long, short] = values['max-resolution']
    .split('x')
    .map(Number)
    .sort((a, b) => b - a);
  if (!(long! > 0 && short! > 0))
    fail(`--max-resolution must be WIDTHxHEIGHT, e.g. 3840x2160; got ${JSON.stringify(values['max-resolution'])}.`);
  return {
    maxDurationSeconds: positive('max-duration-seconds'),
    maxLongSide: long!,
    maxShortSide: short!,
    maxFrameRate: positive('max-frame-rate'),
    baseSeconds: positive('processing-base-seconds'),
    secondsPerMediaSecond: positive('processing-seconds-per-media-second'),
    probeSeconds: positive('probe-timeout-seconds'),
  };
}

type PositiveFlag =
  | 'stall-timeout-seconds'
  | 'min-free-mb'
  | 'import-max-mb'
  | 'import-timeout-seconds'
  | 'import-header-timeout-seconds'
  | 'import-idle-timeout-seconds'
  | 'max-duration-seconds'
  | 'max-frame-rate'
  | 'processing-base-seconds'
  | 'processing-seconds-per-media-second'
  | 'probe-timeout-seconds'
  | 'rtmp-idle-seconds'
  | 'rtmp-publish-within-seconds'
  | 'rtmp-connect-within-seconds'
  | 'rtmp-restart-max-seconds';

function positive(flag: PositiveFlag): number {
  const n = Number(values[flag]);
  if (!(n > 0)) fail(`--${flag} must be a positive number; got ${JSON.stringify(values[flag])}.`);
  return n;
}

/** `--storage-quota-mb`: the stored bytes an organization may have unless its plan says; null, unlimited. */
function storageQuota(): number | null {
  const value = values['storage-quota-mb'];
  if (value === 'unlimited') return null;
  const n = Number(value);
  if (!(n >= 0))
    fail(`--storage-quota-mb must be a number of MiB, 0 or more, or "unlimited"; got ${JSON.stringify(value)}.`);
  return Math.floor(n * 1024 * 1024);
}

type CountFlag =
  | 'max-queued-per-organization'
  | 'max-queued-per-user'
  | 'rtmp-max-connections'
  | 'rtmp-unpublished-per-address'
  | 'max-conversions-per-stream'
  | 'max-conversions-per-token'
  | 'max-open-uploads-per-user'
  | 'max-open-uploads-per-organization'
  | 'rate-limit-per-minute'
  | 'chunk-url-rate-limit-per-minute';

function count(flag: CountFlag): number {
  const n = Number(values[flag]);
  if (!(Number.isInteger(n) && n >= 1))
    fail(`--${flag} must be a whole number, 1 or more; got ${JSON.stringify(values[flag])}.`);
  return n;
}

function mergeWindow(): number {
  const n = Number(values['merge-window-seconds']);
  if (!(n >= 0))
    fail(
      `--merge-window-seconds must be a number of seconds, 0 or more; got ${JSON.stringify(values['merge-window-seconds'])}.`,
    );
  return n;
}

function cut(): CutStrategy {
  if (!(CUT_STRATEGIES as readonly string[]).includes(values.cut))
    fail(`--cut must be one of ${CUT_STRATEGIES.join(', ')}; got ${JSON.stringify(values.cut)}.`);
  return values.cut as CutStrategy;
}

const [command, argument] = positionals;
if (command === 'token') {
  if (!values.org) fail('token needs --org NAME.');
  if (!(ENVIRONMENTS as readonly string[]).includes(values.environment)) {
    fail(`--environment must be one of ${ENVIRONMENTS.join(', ')}; got ${JSON.stringify(values.environment)}.`);
  }
  console.log(accounts().createToken(values.org, values.environment as Environment));
} else if (command === 'revoke-token') {
  // A secret on the command line ends up in shell history and in every `ps` listing: it is read from stdin.
  if (argument)
    fail(
      'revoke-token reads the token from standard input, not the command line: echo "$TOKEN" | npm run service -- revoke-token',
    );
  const token = readFileSync(0, 'utf8').trim();
  if (!token) fail('revoke-token needs the token on standard input.');
  console.log(accounts().revokeToken(token) ? 'revoked, with every token made from it' : 'no such live token');
} else if (command === 'plan') {
  console.log(plan());
} else if (command !== undefined) {
  fail(
    `unknown command ${JSON.stringify(command)}; use "token", "revoke-token" or "plan", or no command to start the service.`,
  );
} else {
  for (const tool of ['ffmpeg', 'ffprobe']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch {
      fail(
        `${tool} is not installed. Install the Debian package "ffmpeg" (apt-get install ffmpeg), or run "npm start".`,
      );
    }
  }
  const service = await startService({
    dataDir: values.data,
    host: values.host,
    port: port('port'),
    storagePort: port('storage-port'),
    rtmpPort: port('rtmp-port'),
    mergeWindowMs: mergeWindow() * 1000,
    cutStrategy: cut(),
    testHooks: values['test-hooks'],
    allowPrivateNetwork: values['allow-private-network'],
    allowAnyPort: values['allow-any-port'],
    stallTimeoutMs: positive('stall-timeout-seconds') * 1000,
    minFreeBytes: positive('min-free-mb') * 1024 * 1024,
    storageQuotaBytes: storageQuota(),
    limits: limits(),
    importLimits: {
      maxBytes: Math.floor(positive('import-max-mb') * 1024 * 1024),
      timeoutMs: positive('import-timeout-seconds') * 1000,
      headerTimeoutMs: positive('import-header-timeout-seconds') * 1000,
      idleTimeoutMs: positive('import-idle-timeout-seconds') * 1000,
    },
    queueCaps: {
      perOrganization: count('max-queued-per-organization'),
      perUser: count('max-queued-per-user'),
    },
    ingestLimits: {
      maxConnections: count('rtmp-max-connections'),
      idleMs: positive('rtmp-idle-seconds') * 1000,
      publishWithinMs: positive('rtmp-publish-within-seconds') * 1000,
      connectWithinMs: positive('rtmp-connect-within-seconds') * 1000,
      unpublishedPerAddress: count('rtmp-unpublished-per-address'),
      restartMaxMs: positive('rtmp-restart-max-seconds') * 1000,
    },
    conversionLimits: {
      perStream: count('max-conversions-per-stream'),
      perToken: count('max-conversions-per-token'),
    },
    openUploadCaps: {
      perUser: count('max-open-uploads-per-user'),
      perOrganization: count('max-open-uploads-per-organization'),
    },
    rateLimits: {
      perMinute: count('rate-limit-per-minute'),
      chunkUrlsPerMinute: count('chunk-url-rate-limit-per-minute'),
    },
  }).catch((err: unknown) =>
    fail(
      portInUse(err, { port: port('port'), 'storage-port': port('storage-port'), 'rtmp-port': port('rtmp-port') }) ??
        String(err),
    ),
  );
  console.log(service.readyLine(values.data));
  const stop = () => void service.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
