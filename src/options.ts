import { GIB, MAX_PART_BYTES, MiB } from './api/limits.js';
import { en, type Strings } from './locale/en.js';

/** Containers ffmpeg reads that browsers often label with no video/* type (or none at all). */
export const VIDEO_EXTENSIONS = [
  '.mp4',
  '.m4v',
  '.mov',
  '.qt',
  '.mkv',
  '.webm',
  '.avi',
  '.wmv',
  '.asf',
  '.flv',
  '.f4v',
  '.ts',
  '.mts',
  '.m2ts',
  '.m2t',
  '.mpg',
  '.mpeg',
  '.m2v',
  '.vob',
  '.3gp',
  '.3g2',
  '.ogv',
  '.mxf',
  '.dv',
  '.divx',
  '.rm',
  '.rmvb',
  '.y4m',
] as const;
export const DEFAULT_ACCEPT = ['video/*', ...VIDEO_EXTENSIONS];
/**
 * Chromium's connections per host over HTTP/1.1: one chunk per connection, which is what beats loss
 * (bench/link.bench.ts; docs/benchmarks.md has the figures). Chunk PUTs start at this many and adapt
 * (upload/connections.ts) unless `parallel-uploads` fixes the number; chunks are planned for it (upload/plan.ts), and
 * a shrunk video's output is sent this many chunks at a time.
 */
export const DEFAULT_PARALLEL_UPLOADS = 6;
/**
 * `max-parallel-uploads`: the most chunk PUTs the adaptive parallelism may reach, across files. Two of the service's
 * storage hosts at six each (docs/uploader.md says why six).
 */
export const DEFAULT_MAX_PARALLEL_UPLOADS = 12;
/** The largest `parallel-uploads` and `max-parallel-uploads` accepted. */
export const MOST_PARALLEL_UPLOADS = 32;
/**
 * The spec recommends the signed link below 5 GB, but one stream is what loss cuts down: from 64 MiB (the smallest
 * file bench/link.bench.ts measures) chunks in parallel were 4–6 × the single link at 0.1–1 % loss, and 0.98 of it
 * on a clean link (256 MiB). Uppy's own default is 100 MiB. A chunked upload can also be resumed.
 */
export const DEFAULT_MULTIPART_THRESHOLD = 64 * MiB;

/** What a bad attribute should have been: a key of the locale's `expected` sentences. */
export type Expected = keyof Strings['expected'];

/**
 * A bad attribute value: its code (`expected`) and parameters, for the element to say in the page's language
 * (`describe`); the message, in English, names the attribute and the value.
 */
export class OptionError extends Error {
  override name = 'OptionError';
  constructor(
    readonly attribute: string,
    readonly value: unknown,
    readonly expected: Expected,
    readonly max = 0,
  ) {
    super('');
    this.message = this.describe(en);
  }

  describe(t: Pick<Strings, 'invalid' | 'expected'>): string {
    const expected = t.expected[this.expected];
    return t.invalid(
      this.attribute,
      String(this.value),
      typeof expected === 'function' ? expected(this.max) : expected,
    );
  }
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: MiB,
  mb: MiB,
  mib: MiB,
  g: GIB,
  gb: GIB,
  gib: GIB,
  t: 1024 * GIB,
  tb: 1024 * GIB,
  tib: 1024 * GIB,
};

/**
 * A size such as `100MB`, `5 GB`, `1.5GiB` or `1048576`. Decision: units are binary (1 KB = 1024 bytes),
 * as Uppy prints sizes and as the spec's "5 GB" limits are meant.
 */
export function parseSize(attribute: string, value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  if (!match || unit === undefined) throw new OptionError(attribute, value, 'size');
  const bytes = Math.round(Number(match[1]) * unit);
  if (bytes <= 0) throw new OptionError(attribute, value, 'positiveSize');
  return bytes;
}

export function parseCount(attribute: string, value: string | number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\s*\d+\s*$/.test(String(value)) || Number(value) < 1 || Number(value) > max) {
    throw new OptionError(attribute, value, 'count', max);
  }
  return Number(value);
}

/** An absolute http(s) URL, or a path on this page's origin (`/video-api`, for a service behind the site's proxy). */
export function parseUrl(attribute: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new OptionError(attribute, value ?? '', 'required');
  let url: URL;
  try {
    url = value.startsWith('/') && !value.startsWith('//') ? new URL(value, document.baseURI) : new URL(value);
  } catch {
    throw new OptionError(attribute, value, 'url');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || /\s/.test(value)) {
    throw new OptionError(attribute, value, 'url');
  }
  return url.href.replace(/\/+$/, '');
}

export interface UploaderOptions {
  baseUrl: string;
  multipartThreshold: number;
  /** Bytes per chunk; null: sized to each file, shrinking with what is left (upload/plan.ts `planUpload`). */
  chunkSize: number | null;
  /** `parallel-uploads`: a fixed number of requests at once; null: chunk PUTs adapt (upload/connections.ts). */
  parallelUploads: number | null;
  /** `max-parallel-uploads`: the most the adaptive parallelism may reach. */
  maxParallelUploads: number;
  maxFileSize: number | null;
  maxFiles: number | null;
  accept: string[];
  verifyChunks: boolean;
  theme: Theme;
  /** Media restrictions: each file is read before it is added (upload/media-check.ts). Null: no limit. */
  media: MediaLimits;
  sources: readonly Source[];
  /** `max-upload-resolution`: a larger video is re-encoded in the browser to fit before it is sent. Null: off. */
  shrinkTo: ShrinkTarget | null;
  /** `trim`: each video's card has a trim editor, and only the part chosen is sent. */
  trim: boolean;
}

/** The frame a video is shrunk to fit, and the attribute's text for it (`1080p`), which names the choice. */
export interface ShrinkTarget extends Resolution {
  label: string;
}

/** Where videos come from: `sources="files,link,camera,screen"`; the default is `files,link`. */
export const SOURCES = ['files', 'link', 'camera', 'screen'] as const;
export type Source = (typeof SOURCES)[number];
export const DEFAULT_SOURCES: readonly Source[] = ['files', 'link'];

/** A comma-separated list of sources, each once; at least one. */
export function parseSources(value: string): Source[] {
  const list = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (!list.length || list.some((s) => !(SOURCES as readonly string[]).includes(s)))
    throw new OptionError('sources', value, 'sources');
  return [...new Set(list)] as Source[];
}

/** A resolution as its longer and its shorter side, so that a portrait video is judged as its landscape twin. */
export interface Resolution {
  long: number;
  short: number;
}

export interface MediaLimits {
  maxDuration: number | null;
  minDuration: number | null;
  maxResolution: Resolution | null;
  minResolution: Resolution | null;
}

export const NO_MEDIA_LIMITS: MediaLimits = {
  maxDuration: null,
  minDuration: null,
  maxResolution: null,
  minResolution: null,
};

/** True when any media restriction is set: only then is a file read before it is added. */
export const hasMediaLimits = (limits: MediaLimits): boolean => Object.values(limits).some((v) => v !== null);

/**
 * A length such as `90s`, `10m`, `1h30m`, `1.5h`, `01:30:00`, `1:30` (minutes and seconds) or `90` (seconds),
 * in seconds.
 */
export function parseDuration(attribute: string, value: string): number {
  const text = value.trim().toLowerCase();
  let seconds = NaN;
  if (/^\d+(:\d{1,2}){1,2}(\.\d+)?$/.test(text)) {
    seconds = text.split(':').reduce((total, part) => total * 60 + Number(part), 0);
  } else {
    const match = /^(?:(\d+(?:\.\d+)?)\s*h)?\s*(?:(\d+(?:\.\d+)?)\s*m(?:in)?)?\s*(?:(\d+(?:\.\d+)?)\s*s?)?$/.exec(text);
    if (match && text !== '')
      seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  }
  if (!(seconds > 0)) throw new OptionError(attribute, value, 'duration');
  return seconds;
}

/** `1080p` (a 16:9 frame 1080 high: 1920×1080), or `3840x2160` in either order. */
export function parseResolution(attribute: string, value: string): Resolution {
  const text = value.trim().toLowerCase();
  const p = /^(\d+)p$/.exec(text);
  const sides = p
    ? [Math.round((Number(p[1]) * 16) / 9), Number(p[1])]
    : /^(\d+)\s*[x×]\s*(\d+)$/.exec(text)?.slice(1).map(Number);
  if (!sides || !sides.every((n) => n > 0)) throw new OptionError(attribute, value, 'resolution');
  return { long: Math.max(...sides), short: Math.min(...sides) };
}

/** `theme`: Uppy's light or dark Dashboard and the element's colours; `auto` follows `prefers-color-scheme`. */
export const THEMES = ['light', 'dark', 'auto'] as const;
export type Theme = (typeof THEMES)[number];

/** The element's attributes, as strings, turned into checked options; the first bad one throws. */
export function resolveOptions(attributes: {
  baseUrl?: string;
  multipartThreshold?: string;
  chunkSize?: string;
  /** A number, or the attribute's text when it is not one (so the message shows what was written). */
  parallelUploads?: number | string;
  maxParallelUploads?: number | string;
  maxFileSize?: string;
  maxFiles?: number | string;
  accept?: string;
  sources?: string;
  maxDuration?: string;
  minDuration?: string;
  maxResolution?: string;
  minResolution?: string;
  maxUploadResolution?: string;
  trim?: boolean;
  verifyChunks?: boolean;
  theme?: string;
}): UploaderOptions {
  const theme = attributes.theme ?? 'light';
  if (!(THEMES as readonly string[]).includes(theme)) throw new OptionError('theme', theme, 'theme');
  const chunkSize = attributes.chunkSize ? parseSize('chunk-size', attributes.chunkSize) : null;
  if (chunkSize !== null && chunkSize >= MAX_PART_BYTES)
    throw new OptionError('chunk-size', attributes.chunkSize, 'chunkTooBig');
  const accept = attributes.accept
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (accept && accept.some((a) => !/^(\.[\w-]+|[\w-]+\/(\*|[\w.+-]+))$/.test(a))) {
    throw new OptionError('accept', attributes.accept, 'accept');
  }
  return {
    baseUrl: parseUrl('base-url', attributes.baseUrl),
    multipartThreshold: attributes.multipartThreshold
      ? parseSize('multipart-threshold', attributes.multipartThreshold)
      : DEFAULT_MULTIPART_THRESHOLD,
    chunkSize,
    parallelUploads:
      attributes.parallelUploads !== undefined
        ? parseCount('parallel-uploads', attributes.parallelUploads, MOST_PARALLEL_UPLOADS)
        : null,
    maxParallelUploads:
      attributes.maxParallelUploads !== undefined
        ? parseCount('max-parallel-uploads', attributes.maxParallelUploads, MOST_PARALLEL_UPLOADS)
        : DEFAULT_MAX_PARALLEL_UPLOADS,
    maxFileSize: attributes.maxFileSize ? parseSize('max-file-size', attributes.maxFileSize) : null,
    maxFiles: attributes.maxFiles !== undefined ? parseCount('max-files', attributes.maxFiles) : null,
    accept: accept?.length ? accept : DEFAULT_ACCEPT,
    sources: attributes.sources ? parseSources(attributes.sources) : DEFAULT_SOURCES,
    media: {
      maxDuration: attributes.maxDuration ? parseDuration('max-duration', attributes.maxDuration) : null,
      minDuration: attributes.minDuration ? parseDuration('min-duration', attributes.minDuration) : null,
      maxResolution: attributes.maxResolution ? parseResolution('max-resolution', attributes.maxResolution) : null,
      minResolution: attributes.minResolution ? parseResolution('min-resolution', attributes.minResolution) : null,
    },
    verifyChunks: attributes.verifyChunks ?? false,
    theme: theme as Theme,
    shrinkTo: attributes.maxUploadResolution
      ? {
          ...parseResolution('max-upload-resolution', attributes.maxUploadResolution),
          label: attributes.maxUploadResolution.trim().toLowerCase().replace('×', 'x'),
        }
      : null,
    trim: attributes.trim ?? false,
  };
}
