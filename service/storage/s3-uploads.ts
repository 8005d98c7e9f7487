import type { ChunkDetail } from '../../src/api/types.js';
import type { DirectUploads, UploadTarget } from '../domain/uploads.js';
import { matchParts } from './parts.js';
import { MIN_PART_BYTES, type S3Store } from './s3.js';

/**
 * Uploads on an S3 store (issue 30, item 3): the browser PUTs the whole file (#2) or each chunk (#4) straight to the
 * store by presigned links, and the domain's rules (domain/uploads.ts) ask the store what it holds. A multipart
 * upload's key is its video's source; a #2 link's is its own (s3.ts, Keys: incoming/…), copied to the source when
 * the upload is taken in, so that the link used again later writes nothing anyone reads. The domain's UploadStore
 * stays the local one: with no byte on the service's disk it has nothing to join or delete, and the organization's
 * quota is counted in the database (domain/usage.ts) as on disk.
 */
export class S3Uploads implements DirectUploads {
  constructor(private readonly s3: S3Store) {}

  private source = ({ organizationId, videoId }: UploadTarget) => this.s3.keys.source(organizationId, videoId);
  private incoming = ({ organizationId, videoId }: UploadTarget, linkId: string) =>
    this.s3.keys.incoming(organizationId, videoId, linkId);

  linkUrl(target: UploadTarget, linkId: string, signedAt: number, expiresAt: number): Promise<string> {
    return this.s3.putUrl(this.incoming(target, linkId), { signedAt, expiresAt });
  }

  begin(target: UploadTarget): Promise<string> {
    return this.s3.createMultipart(this.source(target));
  }

  chunkUrl(
    target: UploadTarget,
    uploadId: string,
    chunkId: number,
    signedAt: number,
    expiresAt: number,
  ): Promise<string> {
    return this.s3.partUrl(this.source(target), uploadId, chunkId, { signedAt, expiresAt });
  }

  // #6: ListParts (every page), the spec's checks (storage/parts.ts), then CompleteMultipartUpload with those parts.
  async complete(
    target: UploadTarget,
    uploadId: string,
    chunks: ChunkDetail[],
    admit: (size: number) => void,
  ): Promise<{ size: number }> {
    const key = this.source(target);
    const { parts, size } = matchParts(chunks, await this.s3.listParts(key, uploadId), MIN_PART_BYTES);
    admit(size);
    await this.s3.completeMultipart(key, uploadId, parts);
    return { size };
  }

  abort(target: UploadTarget, uploadId: string): Promise<void> {
    return this.s3.abortMultipart(this.source(target), uploadId);
  }

  uploaded(target: UploadTarget, linkId: string): Promise<{ size: number; etag: string } | null> {
    return this.s3.head(this.incoming(target, linkId));
  }

  // The copy names the version seen (CopySourceIfMatch), which Ceph Pacific ignores (measured): the link's object
  // still being that version once copied says that the copy was of it, on any store.
  async take(target: UploadTarget, linkId: string, etag: string): Promise<boolean> {
    const link = this.incoming(target, linkId);
    if (!(await this.s3.copy(link, this.source(target), etag))) return false;
    return (await this.s3.head(link))?.etag === etag;
  }

  discard(target: UploadTarget, linkId: string): Promise<void> {
    return this.s3.deleteObject(this.incoming(target, linkId));
  }

  // One listing of incoming/ (normally empty, or a few uploads not taken in yet), then the database asked about
  // its links 500 at a time.
  async sweepIncoming(waiting: (linkIds: string[]) => Promise<Set<string>>): Promise<void> {
    const keys = await this.s3.keysUnder(this.s3.keys.incomingRoot());
    const linkOf = (key: string) => key.slice(key.lastIndexOf('/') + 1);
    for (let i = 0; i < keys.length; i += 500) {
      const batch = keys.slice(i, i + 500);
      const open = await waiting(batch.map(linkOf));
      for (const key of batch) if (!open.has(linkOf(key))) await this.s3.deleteObject(key);
    }
  }
}
