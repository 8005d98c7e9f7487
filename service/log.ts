import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyServerOptions } from 'fastify';
import { pino, type Logger } from 'pino';

/**
 * The service's log: JSON lines on standard error (pino, through Fastify's logger), one line per request with its
 * id, method, route template, path, status and time, and whatever a module logs while it runs. Standard output
 * stays the service's answers to whoever started it (the ready line, a token): a reader of the ready line never
 * has to skip log lines, and a collector (journald, Docker, Kubernetes) takes both streams.
 *
 * Never in a log line: a token, an Authorization header, a cookie, a query string (a signed URL's signature, a
 * token in a query). The request line is written by this module from named fields only (no headers at all), and
 * the redaction below catches headers any other line might carry.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `--log-level`: a request line per request. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** Where a request's id comes from (a load balancer's) and goes back: the same header both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';
/**
 * An incoming id is kept only when it is a short token: letters, digits and `._:-`, at most 64 characters (a
 * UUID, a W3C trace id, nginx's `$request_id`, an AWS ALB's `Root=1-…` are all of that shape). Anything else
 * (spaces, newlines, quotes, a kilobyte) gets a new id: a client cannot write into the log or blow it up.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** What a line may carry that names a secret, wherever a module puts it: replaced, never written. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'token',
];

/** A URL's path without its query (a signed URL's signature, a token someone put there). */
export const pathOnly = (url: string) => url.split('?', 1)[0]!;

/**
 * The process's log: every module writes here (`log.error({ err }, 'words')`), never with console.*, so that every
 * line is JSON with a level and a time. Fastify's request loggers are its children, with the request's id. Its level
 * is the service's `--log-level` (setLogLevel, at start); one level per process.
 */
export const log: Logger = pino(
  {
    level: DEFAULT_LOG_LEVEL,
    redact: { paths: REDACTED, censor: '[redacted]' },
    // Words and an ISO time, for a reader and a collector alike: "level":"info", "time":"2026-…Z".
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    // Fastify's own request serializer writes the whole URL, query included: ours writes the path only.
    serializers: {
      err: pino.stdSerializers.err,
      req: (req: { method: string; url: string }) => ({ method: req.method, path: pathOnly(req.url) }),
    },
  },
  process.stderr,
);

export function setLogLevel(level: LogLevel): void {
  log.level = level;
}

/** Fastify's logger options for the API (http/api.ts): the process's log, the request id ours. */
export function loggerOptions(): Pick<FastifyServerOptions, 'loggerInstance' | 'genReqId' | 'logController'> {
  return {
    loggerInstance: log,
    genReqId: requestId,
    // Fastify writes two lines per request (incoming, completed); observe.ts writes one, with the route template.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
  };
}
