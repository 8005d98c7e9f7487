import type Uppy from '@uppy/core';
import type { Body, UppyFile } from '@uppy/core';
import { isAbort, VideoServiceError } from '../api/errors.js';
import type { Emit } from '../events.js';
import type { Strings } from '../locale/en.js';
import type { VideoMeta } from './aws-s3-options.js';
import { fileInfo } from './file-info.js';
import type { ChunkLedger } from './ledger.js';

type File = UppyFile<VideoMeta, Body>;

/**
 * Uppy's events, translated: into the element's events, into the chunk ledger, and into what the person is
 * told. Registered before any upload starts, so they run before @uppy/aws-s3's own handlers abort a session: with
 * the plugins (plugins.ts), before @uppy/aws-s3 is installed, as nothing is added to the Dashboard until then.
 */
export function translateEvents(
  uppy: Uppy<VideoMeta, Body>,
  deps: {
    emit: Emit;
    strings: () => Strings;
    ledger: ChunkLedger;
    /** Files the person removed or cancelled: only their sessions are aborted (#7). */
    cancelled: Set<string>;
    onUploaded: (videoId: string, name: string) => void;
  },
): void {
  const { emit, strings, ledger, cancelled } = deps;
  uppy.on('file-removed', (file) => cancelled.add(file.id));
  uppy.on('cancel-all', () => uppy.getFiles().forEach((f) => cancelled.add(f.id)));
  // A single-link upload cannot resume (spec): say so when it is paused, alone or with the rest.
  const warnIfSingle = (files: File[]) => {
    for (const f of files) {
      if (f.progress.uploadStarted && !f.progress.uploadComplete && f.meta.uploadPlan?.method === 'single') {
        uppy.info(strings().singleRestarts(f.name ?? ''), 'warning', 6000);
      }
    }
  };
  uppy.on('upload-pause', (file, isPaused) => file && isPaused && warnIfSingle([uppy.getFile(file.id)]));
  uppy.on('pause-all', () => warnIfSingle(uppy.getFiles()));
  uppy.on('s3-multipart:part-uploaded', (file, part) => {
    // @uppy/aws-s3 5.x passes no upload id with this event; it keeps the one createMultipartUpload returned
    // (our session key) on the file as `s3Multipart.uploadId`, which UppyFile does not declare.
    const sessionKey = (uppy.getFile(file.id) as File & { s3Multipart?: { uploadId?: string } }).s3Multipart?.uploadId;
    if (sessionKey) ledger.record(sessionKey, part.PartNumber, part.ETag);
  });
  uppy.on('upload-progress', (file, progress) => {
    if (file)
      emit('upload-progress', {
        file: fileInfo(file),
        bytesSent: progress.bytesUploaded,
        bytesTotal: progress.bytesTotal ?? file.size ?? 0,
      });
  });
  uppy.on('upload-success', (file) => {
    const current = file && uppy.getFile(file.id);
    if (current?.meta.session?.key) ledger.forget(current.meta.session.key);
    const videoId = current?.meta.videoId;
    if (!file || !videoId) return;
    emit('upload-success', { file: fileInfo(file), videoId });
    deps.onUploaded(videoId, file.name ?? '');
  });
  uppy.on('upload-error', (file, error) => {
    if (!file || isAbort(error)) return;
    // The sentences of errors load with the first error (locale/errors.ts).
    void import('../locale/errors.js').then(({ describeError }) =>
      tellPerson(uppy, file, error, describeError(error, strings(), file.name ?? '')),
    );
    emit('upload-error', {
      file: fileInfo(file),
      error,
      retryable: !(error instanceof VideoServiceError) || error.retryable,
    });
  });
}

/**
 * Uppy 5.x's own upload-error handler (registered first, in its constructor) shows the error's technical
 * message twice: as the file's `error` (the Dashboard's file card) and as the details of its "Failed to
 * upload" notice (the newest `info` entry). Both are replaced by the sentence in the person's language;
 * the event keeps the error as it was.
 */
function tellPerson(uppy: Uppy<VideoMeta, Body>, file: File, error: Error, sentence: string): void {
  if (uppy.getFile(file.id)) uppy.setFileState(file.id, { error: sentence });
  const info = uppy.getState().info;
  uppy.setState({
    info: info.map((i) =>
      typeof i.details === 'string' && i.details.startsWith(error.message) ? { ...i, details: sentence } : i,
    ),
  });
}
