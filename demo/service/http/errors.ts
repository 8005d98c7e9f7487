import type { ServerResponse } from 'node:http';
import type { ApiErrorBody } from '../../../src/api/types.js';

/** Every failure of the service is one of these, and `sendError` is the one place that writes it. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badField = (field: string, message: string) => new HttpError(400, 'invalid_field', message, field);
export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} was not found.`);

export function sendError(res: ServerResponse, err: unknown): void {
  const e =
    err instanceof HttpError ? err : new HttpError(500, 'internal', 'The service failed on this request; it was logged.');
  if (!(err instanceof HttpError)) console.error(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body: ApiErrorBody = { error: { status: e.status, code: e.code, message: e.message } };
  if (e.field !== undefined) body.error.field = e.field;
  res.writeHead(e.status, { 'content-type': 'application/json; charset=utf-8', ...e.headers });
  res.end(JSON.stringify(body));
}
