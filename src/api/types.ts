/**
 * Wire types of the video service (shared/service-spec.md), written once.
 * The element's client uses them; the local service in demo/service imports them as types.
 * Fields the spec marks "not shown" are the decisions documented in the README and in
 * demo/service/openapi.ts.
 */

/** `playback` of a video object. `poster_url` is an addition: null until ready, and for audio. */
export interface VideoPlayback {
  embed_url: string;
  /** HLS master playlist (index.m3u8). Answers 404 until the video is ready. */
  hls_url: string;
  poster_url?: string | null;
}

/** Response of #1 POST /videos. */
export interface VideoObject {
  _id: string;
  playback: VideoPlayback;
  user: string;
  environment: Environment;
  organization: string;
  /** ISO 8601, milliseconds, UTC. */
  creation_time: string;
}

/** Decision: a token belongs to one environment; its videos carry it. */
export const ENVIRONMENTS = ['production', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Decision: the life of a video object ("Transitions of a video object: not shown"). */
export const VIDEO_STATUSES = ['waiting', 'processing', 'ready', 'failed'] as const;
export type VideoStatus = (typeof VIDEO_STATUSES)[number];

/** Response of #8 GET /videos/{id}: the video object plus what the service knows of it. */
export interface VideoDetails extends VideoObject {
  status: VideoStatus;
  /** Why processing failed, in words a person understands; null unless failed. */
  failure_reason: string | null;
  /** MP4 of the processed video; null until ready. */
  download_url: string | null;
  /** Seconds, from the processed media; null until ready. */
  duration: number | null;
  /** Bytes of the uploaded source; null until uploaded. */
  size: number | null;
  /** Name of the uploaded file where the uploader gave it to #1. */
  file_name: string | null;
  /** How the source arrived; null for a video converted from a recording (#10). */
  upload_method: 'single' | 'multipart' | null;
  /** Addition: the live stream a converted recording came from (#10, listed by #11); null for uploads. */
  live_stream_id: string | null;
  mediainfo: MediaInfo | null;
  update_time: string;
  ready_time: string | null;
}

/** MediaInfo as in the `video-ready` payload: every value a string. */
export interface MediaInfo {
  /** Seconds with three decimals, e.g. "12.345". */
  duration: string;
  track: MediaTrack[];
}

export const GENERAL_FIELDS = [
  'VideoCount',
  'AudioCount',
  'FileExtension',
  'Format',
  'FileSize',
  'Duration',
  'OverallBitRate_Mode',
  'OverallBitRate',
  'FrameRate',
] as const;
export const VIDEO_FIELDS = [
  'Format',
  'Format_Profile',
  'Format_Level',
  'CodecID',
  'BitRate',
  'Width',
  'Height',
  'DisplayAspectRatio_String',
  'FrameRate_Mode',
  'FrameRate',
] as const;
export const AUDIO_FIELDS = ['Format', 'CodecID', 'BitRate', 'Channels', 'ChannelPositions', 'SamplingRate'] as const;

export type MediaTrack =
  | ({ '@type': 'General' } & Record<(typeof GENERAL_FIELDS)[number], string>)
  | ({ '@type': 'Video' } & Record<(typeof VIDEO_FIELDS)[number], string>)
  | ({ '@type': 'Audio' } & Record<(typeof AUDIO_FIELDS)[number], string>);

/** Optional body of #1 (an addition; the spec sends none). */
export interface CreateVideoRequest {
  file_name?: string;
}

/** Response of #2 and #4. */
export interface UploadUrlResponse {
  url: string;
}

/** Response of #3. */
export interface MultipartSession {
  key: string;
  /** Milliseconds since the epoch (13 digits), 6 hours after the session began. */
  expiresAt: number;
}

/** Body of #4. */
export interface ChunkUrlRequest {
  key: string;
  chunkId: number;
}

/** Element of `chunks` in #6. */
export interface ChunkDetail {
  chunkId: number;
  /** The ETag header of the chunk's PUT, with or without its double quotes. */
  eTag: string;
}

/** Body of #6. */
export interface CompleteRequest {
  chunks: ChunkDetail[];
  key: string;
}

/** Response of #6. Decision: `url` is the video's #8 address. */
export interface CompleteResponse {
  success: boolean;
  url: string;
}

/** Body of #7. */
export interface AbortRequest {
  key: string;
}

/** Response of #7. */
export interface AbortResponse {
  success: boolean;
}

/** Decision: a live stream ("Other live stream endpoints: not shown"). */
export interface LiveStream {
  _id: string;
  name: string | null;
  /** Secret: whoever has it can publish. Prefixed `lv_`. */
  stream_key: string;
  /** RTMP ingest: `server` and `stream_key` for OBS, or `url` (both together) for ffmpeg. */
  ingest: { server: string; url: string };
  /** `live` while a publisher is on. */
  status: 'idle' | 'live';
  creation_time: string;
}

/** Element of #9's array. `status`, and null `end_time`/`download_url` until complete, are decisions. */
export interface TemporaryRecording {
  _id: string;
  stream_key: string;
  start_time: string;
  /** When the last publish stopped; null until the recording is complete. */
  end_time: string | null;
  export_data: ExportEntry[];
  /** Whole seconds recorded so far; final once complete. */
  duration: number;
  playback: { temporary_playback: string };
  /** MP4 of the whole recording; null until complete. */
  download_url: string | null;
  /** `live`: a publisher is on; `stopped`: inside the merge window, or being finished; `complete`: final. */
  status: 'live' | 'stopped' | 'complete';
}

/** #10's response and an element of `export_data`. `FAILED` is an addition (the cut or processing failed). */
export interface ExportEntry {
  from: string;
  duration: number;
  bytes: number;
  status: 'PROCESSING' | 'EXPORTED' | 'FAILED';
  video_id?: string;
  download_url: string | null;
}

/** Body of #10: both fields for a part; decision: `{}` or no body at all for the whole recording. */
export interface ConversionRequest {
  from?: string;
  duration?: number;
}

/** Decision: the one error shape of every failure of the service. */
export interface ApiErrorBody {
  error: {
    status: number;
    /** Stable machine-readable code, e.g. `invalid_field`, `session_expired`. */
    code: string;
    /** A sentence that names what was wrong and the bad value. */
    message: string;
    /** The request field at fault, where there is one (e.g. `chunks[2].eTag`). */
    field?: string;
  };
}

/** Sizes: the spec's "5 GB" limits, taken as binary units like S3's. */
export const GIB = 1024 ** 3;
/** A chunk, and a single-link upload, must be smaller than this. */
export const MAX_PART_BYTES = 5 * GIB;
/** Multipart sessions and signed links live this long (spec: timed rules 1 and 2). */
export const UPLOAD_TTL_MS = 6 * 60 * 60 * 1000;
