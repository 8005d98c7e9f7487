/**
 * The service's command-line flags (main.ts), each default taken from the module that holds it (settings.ts,
 * ports.ts): the help, the defaults and a service started without flags never disagree.
 */
import { MiB } from '../src/api/limits.js';
import { DEFAULT_LOG_LEVEL } from './log.js';
import { DEFAULT_DATA, DEFAULT_HOST, DEFAULT_PORTS, DEFAULT_STORAGE_HOSTS } from './ports.js';
import { ROLES } from './roles.js';
import { DEFAULTS } from './settings.js';

const { limits, importLimits, queueCaps, ingestLimits, conversionLimits, openUploadCaps, rateLimits } = DEFAULTS;
const seconds = (ms: number) => String(ms / 1000);
const value = (fallback: number | string) => ({ type: 'string', default: String(fallback) }) as const;
/** What `--help` shows for a flag without a default (its value is taken from the environment, or none). */
const PLACEHOLDERS: Record<string, string> = {
  's3-endpoint': 'URL',
  's3-region': 'REGION',
  'media-base-url': 'URL',
  's3-cors-origins': 'ORIGINS',
  'public-url': 'URL',
};

/** Each flag of the service itself (not of its account commands), with its default: what `--help` lists. */
export const SERVICE_FLAGS = {
  // What this process runs (roles.ts): all, api, worker or ingest.
  role: value(ROLES[0]),
  port: value(DEFAULT_PORTS.api),
  'storage-port': value(DEFAULT_PORTS.storage),
  // How many hosts the storage links name, or which (ports.ts, storage/options.ts): browsers open six connections per host.
  'storage-hosts': value(DEFAULT_STORAGE_HOSTS),
  'rtmp-port': value(DEFAULT_PORTS.rtmp),
  host: value(DEFAULT_HOST),
  data: { type: 'string', default: DEFAULT_DATA },
  // Empty: SQLite in the data directory (db/index.ts, databaseLocation).
  database: { type: 'string', default: '' },
  // Where clients reach the API (a load balancer's address), for the URLs answers and webhooks carry.
  'public-url': { type: 'string' },
  // Where media lives (storage/options.ts): the data directory, or an S3-compatible store and how to reach it.
  storage: value('disk'),
  's3-endpoint': { type: 'string' },
  's3-region': { type: 'string' },
  's3-path-style': { type: 'boolean', default: false },
  'media-base-url': { type: 'string' },
  's3-cors-origins': { type: 'string' },
  'merge-window-seconds': value(seconds(DEFAULTS.mergeWindowMs)),
  cut: value(DEFAULTS.cutStrategy),
  'test-hooks': { type: 'boolean', default: false },
  'allow-private-network': { type: 'boolean', default: false },
  'allow-any-port': { type: 'boolean', default: false },
  'stall-timeout-seconds': value(seconds(DEFAULTS.stallTimeoutMs)),
  'job-lease-seconds': value(seconds(DEFAULTS.jobLeaseMs)),
  'min-free-mb': value(DEFAULTS.minFreeBytes / MiB),
  'storage-quota-mb': value(DEFAULTS.storageQuotaBytes === null ? 'unlimited' : DEFAULTS.storageQuotaBytes / MiB),
  'import-max-mb': value(importLimits.maxBytes / MiB),
  'import-timeout-seconds': value(seconds(importLimits.timeoutMs)),
  'import-header-timeout-seconds': value(seconds(importLimits.headerTimeoutMs)),
  'import-idle-timeout-seconds': value(seconds(importLimits.idleTimeoutMs)),
  'max-queued-per-organization': value(queueCaps.perOrganization),
  'max-queued-per-user': value(queueCaps.perUser),
  'max-duration-seconds': value(limits.maxDurationSeconds),
  'max-resolution': value(`${limits.maxLongSide}x${limits.maxShortSide}`),
  'max-frame-rate': value(limits.maxFrameRate),
  'processing-base-seconds': value(limits.baseSeconds),
  'processing-seconds-per-media-second': value(limits.secondsPerMediaSecond),
  'probe-timeout-seconds': value(limits.probeSeconds),
  'rtmp-max-connections': value(ingestLimits.maxConnections),
  'rtmp-idle-seconds': value(seconds(ingestLimits.idleMs)),
  'rtmp-publish-within-seconds': value(seconds(ingestLimits.publishWithinMs)),
  'rtmp-connect-within-seconds': value(seconds(ingestLimits.connectWithinMs)),
  'rtmp-unpublished-per-address': value(ingestLimits.unpublishedPerAddress),
  'rtmp-restart-max-seconds': value(seconds(ingestLimits.restartMaxMs)),
  'max-conversions-per-stream': value(conversionLimits.perStream),
  'max-conversions-per-token': value(conversionLimits.perToken),
  'max-open-uploads-per-user': value(openUploadCaps.perUser),
  'max-open-uploads-per-organization': value(openUploadCaps.perOrganization),
  'rate-limit-per-minute': value(rateLimits.perMinute),
  'chunk-url-rate-limit-per-minute': value(rateLimits.chunkUrlsPerMinute),
  'log-level': value(DEFAULT_LOG_LEVEL),
  // "none": /metrics takes no token (http/health.ts).
  'metrics-token-file': value('none'),
} as const;

/** What `--help` prints: the service's flags with their defaults, then the account owner's commands. */
export function usage(): string {
  const flags = Object.entries(SERVICE_FLAGS).map(([name, flag]) =>
    flag.type === 'boolean'
      ? `[--${name}]`
      : name === 'data'
        ? '[--data DIR]'
        : name === 'database'
          ? '[--database postgres://USER:PASSWORD@HOST:PORT/NAME]'
          : `[--${name} ${'default' in flag ? flag.default : PLACEHOLDERS[name]}]`,
  );
  // Wrapped as a terminal shows it; --data's default is said apart, being a path of this machine.
  const lines = [''];
  for (const flag of flags) {
    if (lines.at(-1)!.length + flag.length > 90) lines.push('');
    lines[lines.length - 1] += `${lines.at(-1) ? ' ' : ''}${flag}`;
  }
  return [
    'Usage:',
    `  npm run service -- ${lines.join('\n                     ')}`,
    '  npm run service -- token --org NAME [--environment production|sandbox] [--data DIR | --database URL]',
    '  npm run service -- revoke-token [--data DIR | --database URL] < token-file   (the token on standard input)',
    '  npm run service -- plan --org NAME [--ends ISO-DATE|none] [--quota-minutes N|unlimited]',
    '                     [--quota-bytes N|unlimited|default] [--data DIR | --database URL]',
    `The data directory defaults to ${DEFAULT_DATA}. The metadata and the job queue live in SQLite there
(DIR/service.db), or with --database in that PostgreSQL database, which any number of service processes
share (docs/scale.md); its URL's password is never printed.`,
    `--role ${ROLES.join('|')}: all runs everything in one process; api, worker and ingest split it into processes`,
    'that share one database (docs/scale.md, "Roles"); --port is then the HTTP port of the role (for worker and ingest:',
    '/healthz, /readyz and /metrics).',
  ].join('\n');
}
