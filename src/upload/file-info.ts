import type { Body, UppyFile } from '@uppy/core';
import type { UploadFileInfo } from '../events.js';
import type { VideoMeta } from './aws-s3-options.js';

/** An Uppy file as the element's events describe it. */
export const fileInfo = (file: UppyFile<VideoMeta, Body>): UploadFileInfo => ({
  id: file.id,
  name: file.name ?? '',
  size: file.size ?? 0,
  type: file.type,
  data: file.data instanceof Blob ? file.data : undefined,
});
