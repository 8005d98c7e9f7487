/**
 * The peers' page for bench/link.bench.ts, built from bench/peers/node_modules (the packages as published):
 * `peer('uppy6', s3Endpoint)` uploads the picked file with @uppy/core 6 and @uppy/aws-s3 6 to s3rver, multipart
 * (its default for files over 100 MB; set so that a smaller quick-run file is multipart too), everything else
 * its defaults; `peer('upchunk', uploadsUrl)` with @mux/upchunk's defaults. Resolves with milliseconds.
 */
import { createUpload } from '@mux/upchunk';
import AwsS3 from '@uppy/aws-s3';
import Uppy from '@uppy/core';

async function uppy6(endpoint: string, file: File): Promise<void> {
  const uppy = new Uppy();
  uppy.use(AwsS3, {
    s3Endpoint: endpoint,
    region: 'us-east-1',
    shouldUseMultipart: true,
    // s3rver's own key pair; Uppy signs each request in the page (SigV4).
    getCredentials: () => ({
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', sessionToken: '' },
      region: 'us-east-1',
    }),
  });
  uppy.addFile({ name: file.name, type: file.type, data: file });
  const result = await uppy.upload();
  if (!result || result.failed?.length) throw new Error(`Uppy 6: ${String(result?.failed?.[0]?.error)}`);
  uppy.destroy();
}

async function upchunk(uploads: string, file: File): Promise<void> {
  const { url } = await (await fetch(uploads, { method: 'POST' })).json();
  await new Promise<void>((resolve, reject) => {
    const upload = createUpload({ endpoint: url, file });
    upload.on('success', () => resolve());
    upload.on('error', (e) => reject(new Error(`UpChunk: ${JSON.stringify(e.detail)}`)));
  });
}

(window as any).peer = async (name: string, endpoint: string): Promise<number> => {
  const picked = document.querySelector<HTMLInputElement>('#source')!.files![0]!;
  const file = new File([picked], `bench-${Math.random()}.mp4`, { type: 'video/mp4' });
  const start = performance.now();
  await (name === 'uppy6' ? uppy6 : upchunk)(endpoint, file);
  return performance.now() - start;
};
(window as any).benchReady = true;
