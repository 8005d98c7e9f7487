import type { ServerResponse } from 'node:http';
import { ERRORS, type ApiErrorBody } from '../../src/api/contract.js';
import { InternalDetailError, ServiceError } from '../domain/errors.js';
import { log } from '../log.js';

/** The answer to a failure: the one mapping of domain errors to statuses (the contract's ERRORS table). Anything else is a 500, logged. */
export function errorAnswer(
  err: unknown,
  logger: Pick<typeof log, 'error'> = log,
): { status: number; body: ApiErrorBody; headers: Record<string, string> } {
  const e =
    err instanceof InternalDetailError
      ? new ServiceError(err.code, err.forClient, err.field, err.headers)
      : err instanceof ServiceError
        ? err
        : new ServiceError('internal', 'The service failed on this request; it was logged.');
  if (!(err instanceof ServiceError) || err instanceof InternalDetailError) logger.error({ err }, 'the request failed');
  const status = ERRORS[e.code][0];
  const body: ApiErrorBody = { error: { status, code: e.code, message: e.message } };
  if (e.field !== undefined) body.error.field = e.field;
  return { status, body, headers: e.headers };
}

/** Writes an error on a plain `node:http` response (the storage origin, and faults injected by tests). */
export function sendError(res: ServerResponse, err: unknown): void {
  const { status, body, headers } = errorAnswer(err);
  if (res.headersSent) return void res.destroy();
  writeJson(res, status, body, headers);
}

/** A JSON answer on a plain `node:http` response: every error written outside Fastify goes through here. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}
