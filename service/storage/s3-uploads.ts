import type { ChunkDetail } from '../../src/api/types.js';
import type { DirectUploads, UploadTarget } from '../domain/uploads.js';
import { matchParts } from './parts.js';
import { MIN_PART_BYTES, type S3Store } from './s3.js';

/**
 * Uploads on an S3 store (issue 30, item 3): the browser PUTs the whole file (#2) or each chunk (#4) straight to the
 * store by presigned links, and the domain's rules (domain/uploads.ts) ask the store what it holds. The key of every
 * upload is its video's source (s3.ts, Keys). The domain's UploadStore stays the local one: with no byte on the
 * service's disk it has nothing to join or delete, and the organization's quota is counted in the database
 * (domain/usage.ts) as on disk.
 */
export class S3Uploads implements DirectUploads {
  constructor(private readonly s3: S3Store) {}

  private source = ({ organizationId, videoId }: UploadTarget) => this.s3.keys.source(organizationId, videoId);

  linkUrl(target: UploadTarget, signedAt: number, expiresAt: number): Promise<string> {
    return this.s3.putUrl(this.source(target), { signedAt, expiresAt });
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

  uploaded(target: UploadTarget): Promise<{ size: number } | null> {
    return this.s3.head(this.source(target));
  }

  async discard(target: UploadTarget): Promise<void> {
    await this.s3.deletePrefix(this.source(target));
  }
}
