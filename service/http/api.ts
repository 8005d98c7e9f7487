import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Type, type Static, type TObject, type TSchema, type TString } from 'typebox';
import { COMPONENTS, ERRORS, MINTED_SCOPES, type ErrorCode } from '../../src/api/contract.js';
import { MAX_JSON_BYTES } from '../../src/api/limits.js';
import type { Accounts, Caller, Scope } from '../domain/accounts.js';
import { outOfScope } from '../domain/accounts.js';
import { ServiceError, show } from '../domain/errors.js';
import type { Faults } from '../faults.js';
import { loggerOptions, setLogLevel, type LogLevel } from '../log.js';
import type { Metrics } from '../metrics.js';
import { clientAddress } from '../net/client-address.js';
import type { Settings } from '../settings.js';
import { document } from './document.js';
import { errorAnswer } from './errors.js';
import { observe } from './observe.js';
import { requestUrl } from './url.js';

/**
 * The API origin ({base_url}) on Fastify: each route is one schema (src/api/contract.ts) that Fastify turns into
 * validation, serialization and the OpenAPI document (@fastify/swagger), and one call into the domain. This file is
 * the plumbing every route shares: the JSON body rules, CORS, the error mapping, 404/405 and the test-hook guards.
 */
export type Api = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `op()` when the request arrives, for every operation that needs a token. */
    caller: Caller;
  }
}

const API_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-expose-headers': 'Retry-After, Content-Length, Content-Range',
  'access-control-max-age': '600',
};
/** Every token scope: an operation open to all of them never answers `insufficient_scope`. */
const SCOPES: readonly Scope[] = ['key', ...MINTED_SCOPES];
const isTestHook = (url: string | undefined) => url?.startsWith('/__test__/') ?? false;

/** A component of the document, named by reference: validated and serialized by it, typed as it. */
export const ref = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T>>(Type.Ref((schema as { $id?: string }).$id!));
/** The 200 answer of a file route: its media types, documented; the body is a file, never serialized. */
export const fileAnswer = (description: string, types: string[]) =>
  Type.Unsafe<unknown>({
    description,
    content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' } }])),
  });
/** Path parameters, all strings: a malformed id is a 404 from the domain, as for any unknown id. */
export const params = <K extends string>(...names: K[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Type.String()]))) as TObject<Record<K, TString>>;

export interface Operation<B extends TSchema, P extends TSchema, R extends TSchema> {
  /** Named for what it does: a generated client's method name. */
  operationId: string;
  /** The spec's endpoint number first (#1 … #11) where it is one. */
  summary: string;
  description?: string;
  /** Token scopes that may call it (domain/accounts.ts); `public`: no token; default: keys only. */
  scopes?: readonly Scope[] | 'public';
  /** Words for the 403 of another scope: "A token of scope … cannot {what}". */
  what?: string;
  body?: B;
  params?: P;
  /** The success answer: a schema, or `fileAnswer()`. */
  ok: R;
  /** Its status: 200, or 202 for work that goes on after the answer. */
  okStatus?: 200 | 202;
  /** Error codes this operation may send besides those of its token and body. */
  errors?: readonly ErrorCode[];
}

/** The route options of one operation: its schema (documented errors included) and, unless public, its token check. */
export function op<
  B extends TSchema = TObject<Record<never, never>>,
  P extends TSchema = TObject<Record<never, never>>,
  R extends TSchema = TSchema,
>(accounts: Accounts, o: Operation<B, P, R>) {
  const scopes = o.scopes ?? ['key'];
  // Any path can carry bad percent-encoding.
  const codes = new Set<ErrorCode>(['invalid_path', ...(o.errors ?? [])]);
  if (scopes !== 'public')
    [
      'unauthorized',
      'token_expired',
      'rate_limited',
      // A purged organization's keys and tokens (domain/accounts.ts).
      'capability_revoked',
      ...(SCOPES.every((s) => scopes.includes(s)) ? [] : ['insufficient_scope' as const]),
    ].forEach((c) => codes.add(c as ErrorCode));
  if (o.body) ['invalid_json', 'invalid_field', 'payload_too_large'].forEach((c) => codes.add(c as ErrorCode));
  const schema = {
    operationId: o.operationId,
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    security: scopes === 'public' ? [] : [{ bearer: [] }],
    // What a caller of each kind can do, in the document (docs/security.md): the token scopes this operation takes.
    'x-token-scopes': scopes === 'public' ? [] : [...scopes],
    ...(o.body ? { body: o.body } : {}),
    ...(o.params ? { params: o.params } : {}),
    response: { [o.okStatus ?? 200]: o.ok, ...errorResponses([...codes]) },
  } as unknown as {
    operationId: string;
    summary: string;
    security: Record<string, string[]>[];
    body: B;
    params: P;
    /** Typed for either success status; the document names only the operation's own. */
    response: { 200: R; 202: R };
  };
  // The token is checked before the body is read: a stranger's body is never parsed.
  const onRequest =
    scopes === 'public'
      ? undefined
      : async (req: FastifyRequest) => {
          req.caller = await callerOf(accounts, req);
          if (!scopes.includes(req.caller.scope)) throw outOfScope(req.caller, o.what ?? 'use this endpoint');
        };
  return { schema, ...(onRequest ? { onRequest } : {}) };
}

const callers = new WeakMap<FastifyRequest, Promise<Caller>>();
/**
 * The caller whose token a request sends, checked once per request: the rate limit counts by it (createApi), then
 * the operation takes it (`op()`). Rejects as `authenticate` does (no token, an unknown, revoked or expired one).
 */
function callerOf(accounts: Accounts, req: FastifyRequest): Promise<Caller> {
  let caller = callers.get(req);
  if (!caller) callers.set(req, (caller = accounts.authenticate(req.headers.authorization)));
  return caller;
}

/** The documented error answers: every code an operation may send, grouped by status, all with the one error schema. */
function errorResponses(codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code][0], [...(byStatus.get(ERRORS[code][0]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      Type.Ref('Error', { description: list.map((c) => `\`${c}\`: ${ERRORS[c][1]}`).join(' ') }),
    ]),
  );
}

function replyError(reply: FastifyReply, err: unknown): FastifyReply {
  // A 500 is logged by the request's logger: its line carries the request id the client was given.
  const { status, body, headers } = errorAnswer(err, reply.log);
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

/** Fastify's own errors (body limits, content, validation) as the service's errors. */
interface FrameworkError {
  code?: string;
  validation?: ValidationError[];
  validationContext?: string;
}

function fromFramework(err: FrameworkError, body: unknown): unknown {
  if (err instanceof ServiceError) return err;
  if (err.validation?.[0]) return fieldError(err.validation[0], err.validationContext ?? 'body', body);
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ServiceError('payload_too_large', `A JSON body may have at most ${MAX_JSON_BYTES} bytes.`);
  if (err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new ServiceError('invalid_json', 'The body is not valid JSON.');
  return err;
}

interface ValidationError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

/** An Ajv error as `invalid_field`: the field in the client's spelling (`chunks[2].eTag`), what it must be, and the value sent. */
function fieldError(e: ValidationError, context: string, body: unknown): ServiceError {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') path.push(String(e.params.missingProperty));
  // An item of a list of values is named by its list (`events`); the message says which item.
  const item = /^\d+$/.test(path.at(-1) ?? '') && e.parentSchema?.type !== 'object' ? path.pop() : undefined;
  const field = path.reduce(
    (name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part),
    '',
  );
  if (field === '') return new ServiceError('invalid_json', `The ${context} must be a JSON object; got ${show(body)}.`);
  if (e.keyword === 'required') return new ServiceError('invalid_field', `${field} is missing.`, field);
  const name = item === undefined ? field : `${field}[${item}]`;
  return new ServiceError(
    'invalid_field',
    `${name} must be ${describe(e.parentSchema ?? {})}; got ${show(e.data)}.`,
    field,
  );
}

/** What a value of `schema` is, in words. */
export function describe(schema: Record<string, unknown>): string {
  const s = schema as {
    type?: string;
    enum?: unknown[];
    const?: unknown;
    anyOf?: Record<string, unknown>[];
    minimum?: number;
    maximum?: number;
    minLength?: number;
    maxLength?: number;
    minItems?: number;
    pattern?: string;
    description?: string;
  };
  if (s.anyOf) return s.anyOf.map(describe).join(' or ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (s.type === 'integer') {
    const range =
      s.minimum !== undefined && s.maximum !== undefined
        ? ` from ${s.minimum} to ${s.maximum}`
        : s.minimum !== undefined
          ? `, ${s.minimum} or more`
          : '';
    return `a whole number${range}`;
  }
  if (s.type === 'number') return s.minimum !== undefined ? `a number, ${s.minimum} or more` : 'a number';
  if (s.type === 'string') {
    if (s.pattern)
      return s.description
        ? `a string: ${s.description[0]!.toLowerCase()}${s.description.slice(1).replace(/\.$/, '')}`
        : `a string matching ${s.pattern}`;
    const parts = [
      s.minLength ? 'non-empty' : '',
      s.maxLength !== undefined ? `of at most ${s.maxLength} characters` : '',
    ];
    return `a ${parts[0] ? `${parts[0]} ` : ''}string${parts[1] ? ` ${parts[1]}` : ''}`;
  }
  if (s.type === 'array') return s.minItems ? 'a non-empty array' : 'an array';
  if (s.type === 'object') return 'an object';
  if (s.type === 'boolean') return 'true or false';
  return 'valid';
}

/**
 * Decision (issue 28; spec: "Rate limits: not shown"): requests a minute per token, on every operation that takes a
 * token. #4 has a budget of its own: it is called once per chunk, and a 50 GB file in 5 MB chunks is 10,000 of them.
 * Public playback (hls.js fetches a segment every few seconds per viewer, and the ids are the capability) and the
 * test hooks are not limited.
 *
 * Decision (issue 30, review): a request is counted by its token only once the token is checked, as real APIs
 * count a signed-in caller by its account and everyone else by address; a request whose token is missing or not
 * taken (unknown, revoked, expired) is counted by its address. So a stranger sending a new random token each time
 * costs one lookup and one count of its address, never a count (a row of `rate_limits`, with several processes) per
 * token it makes up.
 */
export interface RateLimits {
  perMinute: number;
  chunkUrlsPerMinute: number;
}
/**
 * 1,200 a minute (20 a second): ten times what a page polling every second, uploading and clipping asks, and twice
 * what a test polling every 100 ms does. 6,000 chunk URLs a minute: 5 MB chunks at 500 MB/s, past any uplink.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { perMinute: 1200, chunkUrlsPerMinute: 6000 };

export interface ApiOptions {
  accounts: Accounts;
  /** What the service runs with: its rate limits, and the values its document states. */
  settings: Settings;
  /** With test hooks: faults on demand, applied to each API route before its handler. */
  faults?: Faults;
  origin: () => string;
  /** Each request observed (http/observe.ts) and logged at this level (log.ts). */
  metrics: Metrics;
  logLevel: LogLevel;
  /**
   * Where the rate limits count when several processes serve the API (http/rate-limit-store.ts: in the database);
   * none: in this process's memory, the one process that serves it.
   */
  rateLimitStore?: FastifyRateLimitStoreCtor;
}

/** The Fastify instance with its shared rules; the route modules add their operations to it. */
export async function createApi({
  accounts,
  faults,
  origin,
  settings,
  metrics,
  logLevel,
  rateLimitStore,
}: ApiOptions): Promise<Api> {
  const { rateLimits } = settings;
  const { head, securitySchemes, extensions } = document(settings);
  setLogLevel(logLevel);
  const routes: { method: string; pattern: RegExp }[] = [];
  const app = Fastify({
    ...loggerOptions(),
    // A request has 5 min (Node's own limit). An idle keep-alive connection is kept 65 s (as load balancers keep
    // them: 60 s and more), not Node's 5 s: a browser sends a file's chunks to the storage with nothing to say to the
    // API, and at 5 s its #6 paid a new connection and a preflight on it, two round trips at the end of every upload
    // of more than a few seconds (bench/link.bench.ts).
    requestTimeout: 300_000,
    keepAliveTimeout: 65_000,
    bodyLimit: MAX_JSON_BYTES,
    // A long id is an unknown id (404 from the domain), not a framework error; Node bounds the whole target anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, verbose: true } },
    frameworkErrors: (err, req, res) => {
      if (!(faults && isTestHook(req.url))) res.headers(API_CORS);
      replyError(
        res,
        err.code === 'FST_ERR_BAD_URL'
          ? new ServiceError('invalid_path', `The path ${show(req.url)} is not valid percent-encoding (UTF-8).`)
          : err,
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  observe(app, metrics);

  await app.register(swagger, {
    // The head is plain JSON of OpenAPI 3.1; the plugin's types know 3.0 shapes better than 3.1 webhooks.
    openapi: { ...head, components: { securitySchemes } } as never,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}` },
  });
  for (const schema of COMPONENTS) app.addSchema(schema);

  // Decision: a body is read as JSON whatever its Content-Type says (test hooks excepted, below); empty is `{}`.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, text, done) => {
    const trimmed = (text as string).trim();
    if (trimmed === '') return done(null, {});
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return done(new ServiceError('invalid_json', 'The body is not valid JSON.'), undefined);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return done(new ServiceError('invalid_json', 'The body must be a JSON object.'), undefined);
    done(null, value);
  });

  app.addHook('onRoute', (route) => {
    const source = route.url.replace(/[.]/g, '\\.').replace(/:(\w+)/g, '[^/]+');
    for (const method of [route.method].flat())
      if (method !== 'HEAD') routes.push({ method, pattern: new RegExp(`^${source}$`) });
  });

  app.addHook('onRequest', async (req, reply) => {
    // Test hooks are for the test process, never for a page: no CORS headers, and a POST must say
    // application/json, which a page can only send cross-origin after a preflight these routes never grant
    // (a form or a text/plain POST, which needs none, is refused).
    if (faults && isTestHook(req.url)) {
      // Only by the address the service listens on: a page of another name that its DNS turned to this address
      // (DNS rebinding) sends that name as Host, and never reaches the hooks.
      const { host, port } = new URL(origin());
      const localhost = port ? `localhost:${port}` : 'localhost';
      if (req.headers.host !== host && req.headers.host !== localhost) {
        throw new ServiceError(
          'invalid_host',
          `Test hooks answer at ${host} or ${localhost} only, not ${show(req.headers.host ?? '')}.`,
        );
      }
      if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        throw new ServiceError('unsupported_media_type', 'Test hooks take application/json only.');
      }
    } else {
      // On the raw response: an answer a fault writes there (test hooks) carries them too.
      for (const [name, value] of Object.entries(API_CORS)) reply.raw.setHeader(name, value);
    }
    const template = req.routeOptions.url;
    if (faults && template) {
      const answered = await faults.apply(`${req.method} ${template.replace(/:(\w+)/g, '{$1}')}`, req.raw, reply.raw);
      if (answered === true) reply.hijack();
    }
  });

  // After the CORS headers (a browser reads the 429) and the token's check (callerOf), before the body is read.
  await app.register(rateLimit, { global: false, ...(rateLimitStore && { store: rateLimitStore }) });
  const limiter = (budget: string, max: number) =>
    app.rateLimit({
      max,
      timeWindow: 60_000,
      // Without a token this service takes, a client is its address (net/client-address.ts: an IPv6 address by
      // its /64).
      keyGenerator: async (req) => {
        const caller = await callerOf(accounts, req).catch(() => undefined);
        // A client already gone has no address any more (its socket forgot it): all such count as one.
        return `${budget}:${caller ? caller.tokenHash : `address ${req.ip ? clientAddress(req.ip) : 'gone'}`}`;
      },
      errorResponseBuilder: (_req, { ttl }) =>
        new ServiceError(
          'rate_limited',
          budget === 'chunk-urls'
            ? `This token asked for more than ${max} chunk URLs (#4) in a minute (--chunk-url-rate-limit-per-minute); try again in ${Math.ceil(ttl / 1000)} s.`
            : `This token (or this address, for requests without a valid token) made more than ${max} requests in a minute (--rate-limit-per-minute); try again in ${Math.ceil(ttl / 1000)} s.`,
          undefined,
          { 'retry-after': String(Math.ceil(ttl / 1000)) },
        ),
    });
  const perToken = limiter('requests', rateLimits.perMinute);
  const chunkUrls = limiter('chunk-urls', rateLimits.chunkUrlsPerMinute);
  app.addHook('onRequest', async function (req, reply) {
    const takesToken = ((req.routeOptions.schema?.security as unknown[] | undefined)?.length ?? 0) > 0;
    if (!takesToken || reply.sent) return;
    const limit = req.routeOptions.url?.endsWith('/get-chunk-upload-url') ? chunkUrls : perToken;
    await limit.call(this, req, reply);
  });

  // No body, or `{}`: the same to every operation (its schema says which fields it needs).
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.routeOptions.schema?.body) req.body = {};
  });

  app.setErrorHandler((err, req, reply) => replyError(reply, fromFramework(err as FrameworkError, req.body)));

  app.setNotFoundHandler((req, reply) => {
    if (req.method === 'OPTIONS' && !(faults && isTestHook(req.url))) return reply.code(204).send();
    const { pathname } = requestUrl(req.url);
    const allow = [...new Set(routes.filter((r) => r.pattern.test(pathname)).map((r) => r.method))];
    if (allow.length === 0) return replyError(reply, new ServiceError('not_found', `No endpoint at ${pathname}.`));
    const list = allow.join(', ');
    return replyError(
      reply,
      new ServiceError('method_not_allowed', `${req.method} is not allowed here; use ${list}.`, undefined, {
        allow: list,
      }),
    );
  });

  app.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This document (OpenAPI 3.1)',
        security: [],
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1' }),
          ...errorResponses(['invalid_path']),
        },
      },
    },
    () => ({
      ...app.swagger(),
      servers: [{ url: origin(), description: 'This service' }],
      ...extensions,
    }),
  );
  return app;
}
