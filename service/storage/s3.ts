import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HOUR_MS, MiB } from '../../src/api/limits.js';
import { badField, InternalDetailError, notFound, ServiceError } from '../domain/errors.js';
import { newId } from '../ids.js';
import { TEMP_MARK } from './files.js';
import { describeStore, type S3Options } from './options.js';
import { keyBeside, signPlaylist } from './playlist-links.js';

/**
 * Media on an S3-compatible store (AWS S3, Cloudflare R2, MinIO, Ceph's RADOS Gateway), issue 30. The browser's
 * PUTs go straight to the store by presigned links (#2, #4), so no byte of an upload passes through the service; the
 * store's ETag of a part is the chunk's eTag (#5, #6). Key layout (docs/scale.md, Object store), under the `s3://` prefix:
 *
 *   orgs/<organization id>/videos/<video id>/source          the uploaded file (#2's PUT, or #6's joined parts)
 *   orgs/<organization id>/videos/<video id>/media/…         what processing delivers, named as processing/pipeline.ts
 *       index.m3u8, download.mp4, poster.jpg,                names it in its output folder: the playlists' relative
 *       main/stream.m3u8, main/seg0000.ts, 360p/…            URIs resolve beside them, under a public base URL too
 *   orgs/<organization id>/recordings/<recording id>/…       a live recording's segments, as the ingest writes them
 *   incoming/<organization id>/<video id>/<link id>          a #2 link's PUT, until the service takes it in (copies
 *                                                            it to the source) or refuses it, and deletes it
 *
 * The organization comes first so that its bytes (its quota, a purge after its plan ended) are one prefix. What
 * #2's links received is apart, under one prefix the sweeper lists: nothing there is the organization's yet.
 * Every failure of the store becomes a ServiceError with a sentence naming the object (its s3:// address) and the
 * endpoint (never the SDK's XML, never a credential): 503 `storage_unavailable` when the store is down or refuses
 * the service.
 */

/** Cache-Control of what processing writes: a playlist as the API serves it today; the rest never changes once written. */
const PLAYLIST_CACHE = 'public, max-age=60';
const MEDIA_CACHE = 'public, max-age=86400';
/** Content-Type by extension; the same table as http/static.ts's, which serves these files from disk. */
const MEDIA_TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.mp4': 'video/mp4',
  '.jpg': 'image/jpeg',
};
/**
 * Decision: a playback GET link is signed as of the start of its hour and valid 7 hours, so it has 6 to 7 hours
 * left when given out, and every API process (and every request within the hour) gives the same URL: a CDN or
 * browser caches it, and no process holds state another needs (issue 30, item 4).
 */
export const PLAYBACK_LINK_MS = 7 * HOUR_MS;
/** S3's limits: parts from 5 MiB (but the last), at most 10,000 of them, 1,000 keys per list or delete. */
export const MIN_PART_BYTES = 5 * MiB;
const PAGE = 1000;
/** Uploads of processing outputs at once; files above `multipartFrom` go up in parts of this size. */
const CONCURRENT_PUTS = 4;
const OUTPUT_PART_BYTES = 64 * MiB;

export interface StoredPart {
  partNumber: number;
  /** Without its quotes, lowercase, as #6 compares it. */
  etag: string;
  size: number;
}

type Credentials = S3ClientConfig['credentials'];

/** A client of the store at `endpoint` (AWS S3 for the region without one), addressing buckets as `forcePathStyle` says. */
function s3Client(
  { region, endpoint, forcePathStyle, credentials }: Omit<S3Options, 'credentials'> & { credentials?: Credentials },
  useDualstackEndpoint = false,
): S3Client {
  return new S3Client({
    region,
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle,
    useDualstackEndpoint,
    ...(credentials ? { credentials } : {}),
    // Checksums only where S3 requires one: a presigned link must not carry the checksum of an empty body, and
    // stores that predate flexible checksums (Ceph Pacific, older MinIO) refuse streamed trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that does not answer is said within seconds, not after the operating system gives up.
    requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
    maxAttempts: 3,
  });
}

/** The keys of one organization's media: the one place the layout above is written. */
export class Keys {
  constructor(private readonly prefix: string) {}
  organization = (org: string) => `${this.prefix}orgs/${safe(org)}/`;
  video = (org: string, id: string) => `${this.organization(org)}videos/${safe(id)}/`;
  source = (org: string, id: string) => `${this.video(org, id)}source`;
  media = (org: string, id: string, name = '') => `${this.video(org, id)}media/${name}`;
  recording = (org: string, id: string) => `${this.organization(org)}recordings/${safe(id)}/`;
  /** Where #2's links take their PUTs, one key per link, apart from the organizations' folders (see above). */
  incomingRoot = () => `${this.prefix}incoming/`;
  incoming = (org: string, id: string, link: string) => `${this.incomingRoot()}${safe(org)}/${safe(id)}/${safe(link)}`;
}

/** Ids and organization names become one key segment: no `/`, no `.`/`..` segment, nothing outside printable ASCII. */
function safe(segment: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(segment) || /^\.+$/.test(segment))
    throw new Error(`Not a key segment: ${JSON.stringify(segment)}`);
  return segment;
}

export interface S3StoreOptions extends S3Options {
  /** Milliseconds now (the service's clock); presigned links are dated by it. */
  now?: () => number;
  /** Outputs this large or larger are uploaded in parts (tests lower it). */
  multipartFrom?: number;
  /** Keys or parts per list request: S3's 1,000 (tests lower it, to read every page of a short list). */
  pageSize?: number;
}

export class S3Store {
  readonly client: S3Client;
  /**
   * One client per host of the links browsers PUT to (`linkHosts`, issue 32), presigning only: SigV4 signs the host,
   * so a link is good on its own host. The service's own calls stay on `client`, at the store's address.
   */
  private readonly linkClients: S3Client[];
  readonly keys: Keys;
  readonly bucket: string;
  private readonly now: () => number;
  private readonly page: number;

  constructor(private readonly options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.keys = new Keys(options.prefix);
    this.now = options.now ?? Date.now;
    this.page = options.pageSize ?? PAGE;
    this.client = s3Client(options);
    // One credentials chain for all: the link clients sign with what the service's client resolved.
    const credentials = options.credentials ?? this.client.config.credentials;
    this.linkClients = options.linkHosts?.map((host) =>
      s3Client({ ...options, ...host, credentials }, host.dualstack),
    ) ?? [this.client];
  }

  /** `--media-base-url`: playback from a CDN or public bucket rather than by presigned links. */
  get mediaBaseUrl(): string | undefined {
    return this.options.mediaBaseUrl;
  }

  /** Stops the client's sockets (a test, the end of a process). */
  destroy(): void {
    for (const client of new Set([this.client, ...this.linkClients])) client.destroy();
  }

  // #2: a link for one PUT of the whole file to `key`. Decision: signed as of `signedAt` (the link's creation, so every
  // API process signs the same URL) and valid until `expiresAt`. With `size` known the Content-Length is signed (as
  // every header the command sets) and the store refuses any other; otherwise (the spec's #2 has no size) the size is
  // checked when the upload is seen, by `head`: S3 has no limit on a presigned PUT but its own 5 GiB.
  async putUrl(key: string, { signedAt, expiresAt, size }: { signedAt: number; expiresAt: number; size?: number }) {
    return this.presign(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ...(size === undefined ? {} : { ContentLength: size }) }),
      signedAt,
      expiresAt,
      this.linkClients[0],
    );
  }

  /** The size and ETag of an object, or null when there is none (a #2 upload not made yet). */
  async head(key: string): Promise<{ size: number; etag: string } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, etag: bare(head.ETag) };
    } catch (err) {
      if (status(err) === 404) return null;
      throw this.failure(err, 'read', key);
    }
  }

  // #3: a multipart upload to `key`; its upload id is kept with the session.
  async createMultipart(key: string, contentType = 'application/octet-stream'): Promise<string> {
    try {
      const { UploadId } = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
      );
      if (!UploadId) throw new Error('no UploadId');
      return UploadId;
    } catch (err) {
      throw this.failure(err, 'begin a multipart upload to', key);
    }
  }

  // #4: a link for one part (the chunkId is the part number), signed as of the session's start and valid until it
  // expires; part N on link host N-1, round the hosts, so parts sent at once spread over the browser's pools.
  async partUrl(
    key: string,
    uploadId: string,
    partNumber: number,
    { signedAt, expiresAt }: { signedAt: number; expiresAt: number },
  ) {
    return this.presign(
      new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber }),
      signedAt,
      expiresAt,
      this.linkClients[(partNumber - 1) % this.linkClients.length],
    );
  }

  // #6, first: what the store holds of the upload, every page of it, for matchParts (storage/parts.ts) to check.
  async listParts(key: string, uploadId: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListPartsCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: uploadId,
            MaxParts: this.page,
            PartNumberMarker: marker,
          }),
        );
        for (const p of page.Parts ?? [])
          parts.push({ partNumber: p.PartNumber!, etag: bare(p.ETag), size: p.Size ?? 0 });
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (err) {
      if (noUpload(err)) throw uploadGone();
      throw this.failure(err, 'list the parts of', key);
    }
    return parts;
  }

  // #6, then: the parts that matchParts accepted, joined by the store into `key`. A part sent again between the list
  // and this call no longer has the listed ETag: the store refuses, and the client completes with the new one.
  async completeMultipart(
    key: string,
    uploadId: string,
    parts: { partNumber: number; etag: string }[],
  ): Promise<{ etag: string }> {
    try {
      const done = await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: `"${p.etag}"` })) },
        }),
      );
      // Ceph Pacific answers an empty ETag here; the object's own says the same.
      const etag = bare(done.ETag) || (await this.head(key))?.etag;
      if (!etag) throw new Error('no ETag');
      return { etag };
    } catch (err) {
      const code = name(err);
      if (code === 'InvalidPart' || code === 'InvalidPartOrder')
        throw badField(
          'chunks',
          'A listed chunk was sent again meanwhile, or is no longer stored; complete with the eTags the chunks have now.',
        );
      if (noUpload(err)) throw uploadGone();
      if (code === 'EntityTooSmall')
        throw badField('chunks', `Every chunk but the last must have at least ${MIN_PART_BYTES} bytes on this store.`);
      throw this.failure(err, 'complete the multipart upload to', key);
    }
  }

  // #7: the store drops the parts. Aborting an upload the store no longer has (aborted, completed, swept) is done.
  async abortMultipart(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (err) {
      if (noUpload(err)) return;
      throw this.failure(err, 'abort the multipart upload to', key);
    }
  }

  /**
   * Processing: the object at `key` to the local `file` (ffmpeg reads a seekable file), through a temporary name so
   * a half download is never taken for the source. With `etag`, only that version: a link used again after the
   * upload was accepted cannot swap the bytes processing reads.
   */
  async download(key: string, file: string, etag?: string): Promise<number> {
    const temp = `${file}${TEMP_MARK}${newId()}`;
    try {
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(etag ? { IfMatch: `"${etag}"` } : {}) }),
      );
      await pipeline(got.Body as Readable, createWriteStream(temp, { highWaterMark: 4 * MiB, flush: true }));
      await rename(temp, file);
      return got.ContentLength ?? (await stat(file)).size;
    } catch (err) {
      throw this.failure(err, 'download', key);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * Processing's outputs: every file under `dir` to `prefix` + its path there (`/` separated), with its Content-Type
   * and Cache-Control. Returns the bytes written.
   */
  async uploadFolder(dir: string, prefix: string): Promise<number> {
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    const paths = files.map((e) => join(e.parentPath, e.name));
    let bytes = 0;
    const queue = [...paths];
    const worker = async () => {
      for (let path = queue.shift(); path; path = queue.shift()) {
        const key = prefix + relative(dir, path).split(sep).join('/');
        const written = await this.putFile(path, key);
        bytes += written; // after the await: `bytes += await …` would add to the total read before it
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_PUTS }, worker));
    return bytes;
  }

  /** One local file to `key` (processing's outputs, a live recording's segments); `text`: its content as read. */
  async putFile(path: string, key: string, text?: string): Promise<number> {
    const size = text === undefined ? (await stat(path)).size : Buffer.byteLength(text);
    const type = MEDIA_TYPES[extname(path)] ?? 'application/octet-stream';
    const headers = { ContentType: type, CacheControl: extname(path) === '.m3u8' ? PLAYLIST_CACHE : MEDIA_CACHE };
    try {
      if (size < (this.options.multipartFrom ?? 4 * OUTPUT_PART_BYTES)) {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: text ?? createReadStream(path),
            ContentLength: size,
            ...headers,
          }),
        );
        return size;
      }
      // Large files (a long MP4) in parts: a failed part is sent again alone, and no single PUT nears S3's 5 GiB.
      const partBytes = Math.max(
        MIN_PART_BYTES,
        Math.min(OUTPUT_PART_BYTES, this.options.multipartFrom ?? OUTPUT_PART_BYTES),
      );
      const { UploadId } = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ...headers }),
      );
      try {
        const parts: { PartNumber: number; ETag: string }[] = [];
        for (let start = 0, n = 1; start < size; start += partBytes, n++) {
          const end = Math.min(size, start + partBytes);
          const { ETag } = await this.client.send(
            new UploadPartCommand({
              Bucket: this.bucket,
              Key: key,
              UploadId,
              PartNumber: n,
              Body: createReadStream(path, { start, end: end - 1 }),
              ContentLength: end - start,
            }),
          );
          parts.push({ PartNumber: n, ETag: ETag! });
        }
        await this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId,
            MultipartUpload: { Parts: parts },
          }),
        );
      } catch (err) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
          .catch(() => undefined);
        throw err;
      }
      return size;
    } catch (err) {
      throw this.failure(err, 'upload', key);
    }
  }

  /**
   * Everything under `prefix` goes: its objects, a page of 1,000 at a time, and the multipart uploads begun under it
   * (their parts are stored bytes too, invisible to a listing of objects). Returns the objects deleted.
   */
  async deletePrefix(prefix: string): Promise<number> {
    let deleted = 0;
    try {
      let token: string | undefined;
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            MaxKeys: this.page,
            ContinuationToken: token,
          }),
        );
        const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
        if (keys.length > 0) {
          const done = await this.client.send(
            new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
          );
          const failed = done.Errors ?? [];
          if (failed.length > 0)
            throw new ServiceError(
              'storage_unavailable',
              `The object store did not delete ${failed.length} objects under ${describeStore(this.options, prefix)} (${failed[0]!.Code ?? 'no reason given'}); try again later.`,
            );
          deleted += keys.length;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      let keyMarker: string | undefined;
      let idMarker: string | undefined;
      do {
        const page = await this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.bucket,
            Prefix: prefix,
            MaxUploads: this.page,
            KeyMarker: keyMarker,
            UploadIdMarker: idMarker,
          }),
        );
        for (const u of page.Uploads ?? []) await this.abortMultipart(u.Key!, u.UploadId!);
        [keyMarker, idMarker] = page.IsTruncated
          ? [page.NextKeyMarker, page.NextUploadIdMarker]
          : [undefined, undefined];
      } while (keyMarker);
    } catch (err) {
      throw this.failure(err, 'delete what is under', prefix);
    }
    return deleted;
  }

  /**
   * The keys under `prefix`, every page of them (the sweeper's look at #2's incoming uploads: normally none or a
   * few, each one a link's upload not yet taken in, or a replay of one that was).
   */
  async keysUnder(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            MaxKeys: this.page,
            ContinuationToken: token,
          }),
        );
        for (const o of page.Contents ?? []) keys.push(o.Key!);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw this.failure(err, 'list what is under', prefix);
    }
    return keys;
  }

  /**
   * The object at `from` copied to `to` by the store (no byte through the service), asked only while it is the
   * version whose ETag is `etag` (CopySourceIfMatch; a store may ignore it: Ceph Pacific does). Null when the store
   * refused (412: replaced since), or has no such object. Returns the copy's ETag.
   */
  async copy(from: string, to: string, etag: string): Promise<{ etag: string } | null> {
    try {
      const done = await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: to,
          CopySource: `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
          CopySourceIfMatch: `"${etag}"`,
        }),
      );
      return { etag: bare(done.CopyObjectResult?.ETag) || etag };
    } catch (err) {
      if (status(err) === 412 || (status(err) === 404 && name(err) !== 'NoSuchBucket')) return null;
      throw this.failure(err, 'copy', from);
    }
  }

  /** Deletes the object at `key`; one the store does not have is deleted already. */
  async deleteObject(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      if (status(err) === 404 && name(err) !== 'NoSuchBucket') return;
      throw this.failure(err, 'delete', key);
    }
  }

  /**
   * Playback and download: `--media-base-url` + key when a CDN or public bucket serves the media (a playlist's relative
   * URIs then resolve under the same base, untouched), else a presigned GET (see PLAYBACK_LINK_MS; playlists are then
   * served by the API with their URIs signed: signedPlaylist).
   */
  async getUrl(key: string): Promise<string> {
    const known = this.publicUrl(key);
    if (known) return known;
    const signedAt = Math.floor(this.now() / HOUR_MS) * HOUR_MS;
    return this.presign(new GetObjectCommand({ Bucket: this.bucket, Key: key }), signedAt, signedAt + PLAYBACK_LINK_MS);
  }

  /** `--media-base-url` + key, or undefined without one. */
  publicUrl(key: string): string | undefined {
    const base = this.options.mediaBaseUrl;
    return base && `${base}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** A small object's text (a master playlist the API serves as written); 404 for one not written yet. */
  async readText(key: string, root: string): Promise<string> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await got.Body!.transformToString('utf-8');
    } catch (err) {
      if (status(err) === 404) throw notFound(`The file ${JSON.stringify(key.slice(root.length))}`);
      throw this.failure(err, 'read', key);
    }
  }

  /**
   * A rendition playlist as the API serves it from a private bucket: each segment's URI its presigned GET
   * (storage/playlist-links.ts says why). A URI that would leave `root` (the video's media folder) is refused, so a
   * playlist can never hand out a link to another video's objects. A playlist not written yet: 404.
   */
  async signedPlaylist(key: string, root: string): Promise<string> {
    const text = await this.readText(key, root);
    return signPlaylist(text, async (uri) => {
      const target = keyBeside(key, uri, root);
      // Not the store's failure nor the client's: a playlist in the bucket was altered. A 500, logged.
      if (target === null) throw new Error(`The playlist ${key} names ${JSON.stringify(uri)}, outside its video.`);
      return this.getUrl(target);
    });
  }

  /**
   * At start: the bucket, made when missing, with the CORS the browser's direct PUTs and players' GETs need: PUT and
   * GET from `corsOrigins`, Content-Type allowed (the widget sends it), ETag exposed (without it a browser cannot
   * complete a multipart upload, #6), preflights cached an hour. Without `corsOrigins` a configuration the bucket
   * already has is the operator's and is kept; a bucket without one gets any origin. A store that takes no bucket
   * CORS (MinIO's community server has one global setting instead) is said in the answer, for the log.
   */
  async ensureBucket(): Promise<{ cors: 'set' | 'kept' | 'store-wide' }> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      if (status(err) !== 404) throw this.failure(err, 'reach the bucket of');
      try {
        // AWS wants the region named for a bucket outside us-east-1; other stores take the endpoint's own.
        const elsewhere = !this.options.endpoint && this.options.region !== 'us-east-1';
        await this.client.send(
          new CreateBucketCommand({
            Bucket: this.bucket,
            ...(elsewhere ? { CreateBucketConfiguration: { LocationConstraint: this.options.region as never } } : {}),
          }),
        );
      } catch (err) {
        if (name(err) !== 'BucketAlreadyOwnedByYou') throw this.failure(err, 'create the bucket of');
      }
    }
    if (!this.options.corsOrigins) {
      try {
        await this.client.send(new GetBucketCorsCommand({ Bucket: this.bucket }));
        return { cors: 'kept' };
      } catch (err) {
        if (name(err) !== 'NoSuchCORSConfiguration' && !unsupported(err))
          throw this.failure(err, "read the bucket's CORS");
      }
    }
    try {
      await this.client.send(
        new PutBucketCorsCommand({
          Bucket: this.bucket,
          CORSConfiguration: {
            CORSRules: [
              {
                AllowedMethods: ['PUT', 'GET', 'HEAD'],
                AllowedOrigins: this.options.corsOrigins ?? ['*'],
                AllowedHeaders: ['content-type', 'range'],
                ExposeHeaders: ['ETag', 'Content-Length', 'Content-Range'],
                MaxAgeSeconds: 3600,
              },
            ],
          },
        }),
      );
      return { cors: 'set' };
    } catch (err) {
      if (unsupported(err)) return { cors: 'store-wide' };
      throw this.failure(err, 'set the CORS of the bucket of');
    }
  }

  /**
   * /readyz of a process on the store: the bucket answers HeadBucket. Undefined when it does, else why not in words an
   * operator may read on the probe's answer (no address: the log has those).
   */
  async unreachable(): Promise<string | undefined> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return undefined;
    } catch (err) {
      if (network(err)) return `the object store did not answer (${network(err)})`;
      if (status(err) === 404) return 'the bucket does not exist';
      if (status(err) === 403) return "the object store refused the service's credentials";
      return `the object store answered ${status(err) ? `HTTP ${status(err)}` : name(err)}`;
    }
  }

  private async presign(
    command: PutObjectCommand | UploadPartCommand | GetObjectCommand,
    signedAt: number,
    expiresAt: number,
    client = this.client,
  ) {
    try {
      // getSignedUrl's generic signature takes one command type at a time: each of the three is one.
      return await getSignedUrl(client, command as GetObjectCommand, {
        signingDate: new Date(signedAt),
        expiresIn: Math.max(1, Math.round((expiresAt - signedAt) / 1000)),
      });
    } catch (err) {
      // Presigning reads no network, but it resolves credentials (the SDK's chain may find none).
      throw this.failure(err, 'sign a link to', command.input.Key);
    }
  }

  /**
   * The one sentence for a store that failed: which store, what the service was doing, and the store's error code
   * (or the network's), never the SDK's message (which can carry the raw XML answer) nor a credential.
   */
  failure(err: unknown, doing: string, key?: string): ServiceError {
    if (err instanceof ServiceError) return err;
    const code = name(err);
    const why =
      code === 'NoSuchBucket'
        ? `the bucket ${JSON.stringify(this.bucket)} does not exist`
        : ['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'Forbidden'].includes(code) ||
            status(err) === 403
          ? `it refused the service's credentials (${code})`
          : network(err)
            ? `it did not answer (${network(err)})`
            : `it answered ${code}${status(err) ? ` (HTTP ${status(err)})` : ''}`;
    // The whole sentence for the log and the operator; a client reads neither the store's address nor its bucket.
    return new InternalDetailError(
      'storage_unavailable',
      `The object store could not ${doing} ${describeStore(this.options, key)}: ${why}. Try again later.`,
      'The object store the service keeps media in failed to answer; try again later.',
    );
  }
}

/** The store has no such multipart upload: AWS says NoSuchUpload, Ceph Pacific NoSuchKey (a missing bucket is not that). */
const noUpload = (err: unknown) => status(err) === 404 && name(err) !== 'NoSuchBucket';

/** #6 of an upload the store no longer has: aborted (by #7, the sweeper, a lifecycle rule) or completed. */
const uploadGone = () =>
  new ServiceError(
    'session_closed',
    'The store no longer has the parts of this multipart session (it was aborted or completed); begin a new one.',
  );

/** #6's comparison: an ETag without its quotes, lowercase (the spec's example sends it quoted). */
export const bare = (etag: string | undefined) => (etag ?? '').replace(/^"|"$/g, '').toLowerCase();

const name = (err: unknown) =>
  err instanceof S3ServiceException ? err.name : err instanceof Error ? err.name : 'UnknownError';
const status = (err: unknown) =>
  (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
/** A call the store does not implement (MinIO's community server and bucket CORS: minio/minio#20995). */
const unsupported = (err: unknown) => name(err) === 'NotImplemented' || status(err) === 501;

/** The network's reason when the store was not reached: ECONNREFUSED, ENOTFOUND, a timeout. */
function network(err: unknown): string | undefined {
  const e = err as { code?: string; name?: string; cause?: { code?: string } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  if (code && /^E[A-Z_]+$/.test(code)) return code;
  if (e?.name === 'TimeoutError' || e?.name === 'RequestTimeout') return 'timed out';
  return undefined;
}
