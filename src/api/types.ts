/**
 * Wire types of the video service, derived from its one contract (./contract.ts). Type-only: importing these
 * brings no schema code into a bundle. Limits the element checks at run time are in ./limits.ts.
 */
import type { Static } from 'typebox';
import type * as C from './contract.js';

export type Environment = (typeof C.ENVIRONMENTS)[number];
export type VideoStatus = (typeof C.VIDEO_STATUSES)[number];
export type ErrorCode = C.ErrorCode;
/** Response of #1 POST /videos. */
export type VideoObject = Static<typeof C.Video>;
export type VideoPlayback = VideoObject['playback'];
/** Response of #8 GET /videos/{id}. */
export type VideoDetails = Static<typeof C.VideoDetails>;
export type MediaInfo = Static<typeof C.MediaInfo>;
export type MediaTrack = MediaInfo['track'][number];
export type CreateVideoRequest = Static<typeof C.CreateVideoRequest>;
export type ImportRequest = Static<typeof C.ImportRequest>;
export type ImportProgress = NonNullable<VideoDetails['import']>;
/** Response of #2 and #4. */
export type UploadUrlResponse = Static<typeof C.UploadUrl>;
/** Response of #3. */
export type MultipartSession = Static<typeof C.MultipartSession>;
/** Body of #4. */
export type ChunkUrlRequest = Static<typeof C.ChunkUrlRequest>;
export type ChunkDetail = Static<typeof C.ChunkDetail>;
/** Body of #6. */
export type CompleteRequest = Static<typeof C.CompleteRequest>;
/** Response of #6. */
export type CompleteResponse = Static<typeof C.CompleteResponse>;
/** Body of #7. */
export type AbortRequest = Static<typeof C.AbortRequest>;
/** Response of #7. */
export type AbortResponse = Static<typeof C.Success>;
export type TokenRequest = Static<typeof C.TokenRequest>;
export type Token = Static<typeof C.Token>;
export type LiveStream = Static<typeof C.LiveStream>;
export type TemporaryRecording = Static<typeof C.TemporaryRecording>;
export type ExportEntry = Static<typeof C.ExportEntry>;
/** Body of #10. */
export type ConversionRequest = Static<typeof C.ConversionRequest>;
export type Webhook = Static<typeof C.Webhook>;
export type CreateWebhookRequest = Static<typeof C.CreateWebhookRequest>;
export type UsageReport = Static<typeof C.Usage>;
export type ApiErrorBody = C.ApiErrorBody;
