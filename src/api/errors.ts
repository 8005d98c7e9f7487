/** An error of the video service or of the network on the way to it, with what the element needs to decide. */
export class VideoServiceError extends Error {
  override name = 'VideoServiceError';
  constructor(
    message: string,
    /** HTTP status; 0 for a network failure. */
    readonly status: number,
    /** The service's `error.code`, or one of ours: `network`, `bad_response`, `token`. */
    readonly code: string,
    /** Whether trying again can help (see retry.ts). */
    readonly retryable: boolean,
    /** Seconds from a `Retry-After` header, where one came. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** True for the error an AbortSignal raises: an abort is the user's wish, never reported as a failure. */
export const isAbort = (err: unknown): boolean => (err as Error | undefined)?.name === 'AbortError';
