import type { Body, Uppy, UppyFile } from '@uppy/core';
import type { VideoServiceClient } from '../api/client.js';
import { VideoServiceError } from '../api/errors.js';
import type { Strings } from '../locale/en.js';
import type { VideoMeta } from './aws-s3-options.js';
import type { ChunkLedger } from './ledger.js';

/** Continuing uploads across reloads and crashed tabs, from the ledger. */
type File = UppyFile<VideoMeta, Body>;

/**
 * Before files upload (a Uppy preprocessor, so before the uploader cuts chunks): when the ledger has an
 * unfinished upload of this very file (a reload, a crash, a re-selected file), the file takes over its
 * video, session and chunk plan, so the upload continues where it stopped.
 */
export async function adoptInterruptedUploads(
  uppy: Uppy<VideoMeta, Body>,
  ids: string[],
  ledger: ChunkLedger,
  baseUrl: string,
  fingerprintOf: (file: File) => Promise<string>,
): Promise<void> {
  await Promise.all(
    ids.map(async (id) => {
      const file = uppy.getFile(id);
      if (!(file?.data instanceof Blob) || file.meta.uploadPlan?.method !== 'multipart' || file.meta.session) return;
      // A file that cannot be fingerprinted (the worker failed) has nothing to adopt; a preprocessor that
      // throws would fail the whole batch without an upload-error, so its own upload step reports it.
      const print = await fingerprintOf(file).catch(() => undefined);
      const entry = print && ledger.find(print, baseUrl);
      if (entry) uppy.setFileMeta(id, { videoId: entry.videoId, session: entry.session, uploadPlan: entry.plan });
    }),
  );
}

/**
 * Deals with uploads a closed tab left behind, once the element can reach the service: a session whose
 * chunks are all in is completed (#6 takes an expired key); an expired one with chunks missing is
 * aborted (#7) and its file, added again, restarts into the same video; any other waits for its file to
 * be added again. Each time, the person is told. Files Golden Retriever brought back are its own.
 */
export async function reconcileLedger(
  uppy: Uppy<VideoMeta, Body>,
  ledger: ChunkLedger,
  client: VideoServiceClient,
  locale: Strings,
): Promise<void> {
  // Files Golden Retriever recovered (their data may still be loading, or be asked for again).
  const recovered = Object.values((uppy.getState().recoveredState?.files ?? {}) as Record<string, File>);
  const inUppy = new Set([...uppy.getFiles(), ...recovered].map((f) => f.meta?.session?.key));
  for (const entry of ledger.all(client.baseUrl)) {
    if (inUppy.has(entry.session.key) || entry.discarded) continue;
    try {
      if (ledger.count(entry.session.key) >= entry.plan.chunks) {
        const chunks = ledger.parts(entry.session.key).map((p) => ({ chunkId: p.PartNumber, eTag: p.ETag }));
        await client.completeMultipart(entry.videoId, entry.session.key, chunks);
        ledger.forget(entry.session.key);
        uppy.info(locale.completedAfterInterruption(entry.name), 'info', 8000);
      } else if (entry.session.expiresAt <= Date.now()) {
        await client.abortMultipart(entry.session.key);
        ledger.discard(entry.session.key);
        uppy.info(locale.discardedExpired(entry.name), 'warning', 10_000);
      } else {
        uppy.info(locale.addAgain(entry.name), 'info', 10_000);
      }
    } catch (err) {
      // Completed or aborted elsewhere meanwhile: nothing left to do for it.
      if (err instanceof VideoServiceError && err.status === 409) ledger.forget(entry.session.key);
    }
  }
}
