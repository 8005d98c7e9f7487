import { VideoServiceError } from '../api/errors.js';
import type { Strings } from './en.js';

/** Codes that mean the page and the service are not set up to work together: the site's owner must act. */
const SETUP = new Set(['bad_response', 'etag_not_exposed', 'worker_failed', 'invalid_field', 'invalid_json']);

/**
 * What a person is told of a failed upload, in their language, from the error's code and status. The error's
 * own message (technical, English) stays on the error: `upload-error` carries it, for the developer.
 */
export function describeError(err: unknown, t: Strings, fileName: string): string {
  if (!(err instanceof VideoServiceError)) return t.errors.other((err as Error | undefined)?.name ?? 'Error');
  const { code, status } = err;
  // Already the person's sentence: a video refused under the media limits once the browser changed it.
  if (code === 'media_refused') return err.message;
  if (code === 'network') return t.errors.network;
  if (code === 'config') return t.errors.notConfigured;
  if (code === 'not_same_file') return t.notSameFile(fileName);
  if (code === 'quota_exceeded') return t.errors.quota;
  if (code === 'payload_too_large' || status === 413) return t.errors.tooLarge;
  if (code === 'signature_expired' || code === 'session_expired') return t.errors.expired;
  if (code === 'integrity') return t.errors.integrity;
  if (code === 'token' || status === 401 || status === 403) return t.errors.notAllowed;
  if (status === 429 || status >= 500) return t.errors.unavailable;
  if (SETUP.has(code)) return t.errors.setup(code);
  return t.errors.other(code);
}
