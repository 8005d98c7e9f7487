import { VideoServiceError } from './errors.js';
import { isRetryableStatus, parseRetryAfter, withRetry } from './retry.js';
import type { TokenCache } from './token.js';
import type {
  AbortRequest,
  AbortResponse,
  ApiErrorBody,
  ChunkDetail,
  ChunkUrlRequest,
  CompleteRequest,
  CompleteResponse,
  ConversionRequest,
  ExportEntry,
  CreateVideoRequest,
  ImportRequest,
  MultipartSession,
  TemporaryRecording,
  UploadUrlResponse,
  VideoDetails,
  VideoObject,
} from './types.js';

/** Whether a 2xx body has what the spec promises; a service that answers without it is reported, not trusted. */
type Check = (body: Record<string, unknown>) => boolean;
const hasString =
  (...keys: string[]): Check =>
  (body) =>
    keys.every((k) => typeof body[k] === 'string' && body[k] !== '');

const isArray: Check = (body) => Array.isArray(body);

/**
 * Typed client of the video service (shared/service-spec.md). The access token goes on these calls
 * only, all to `baseUrl`; storage PUTs never pass through here. Each call is retried under retry.ts,
 * and a 401 gets a fresh token once.
 */
export class VideoServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly tokens: TokenCache,
  ) {}

  /** #1 POST /videos. `file_name` is an optional extra the local service keeps; others ignore it. */
  createVideo(fileName: string | undefined, signal?: AbortSignal): Promise<VideoObject> {
    return this.call<VideoObject>(
      '#1',
      'POST',
      '/videos',
      hasString('_id'),
      signal,
      fileName ? ({ file_name: fileName } satisfies CreateVideoRequest) : undefined,
    );
  }

  /** #2 POST /videos/{video-id}/uploads: the signed link for one PUT of the whole file. */
  getUploadUrl(videoId: string, signal?: AbortSignal): Promise<UploadUrlResponse> {
    return this.call<UploadUrlResponse>(
      '#2',
      'POST',
      `/videos/${encodeURIComponent(videoId)}/uploads`,
      hasString('url'),
      signal,
    );
  }

  /** #3 POST /videos/{video-id}/multipart-upload/begin. */
  beginMultipart(videoId: string, signal?: AbortSignal): Promise<MultipartSession> {
    return this.call<MultipartSession>(
      '#3',
      'POST',
      `/videos/${encodeURIComponent(videoId)}/multipart-upload/begin`,
      hasString('key'),
      signal,
    );
  }

  /** #4 POST /videos/{video-id}/multipart-upload/get-chunk-upload-url: one URL for one chunk. */
  getChunkUploadUrl(videoId: string, key: string, chunkId: number, signal?: AbortSignal): Promise<UploadUrlResponse> {
    return this.call<UploadUrlResponse>(
      '#4',
      'POST',
      `/videos/${encodeURIComponent(videoId)}/multipart-upload/get-chunk-upload-url`,
      hasString('url'),
      signal,
      {
        key,
        chunkId,
      } satisfies ChunkUrlRequest,
    );
  }

  /** #6 POST /videos/{video-id}/multipart-upload/complete with every chunk's ETag exactly as received. */
  completeMultipart(
    videoId: string,
    key: string,
    chunks: ChunkDetail[],
    signal?: AbortSignal,
  ): Promise<CompleteResponse> {
    return this.call<CompleteResponse>(
      '#6',
      'POST',
      `/videos/${encodeURIComponent(videoId)}/multipart-upload/complete`,
      (b) => b.success === true,
      signal,
      { chunks, key } satisfies CompleteRequest,
    );
  }

  /** #7 POST /videos/multipart-upload/abort. */
  abortMultipart(key: string, signal?: AbortSignal): Promise<AbortResponse> {
    return this.call<AbortResponse>(
      '#7',
      'POST',
      '/videos/multipart-upload/abort',
      (b) => typeof b.success === 'boolean',
      signal,
      { key } satisfies AbortRequest,
    );
  }

  /**
   * POST /videos/{video-id}/import: the service downloads the file at `url` into the video (the spec's upload
   * from a third-party URL), then processes it; #8 shows `import: {bytes, total}` meanwhile.
   */
  importVideo(videoId: string, url: string, signal?: AbortSignal): Promise<VideoDetails> {
    return this.call<VideoDetails>(
      'import',
      'POST',
      `/videos/${encodeURIComponent(videoId)}/import`,
      hasString('_id'),
      signal,
      { url } satisfies ImportRequest,
    );
  }

  /** #8 GET /videos/{id}. */
  getVideo(videoId: string, signal?: AbortSignal): Promise<VideoDetails> {
    return this.call<VideoDetails>('#8', 'GET', `/videos/${encodeURIComponent(videoId)}`, hasString('_id'), signal);
  }

  /** #9 GET /live_streams/{id}/temporary_recordings: the stream's recordings, oldest first. */
  listTemporaryRecordings(streamId: string, signal?: AbortSignal): Promise<TemporaryRecording[]> {
    return this.call<TemporaryRecording[]>(
      '#9',
      'GET',
      `/live_streams/${encodeURIComponent(streamId)}/temporary_recordings`,
      isArray,
      signal,
    );
  }

  /** #10 POST /live_streams/{id}/temporary_recordings/{recording-id}: `{from, duration}` a part, `{}` the whole. */
  convertRecording(
    streamId: string,
    recordingId: string,
    body: ConversionRequest,
    signal?: AbortSignal,
  ): Promise<ExportEntry> {
    return this.call<ExportEntry>(
      '#10',
      'POST',
      `/live_streams/${encodeURIComponent(streamId)}/temporary_recordings/${encodeURIComponent(recordingId)}`,
      hasString('status'),
      signal,
      body,
    );
  }

  /** #11 GET /live_streams/{id}/recordings: the permanent videos converted from the stream. */
  listConvertedVideos(streamId: string, signal?: AbortSignal): Promise<VideoDetails[]> {
    return this.call<VideoDetails[]>(
      '#11',
      'GET',
      `/live_streams/${encodeURIComponent(streamId)}/recordings`,
      isArray,
      signal,
    );
  }

  private call<T>(
    endpoint: string,
    method: string,
    path: string,
    check: Check,
    signal?: AbortSignal,
    body?: unknown,
  ): Promise<T> {
    return withRetry(() => this.send(endpoint, method, path, check, signal, body), { signal });
  }

  private async send<T>(
    endpoint: string,
    method: string,
    path: string,
    check: Check,
    signal?: AbortSignal,
    body?: unknown,
  ): Promise<T> {
    let res = await this.fetchWithToken(endpoint, method, path, signal, body);
    if (res.response.status === 401) {
      this.tokens.invalidate(res.token);
      res = await this.fetchWithToken(endpoint, method, path, signal, body);
    }
    const { response } = res;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed as ApiErrorBody | undefined)?.error;
      const message = error?.message ?? `${response.status} ${response.statusText}`.trim();
      throw new VideoServiceError(
        `The video service refused ${endpoint} ${method} ${path}: ${message}`,
        response.status,
        error?.code ?? 'http_error',
        isRetryableStatus(response.status),
        parseRetryAfter(response.headers.get('retry-after')),
      );
    }
    if (typeof parsed !== 'object' || parsed === null) {
      const type = response.headers.get('content-type') ?? 'no content type';
      throw new VideoServiceError(
        `The video service answered ${endpoint} ${method} ${path} with a body that is not JSON (status ${response.status}, ${type}).`,
        response.status,
        'bad_response',
        false,
      );
    }
    if (!check(parsed as Record<string, unknown>)) {
      throw new VideoServiceError(
        `The video service answered ${endpoint} ${method} ${path} without the fields the spec names: ${text.slice(0, 120)}`,
        response.status,
        'bad_response',
        false,
      );
    }
    return parsed as T;
  }

  private async fetchWithToken(endpoint: string, method: string, path: string, signal?: AbortSignal, body?: unknown) {
    const token = await this.tokens.get();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        credentials: 'omit',
      });
      return { response, token };
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new VideoServiceError(
        `The video service could not be reached for ${endpoint} ${method} ${path}.`,
        0,
        'network',
        true,
      );
    }
  }
}
