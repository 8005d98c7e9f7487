/**
 * Where media lives, from the command line and the environment: the data directory (the default, nothing new to run)
 * or an S3-compatible object store (`--storage s3://bucket[/prefix]`, issue 30). Validated here, at the edge, with
 * messages that name the flag and the bad value; credentials are never taken from flags (argv is visible to every
 * user of the machine) and never shown.
 */
import { isIP } from 'node:net';
import { MAX_STORAGE_HOSTS, type StorageHosts } from '../ports.js';

/** The flags of the store, as `parseArgs` gives them (flags.ts). */
export interface StorageFlags {
  storage?: string;
  's3-endpoint'?: string;
  's3-region'?: string;
  's3-path-style'?: boolean;
  'media-base-url'?: string;
  's3-cors-origins'?: string;
  'storage-hosts'?: string;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3Options {
  bucket: string;
  /** Prepended to every key: '' or a folder ending in `/` (from `s3://bucket/prefix`). */
  prefix: string;
  /** The store's address; undefined: AWS S3 for `region`. */
  endpoint?: string;
  region: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (MinIO, Ceph, most stores without wildcard DNS). */
  forcePathStyle: boolean;
  /** From AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY[/AWS_SESSION_TOKEN]; undefined: the SDK's default chain. */
  credentials?: S3Credentials;
  /** Playback under a public base (a CDN, a public bucket) instead of presigned GETs: `${mediaBaseUrl}/${key}`. */
  mediaBaseUrl?: string;
  /**
   * `--s3-cors-origins`: the origins the bucket's CORS lets PUT and GET, set at every start. Undefined: a CORS
   * configuration the bucket already has is left as it is, and a bucket without one gets any origin (`*`).
   */
  corsOrigins?: string[];
  /**
   * `--storage-hosts`: the hosts browsers PUT to (#2, #4), each link signed for its own (SigV4 signs the host).
   * Undefined: the service's own address of the store, one host.
   */
  linkHosts?: S3LinkHost[];
}

/** A host of the store's links: a store's address, and how a bucket is named on it. */
export interface S3LinkHost {
  /** Undefined: AWS S3's own name for the region. */
  endpoint?: string;
  /** `host/bucket/key`; otherwise `bucket.host/key` where the SDK can (a name, not an IP address). */
  forcePathStyle: boolean;
  /** AWS S3's dual-stack name (IPv4 and IPv6), `s3.dualstack.REGION.amazonaws.com`. */
  dualstack?: boolean;
}

/** Undefined `hosts`: the service's default (ports.ts, DEFAULT_STORAGE_HOSTS). */
export type StorageOptions = { kind: 'disk'; hosts?: StorageHosts } | { kind: 's3'; s3: S3Options };

/** Decision: the region when neither --s3-region nor AWS_REGION/AWS_DEFAULT_REGION names one (what MinIO and Ceph answer to). */
export const DEFAULT_S3_REGION = 'us-east-1';

/** S3's bucket naming rules (AWS, R2, MinIO agree): 3–63 lowercase letters, digits, dots and hyphens. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,32}$/;

export class StorageOptionError extends Error {}

const fail = (message: string): never => {
  throw new StorageOptionError(message);
};
const shown = (value: string) => JSON.stringify(value);

function httpUrl(flag: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    /* said below */
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password)
    fail(
      `${flag} must be an http(s) address without query or credentials, e.g. https://host:port; got ${shown(withoutCredentials(value))}.`,
    );
  return url!.href.replace(/\/+$/, '');
}

/** A refused address as the message shows it: a user and password in it are not repeated to the terminal or a log. */
export function withoutCredentials(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** `--s3-cors-origins`: `*`, or origins (`https://app.example.com`) separated by commas. */
function corsOrigins(value: string): string[] {
  const origins = value.split(',').map((o) => o.trim());
  if (origins.length === 1 && origins[0] === '*') return origins;
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      /* said below */
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin)
      fail(
        `--s3-cors-origins must be * or origins separated by commas, such as https://app.example.com (no path, no trailing slash); got ${shown(origin)}.`,
      );
  }
  return origins;
}

/** `--storage-hosts` on the data directory: a count, or `host:port` entries separated by commas. */
function localHosts(value: string): StorageHosts {
  const count = storageHostCount(value);
  if (count !== undefined) return count;
  return hostEntries(value).map((entry) => {
    const match = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+)):(\d{1,5})$/i.exec(entry);
    if (!match || Number(match[3]) > 65535)
      fail(
        `--storage-hosts must be a count from 1 to ${MAX_STORAGE_HOSTS}, or up to ${MAX_STORAGE_HOSTS} host:port entries separated by commas (127.0.0.1:4501,127.0.0.2:4501); got ${shown(entry)}.`,
      );
    return { host: (match![1] ?? match![2])!, port: Number(match![3]) };
  });
}

/** `--storage-hosts`' entries separated by commas, at most MAX_STORAGE_HOSTS of them. */
function hostEntries(value: string): string[] {
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_STORAGE_HOSTS)
    fail(`--storage-hosts lists ${entries.length} hosts; at most ${MAX_STORAGE_HOSTS} are taken.`);
  return entries;
}

/** A count of hosts (1 to MAX_STORAGE_HOSTS), undefined for what is not a number; a number outside that is refused. */
function storageHostCount(value: string): number | undefined {
  if (!/^\s*-?\d+\s*$/.test(value)) return undefined;
  const count = Number(value);
  if (!(count >= 1 && count <= MAX_STORAGE_HOSTS))
    fail(`--storage-hosts must be a count from 1 to ${MAX_STORAGE_HOSTS}, or a list of hosts; got ${shown(value)}.`);
  return count;
}

/**
 * `--storage-hosts` on an S3 store: a count of the store's own host names (up to as many as it has, below), or base
 * URLs separated by commas, `http(s)://host[:port]` (path style) or `http(s)://{bucket}.host[:port]` (virtual-hosted).
 */
function s3LinkHosts(value: string, store: Omit<S3Options, 'linkHosts'>): S3LinkHost[] {
  const count = storageHostCount(value);
  if (count !== undefined) return storeHostNames(store).slice(0, count);
  return hostEntries(value).map((entry) => {
    const virtual = /^(https?:\/\/)\{bucket\}\./.exec(entry);
    let url: URL | undefined;
    try {
      url = new URL(virtual ? virtual[1]! + entry.slice(virtual[0].length) : entry);
    } catch {
      /* said below */
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.href !== `${url.origin}/` || /[{}]/.test(url.host))
      fail(
        `--storage-hosts on an object store must be a count from 1 to ${MAX_STORAGE_HOSTS}, or base URLs separated by commas, http(s)://host[:port] (path style) or http(s)://{bucket}.host[:port] (virtual-hosted); got ${shown(withoutCredentials(entry))}.`,
      );
    return { endpoint: url!.origin, forcePathStyle: !virtual };
  });
}

/**
 * Decision (issue 32): the names a store answers to, each a host of its own to a browser (six connections each). AWS
 * S3: its regional name and its dual-stack name, virtual-hosted (path style for a bucket with a dot, which the SDK
 * does by itself: such a name fails TLS). Another store: its address as the service reaches it, then, where that is
 * a name and virtual-hosted addressing is on, the same address path style; a store reached by IP address, or with
 * `--s3-path-style`, has one. The first is the service's own way, so a #2 link reads as before.
 */
function storeHostNames({ endpoint, forcePathStyle, bucket }: Omit<S3Options, 'linkHosts'>): S3LinkHost[] {
  if (!endpoint) return [{ forcePathStyle }, { forcePathStyle, dualstack: true }];
  const named = isIP(new URL(endpoint).hostname.replace(/^\[|\]$/g, '')) === 0;
  return forcePathStyle || !named || bucket.includes('.')
    ? [{ endpoint, forcePathStyle }]
    : [
        { endpoint, forcePathStyle },
        { endpoint, forcePathStyle: true },
      ];
}

/**
 * The store the service runs on. `flags` win over `env` (the usual AWS variables: AWS_ENDPOINT_URL_S3,
 * AWS_ENDPOINT_URL, AWS_REGION, AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
 * Throws StorageOptionError naming the flag (or variable) and the bad value.
 */
export function storageOptions(flags: StorageFlags, env: Record<string, string | undefined> = {}): StorageOptions {
  const s3Flags = (['s3-endpoint', 's3-region', 'media-base-url', 's3-cors-origins'] as const).filter(
    (f) => flags[f] !== undefined,
  );
  if (flags.storage === undefined || flags.storage === 'disk') {
    const stray = [...s3Flags, ...(flags['s3-path-style'] ? ['s3-path-style'] : [])];
    if (stray.length > 0) fail(`--${stray[0]} applies to an object store only; add --storage s3://BUCKET.`);
    const hosts = flags['storage-hosts'];
    return hosts === undefined ? { kind: 'disk' } : { kind: 'disk', hosts: localHosts(hosts) };
  }
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(flags.storage);
  if (!match) fail(`--storage must be "disk" or s3://BUCKET[/PREFIX]; got ${shown(flags.storage)}.`);
  const [, bucket, rawPrefix = ''] = match!;
  if (!BUCKET.test(bucket!) || bucket!.includes('..'))
    fail(
      `--storage names the bucket ${shown(bucket!)}, which is not a valid S3 bucket name (3 to 63 lowercase letters, digits, dots and hyphens).`,
    );
  const folders = rawPrefix.split('/').filter((p) => p !== '');
  if (folders.some((p) => p === '.' || p === '..'))
    fail(`--storage's prefix must not contain "." or ".." folders; got ${shown(rawPrefix)}.`);
  const prefix = folders.length > 0 ? `${folders.join('/')}/` : '';

  const endpointValue = flags['s3-endpoint'] ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const endpointFrom =
    flags['s3-endpoint'] !== undefined
      ? '--s3-endpoint'
      : env.AWS_ENDPOINT_URL_S3
        ? 'AWS_ENDPOINT_URL_S3'
        : 'AWS_ENDPOINT_URL';
  const endpoint = endpointValue ? httpUrl(endpointFrom, endpointValue) : undefined;

  const region = flags['s3-region'] ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || DEFAULT_S3_REGION);
  if (!REGION.test(region)) fail(`--s3-region must be a region name such as us-east-1 or auto; got ${shown(region)}.`);

  const mediaBaseUrl =
    flags['media-base-url'] === undefined ? undefined : httpUrl('--media-base-url', flags['media-base-url']);

  // Both halves or neither: one without the other is a mistake the SDK's chain would hide behind another profile.
  const { AWS_ACCESS_KEY_ID: id, AWS_SECRET_ACCESS_KEY: secret, AWS_SESSION_TOKEN: token } = env;
  if (!!id !== !!secret)
    fail(
      `${id ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID'} is not set while ${id ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY'} is; set both, or neither (the SDK's default chain: profiles, SSO, instance roles).`,
    );
  const credentials =
    id && secret ? { accessKeyId: id, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) } : undefined;

  const store = {
    bucket: bucket!,
    prefix,
    ...(endpoint ? { endpoint } : {}),
    region,
    forcePathStyle: flags['s3-path-style'] ?? false,
    ...(credentials ? { credentials } : {}),
    ...(mediaBaseUrl ? { mediaBaseUrl } : {}),
    ...(flags['s3-cors-origins'] !== undefined ? { corsOrigins: corsOrigins(flags['s3-cors-origins']) } : {}),
  };
  const hosts = flags['storage-hosts'];
  return { kind: 's3', s3: hosts === undefined ? store : { ...store, linkHosts: s3LinkHosts(hosts, store) } };
}

/**
 * An object of the store (or, without `key`, the store's prefix) for messages and logs: its `s3://bucket/key`
 * address, then the endpoint, never a credential. A video's failure reason keeps such an address whole (it loses
 * only server paths: domain/videos.ts, markFailed).
 */
export function describeStore({ bucket, prefix, endpoint, region }: S3Options, key = prefix): string {
  return `s3://${bucket}/${key} (at ${endpoint ?? `AWS S3, ${region}`})`;
}
