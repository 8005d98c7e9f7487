import { GIB, MAX_PART_BYTES } from './api/limits.js';
import { en, type Strings } from './locale/en.js';
import { MiB } from './upload/plan.js';

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
/** Chosen by `npm run bench` (bench/widget.bench.ts): see the README. */
export const DEFAULT_CHUNK_SIZE = 32 * MiB;
export const DEFAULT_PARALLEL_UPLOADS = 4;
/** The spec recommends the signed link below 5 GB. */
export const DEFAULT_MULTIPART_THRESHOLD = 5 * GIB;

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

  describe(t: Strings): string {
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
  chunkSize: number;
  parallelUploads: number;
  maxFileSize: number | null;
  maxFiles: number | null;
  accept: string[];
  verifyChunks: boolean;
  theme: Theme;
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
  maxFileSize?: string;
  maxFiles?: number | string;
  accept?: string;
  verifyChunks?: boolean;
  theme?: string;
}): UploaderOptions {
  const theme = attributes.theme ?? 'light';
  if (!(THEMES as readonly string[]).includes(theme)) throw new OptionError('theme', theme, 'theme');
  const chunkSize = attributes.chunkSize ? parseSize('chunk-size', attributes.chunkSize) : DEFAULT_CHUNK_SIZE;
  if (chunkSize >= MAX_PART_BYTES) throw new OptionError('chunk-size', attributes.chunkSize, 'chunkTooBig');
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
        ? parseCount('parallel-uploads', attributes.parallelUploads, 32)
        : DEFAULT_PARALLEL_UPLOADS,
    maxFileSize: attributes.maxFileSize ? parseSize('max-file-size', attributes.maxFileSize) : null,
    maxFiles: attributes.maxFiles !== undefined ? parseCount('max-files', attributes.maxFiles) : null,
    accept: accept?.length ? accept : DEFAULT_ACCEPT,
    verifyChunks: attributes.verifyChunks ?? false,
    theme: theme as Theme,
  };
}
