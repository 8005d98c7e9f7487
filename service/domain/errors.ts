import type { ErrorCode } from '../../src/api/contract.js';

/**
 * Every refusal of the service: a code from the contract's one table (src/api/contract.ts, ERRORS) and a
 * sentence for a person. The HTTP layer (http/errors.ts) is the one place that turns it into a status.
 */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The request field at fault, e.g. `chunks[2].eTag`. */
    readonly field?: string,
    /** Headers the answer carries (`Allow`, `Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * A failure whose sentence names what a client must not read (an engine's address, a bucket): the client gets
 * `forClient`, the log the whole message (http/errors.ts).
 */
export class InternalDetailError extends ServiceError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly forClient: string,
  ) {
    super(code, message);
  }
}

/** An error's sentence as a client may read it (a video's failure reason, an answer). */
export const clientMessage = (err: unknown): string =>
  err instanceof InternalDetailError ? err.forClient : (err as Error).message;

export const badField = (field: string, message: string) => new ServiceError('invalid_field', message, field);
export const notFound = (what: string) => new ServiceError('not_found', `${what} was not found.`);

/** Shows a client's value in an error message without letting it flood the message. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
