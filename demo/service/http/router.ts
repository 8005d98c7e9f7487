import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, sendError } from './errors.js';

export interface Request {
  raw: IncomingMessage;
  url: URL;
  params: Record<string, string>;
}
export type Handler = (req: Request, res: ServerResponse) => unknown | Promise<unknown>;

interface Route {
  method: string;
  /** OpenAPI path template, e.g. `/videos/{id}`: the OpenAPI test compares these with the document. */
  path: string;
  pattern: RegExp;
  handler: Handler;
}

/** A small router whose paths are written in OpenAPI syntax, so every route can be checked against the document. */
export class Router {
  readonly routes: Route[] = [];
  /** Runs before each matched handler; answering the request there (returning true) skips the handler. */
  before?: (route: { method: string; path: string }, req: Request, res: ServerResponse) => Promise<boolean>;

  add(method: string, path: string, handler: Handler): this {
    const source = path.replace(/[.]/g, '\\.').replace(/\{(\w+)\}/g, (_, name: string) => `(?<${name}>[^/]+)`);
    this.routes.push({ method, path, pattern: new RegExp(`^${source}$`), handler });
    return this;
  }

  async handle(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = requestUrl(raw.url);
      const matches = this.routes.filter((r) => r.pattern.test(url.pathname));
      if (matches.length === 0) throw new HttpError(404, 'not_found', `No endpoint at ${url.pathname}.`);
      const route = matches.find((r) => r.method === raw.method);
      if (!route) {
        const allow = [...new Set(matches.map((r) => r.method))].join(', ');
        throw new HttpError(405, 'method_not_allowed', `${raw.method} is not allowed here; use ${allow}.`, undefined, {
          allow,
        });
      }
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(url.pathname.match(route.pattern)?.groups ?? {})) {
        try {
          params[k] = decodeURIComponent(v);
        } catch {
          throw new HttpError(400, 'invalid_path', `The path segment ${show(v)} is not valid percent-encoding (UTF-8).`, k);
        }
      }
      const req = { raw, url, params };
      if (this.before && (await this.before(route, req, res))) return;
      await route.handler(req, res);
    } catch (err) {
      sendError(res, err);
    }
  }
}

/**
 * The request target as a URL whose path is the target's path. `new URL(target, base)` would read a target
 * that starts with `//` as a host (`//%25E0…` then throws, `//x` loses its path): it is appended instead.
 */
export function requestUrl(target: string | undefined): URL {
  try {
    return new URL(`http://service.invalid${target?.startsWith('/') ? target : `/${target ?? ''}`}`);
  } catch {
    throw new HttpError(400, 'invalid_path', `The request target ${show(target)} is not a valid path.`);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

const MAX_JSON_BYTES = 1024 * 1024;

/** Reads a JSON object body. An empty body is `{}`; anything else that is not a JSON object is a 400. */
export async function readJson(req: Request): Promise<Record<string, unknown>> {
  const declared = Number(req.raw.headers['content-length'] ?? 0);
  if (declared > MAX_JSON_BYTES) {
    req.raw.resume();
    throw new HttpError(413, 'payload_too_large', `A JSON body may have at most ${MAX_JSON_BYTES} bytes; got ${declared}.`);
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req.raw as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_JSON_BYTES) {
      throw new HttpError(413, 'payload_too_large', `A JSON body may have at most ${MAX_JSON_BYTES} bytes.`);
    }
    parts.push(part);
  }
  const text = Buffer.concat(parts).toString('utf8').trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/** Shows a client's value in an error message without letting it flood the message. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
