/**
 * The local video service's command line: `npm run service -- --help` prints it (flags.ts, whose defaults are the
 * service's own, settings.ts and ports.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ENVIRONMENTS } from '../src/api/contract.js';
import { MiB } from '../src/api/limits.js';
import type { Environment } from '../src/api/types.js';
import { systemClock } from './clock.js';
import { databaseLocation, openDatabase } from './db/index.js';
import { Accounts } from './domain/accounts.js';
import { SERVICE_FLAGS, usage } from './flags.js';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { portInUse, storageListens } from './ports.js';
import { CUT_STRATEGIES, type CutStrategy } from './processing/cut.js';
import { ROLES, type Role } from './roles.js';
import { storageOptions, StorageOptionError, withoutCredentials, type StorageOptions } from './storage/options.js';
import type { ProcessingLimits } from './processing/pipeline.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...SERVICE_FLAGS,
    ends: { type: 'string' },
    'quota-minutes': { type: 'string' },
    'quota-bytes': { type: 'string' },
    org: { type: 'string' },
    environment: { type: 'string', default: 'production' },
    help: { type: 'boolean', short: 'h', default: false },
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

/** `--public-url`: an http(s) origin, without a path, query or credentials (the URLs answers carry start with it). */
function publicUrl(): string | undefined {
  const given = values['public-url'];
  if (given === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(given);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    url.pathname !== '/'
  )
    fail(
      `--public-url must be an http(s) origin such as https://video.example.com, not ${JSON.stringify(withoutCredentials(given))}.`,
    );
  return url.origin;
}

/** The account commands' side of the database the service uses (`--database`, else SQLite under `--data`). */
async function withAccounts<T>(work: (accounts: Accounts) => Promise<T>): Promise<T> {
  const db = await openDatabase(databaseLocation({ database: values.database || undefined, data: values.data }));
  try {
    return await work(new Accounts({ db, clock: systemClock() }));
  } finally {
    await db.destroy();
  }
}

/** The account owner's side of the plan (a dashboard's job): its end date, hosting-minute and storage quotas. */
async function plan(): Promise<string> {
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
  const org = values.org;
  const now = await withAccounts((accounts) => accounts.setPlan(org, { endAt, quotaMinutes, quotaBytes }));
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
  | 'job-lease-seconds'
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

/** `--storage` and its store's flags, or the AWS environment variables (storage/options.ts). */
function storage(): StorageOptions {
  try {
    return storageOptions(values, process.env);
  } catch (err) {
    if (err instanceof StorageOptionError) fail(err.message);
    throw err;
  }
}

/** `--storage-quota-mb`: the stored bytes an organization may have unless its plan says; null, unlimited. */
function storageQuota(): number | null {
  const value = values['storage-quota-mb'];
  if (value === 'unlimited') return null;
  const n = Number(value);
  if (!(n >= 0))
    fail(`--storage-quota-mb must be a number of MiB, 0 or more, or "unlimited"; got ${JSON.stringify(value)}.`);
  return Math.floor(n * MiB);
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

function role(): Role {
  if (!(ROLES as readonly string[]).includes(values.role))
    fail(`--role must be one of ${ROLES.join(', ')}; got ${JSON.stringify(values.role)}.`);
  return values.role as Role;
}

function logLevel(): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(values['log-level']))
    fail(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(values['log-level'])}.`);
  return values['log-level'] as LogLevel;
}

/** `--metrics-token-file`: read from a file, as a secret on the command line would show in every `ps` listing. */
function metricsToken(): string | undefined {
  const file = values['metrics-token-file'];
  if (file === 'none') return undefined;
  let token = '';
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (err) {
    fail(`--metrics-token-file: cannot read ${JSON.stringify(file)} (${(err as NodeJS.ErrnoException).code}).`);
  }
  if (!token) fail(`--metrics-token-file: ${JSON.stringify(file)} is empty.`);
  return token;
}

const [command, argument] = positionals;
if (values.help) {
  console.log(usage());
} else if (command === 'token') {
  if (!values.org) fail('token needs --org NAME.');
  if (!(ENVIRONMENTS as readonly string[]).includes(values.environment)) {
    fail(`--environment must be one of ${ENVIRONMENTS.join(', ')}; got ${JSON.stringify(values.environment)}.`);
  }
  const org = values.org;
  console.log(await withAccounts((accounts) => accounts.createToken(org, values.environment as Environment)));
} else if (command === 'revoke-token') {
  // A secret on the command line ends up in shell history and in every `ps` listing: it is read from stdin.
  if (argument)
    fail(
      'revoke-token reads the token from standard input, not the command line: echo "$TOKEN" | npm run service -- revoke-token',
    );
  const token = readFileSync(0, 'utf8').trim();
  if (!token) fail('revoke-token needs the token on standard input.');
  const revoked = await withAccounts((accounts) => accounts.revokeToken(token));
  console.log(revoked ? 'revoked, with every token made from it' : 'no such live token');
} else if (command === 'plan') {
  console.log(await plan());
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
  if (values.database && !/^postgres(ql)?:\/\/./.test(values.database))
    fail(
      '--database must be a PostgreSQL URL, postgres://USER:PASSWORD@HOST:PORT/NAME (without it: SQLite in --data).',
    );
  const media = storage();
  // The ports the storage origin's hosts ask for beyond --storage-port: a port taken is said with --storage-hosts.
  const storageHostPorts =
    media.kind === 'disk' && media.hosts
      ? storageListens(media.hosts, values.host, port('storage-port')).map((on) => on.port)
      : [];
  // Loaded here, not above: a command (token, plan) needs the database and no server, and starts in half the time.
  const { startService } = await import('./app.js');
  const service = await startService({
    dataDir: values.data,
    role: role(),
    database: values.database || undefined,
    publicUrl: publicUrl(),
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
    jobLeaseMs: positive('job-lease-seconds') * 1000,
    minFreeBytes: positive('min-free-mb') * MiB,
    storageQuotaBytes: storageQuota(),
    storage: media,
    limits: limits(),
    importLimits: {
      maxBytes: Math.floor(positive('import-max-mb') * MiB),
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
    logLevel: logLevel(),
    metricsToken: metricsToken(),
  }).catch((err: unknown) =>
    fail(
      portInUse(err, {
        port: port('port'),
        'storage-port': port('storage-port'),
        'rtmp-port': port('rtmp-port'),
        'storage-hosts': storageHostPorts,
      }) ?? String(err),
    ),
  );
  console.log(service.readyLine(values.data));
  const stop = () => void service.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
