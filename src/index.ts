/** The library: importing it registers <video-uploader>. */
export { VideoUploader } from './video-uploader.js';
export { VideoServiceClient } from './api/client.js';
export { VideoServiceError } from './api/errors.js';
export { TokenCache, tokenFromUrl, type TokenProvider, type TokenResult } from './api/token.js';
export type * from './api/types.js';
export type { UploadFileInfo, VideoUploaderEventDetails, VideoUploaderEventName } from './events.js';
export { planUpload, type UploadPlan } from './upload/plan.js';
export { parseSize, OptionError } from './options.js';
