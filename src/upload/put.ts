import { VideoServiceError } from '../api/errors.js';
import { isRetryableStatus, parseRetryAfter, withRetry } from '../api/retry.js';
import { etagMatches, md5 } from './verify.js';

export interface PutProgress {
  loaded: number;
  lengthComputable: true;
}

export interface PutOptions {
  url: string;
  body: Blob;
  /** Content-Type of the PUT ("not shown" in the spec; the local service takes any). */
  contentType: string;
  onProgress: (ev: PutProgress) => void;
  signal?: AbortSignal;
  /** Heard before each retry of this PUT. */
  onRetry?: (err: VideoServiceError, retry: number, delayMs: number) => void;
  /** Check the answered ETag against the MD5 of `body` (computed in a worker while the PUT runs). */
  verify?: boolean;
}

/**
 * Sent to @uppy/aws-s3 when a chunk's signed URL expired (403): its own loop then asks `signPart`
 * (#4) for a fresh URL and sends the chunk again. The message and `source.status` are what it checks.
 */
export class ExpiredUrlError extends Error {
  readonly source = { status: 403 };
  constructor() {
    super('Request has expired');
  }
}

/**
 * PUTs bytes to a signed storage URL (#5) with XHR (fetch has no upload progress). No Authorization
 * header, ever: the URL carries its own signature. Retried under api/retry.ts; resolves with the
 * ETag exactly as the storage sent it. A storage that does not expose ETag to the page gets an error
 * that says so, instead of an upload that never ends.
 */
export function putBytes(options: PutOptions): Promise<string> {
  const digest = options.verify ? md5(options.body) : undefined;
  digest?.catch(() => undefined);
  return withRetry(
    async () => {
      const etag = await putOnce(options);
      if (digest && !etagMatches(etag, await digest)) {
        throw new VideoServiceError(
          `The storage stored different bytes than were sent (ETag ${etag}, MD5 of the bytes sent "${await digest}"); they are sent again.`,
          0,
          'integrity',
          true,
        );
      }
      return etag;
    },
    { signal: options.signal, onRetry: options.onRetry },
  );
}

/**
 * `putBytes`, and a second PUT of the same bytes to the same URL once `twin` is called (connections.ts, the endgame):
 * the first to answer wins, and the other is cancelled. Its progress is the further of the two. A twin that fails is
 * forgotten (a storage that takes one PUT per URL at a time refuses it: 409); the first PUT's failure is the answer
 * once no twin is left to win.
 */
export function putRacing(options: PutOptions): { answer: Promise<string>; twin: (release: () => void) => void } {
  const { signal } = options;
  const loaded = [0, 0];
  const racers: AbortController[] = [];
  let won = false;
  let running = 0;
  /** The first PUT's failure: the answer once no twin is left to win. */
  let failure: { err: unknown } | undefined;
  let settle!: { resolve: (etag: string) => void; reject: (err: unknown) => void };
  const answer = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const race = (at: number, release?: () => void) => {
    const own = new AbortController();
    const stop = () => own.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    racers.push(own);
    running++;
    putBytes({
      ...options,
      signal: own.signal,
      onProgress: (ev) => {
        loaded[at] = ev.loaded;
        options.onProgress({ loaded: Math.max(...loaded), lengthComputable: true });
      },
    })
      .then(
        (etag) => {
          if (won) return;
          won = true;
          for (const other of racers) if (other !== own) other.abort();
          settle.resolve(etag);
        },
        (err: unknown) => {
          if (at === 0) failure = { err };
        },
      )
      .finally(() => {
        signal?.removeEventListener('abort', stop);
        release?.();
        // The first PUT ends by winning or failing, and a twin starts only while it runs: `failure` is set here.
        if (--running === 0 && !won) settle.reject(failure!.err);
      });
  };
  race(0);
  return {
    answer,
    twin: (release) => {
      if (won || failure || signal?.aborted) return release();
      race(1, release);
    },
  };
}

function putOnce({ url, body, contentType, onProgress, signal }: PutOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
    const xhr = new XMLHttpRequest();
    const origin = new URL(url).origin;
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    xhr.open('PUT', url, true);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.responseType = 'text';
    xhr.upload.addEventListener('progress', (ev) => onProgress({ loaded: ev.loaded, lengthComputable: true }));
    xhr.addEventListener('abort', () => {
      done();
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
    });
    xhr.addEventListener('error', () => {
      done();
      onProgress({ loaded: 0, lengthComputable: true });
      reject(
        new VideoServiceError(`The storage at ${origin} could not be reached (network error).`, 0, 'network', true),
      );
    });
    xhr.addEventListener('load', () => {
      done();
      if (xhr.status === 200 || xhr.status === 201 || xhr.status === 204) {
        const etag = xhr.getResponseHeader('ETag');
        if (etag === null) {
          reject(
            new VideoServiceError(
              `The storage at ${origin} accepted the bytes but does not let this page read the ETag header: ` +
                'its CORS configuration must send "Access-Control-Expose-Headers: ETag".',
              xhr.status,
              'etag_not_exposed',
              false,
            ),
          );
          return;
        }
        onProgress({ loaded: body.size, lengthComputable: true });
        resolve(etag);
        return;
      }
      onProgress({ loaded: 0, lengthComputable: true });
      let code = 'http_error';
      let message = `${xhr.status} ${xhr.statusText}`.trim();
      try {
        const parsed = JSON.parse(xhr.responseText) as { error?: { code?: string; message?: string } };
        code = parsed.error?.code ?? code;
        message = parsed.error?.message ?? message;
      } catch {
        /* not JSON: keep the status line */
      }
      if (xhr.status === 403 && code === 'signature_expired') return reject(new ExpiredUrlError());
      reject(
        new VideoServiceError(
          `The storage refused the upload: ${message}`,
          xhr.status,
          code,
          isRetryableStatus(xhr.status),
          parseRetryAfter(xhr.getResponseHeader('Retry-After')),
        ),
      );
    });
    xhr.send(body);
  });
}
