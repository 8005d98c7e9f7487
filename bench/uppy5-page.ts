/**
 * bench/link.bench.ts's page for @uppy/aws-s3 5.x, the peer that sends a file's parts in parallel: @uppy/core and
 * @uppy/aws-s3 as this package depends on them (the root node_modules; bench/peers holds Uppy 6), multipart to the
 * service. 5.x cannot run without a backend of its own (Companion, or these callbacks), so it gets the fewest that
 * speak the service's protocol: #1 and #3 in createMultipartUpload, #4 in signPart (a queue turn per chunk, as
 * Uppy is built to take it), #6, #7, and no parts to list. Everything else is Uppy's default: six requests at once
 * (`limit`), parts of max(5 MiB, size / 10000), its own XHR PUTs and retries. Multipart whatever the size, as the
 * Uppy 6 peer: its default would send a 64 MiB file (BENCH_QUICK) by one link.
 *
 * `uppy5(api, token)` uploads the picked file; resolves with milliseconds.
 */
import AwsS3, { type AwsS3Part } from '@uppy/aws-s3';
import Uppy from '@uppy/core';

async function upload(api: string, token: string, file: File): Promise<void> {
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(api + path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status}`);
    return res.json();
  };
  const uppy = new Uppy();
  uppy.use(AwsS3, {
    shouldUseMultipart: true,
    // Uppy's `key` is the video's _id and its `uploadId` the session key of #3, as the widget has them.
    async createMultipartUpload() {
      const video = await call('/videos');
      const session = await call(`/videos/${video._id}/multipart-upload/begin`);
      return { key: video._id, uploadId: session.key };
    },
    async signPart(_file, { key, uploadId, partNumber }) {
      const { url } = await call(`/videos/${key}/multipart-upload/get-chunk-upload-url`, {
        key: uploadId,
        chunkId: partNumber,
      });
      return { method: 'PUT', url };
    },
    listParts: () => [],
    async completeMultipartUpload(_file, { key, uploadId, parts }) {
      const chunks = parts.map((part: AwsS3Part) => ({ chunkId: part.PartNumber, eTag: part.ETag }));
      const { url } = await call(`/videos/${key}/multipart-upload/complete`, { key: uploadId, chunks });
      return { location: url };
    },
    async abortMultipartUpload(_file, { uploadId }) {
      await call('/videos/multipart-upload/abort', { key: uploadId });
    },
  });
  uppy.addFile({ name: file.name, type: file.type, data: file });
  const result = await uppy.upload();
  if (!result || result.failed?.length) throw new Error(`Uppy 5: ${String(result?.failed?.[0]?.error)}`);
  uppy.destroy();
}

(window as any).uppy5 = async (api: string, token: string): Promise<number> => {
  const picked = document.querySelector<HTMLInputElement>('#source')!.files![0]!;
  const file = new File([picked], `bench-${Math.random()}.mp4`, { type: 'video/mp4' });
  const start = performance.now();
  await upload(api, token, file);
  return performance.now() - start;
};
(window as any).benchReady = true;
