import { Type } from 'typebox';
import * as C from '../../src/api/contract.js';
import { HOUR_MS } from '../../src/api/limits.js';
import type { Accounts } from '../domain/accounts.js';
import { COPIES_OF_A_CUT, type Exports } from '../domain/exports.js';
import type { LiveStreams } from '../domain/live-streams.js';
import { RECORDING_RETENTION_MS, type Recordings } from '../domain/recordings.js';
import { fileAnswer, op, params, ref, type Api } from '../http/api.js';
import type { RecordingMedia } from '../processing/recording-media.js';
import { S3RecordingMedia } from '../storage/s3-recordings.js';
import { sendFile } from '../http/static.js';
import { COLUMNS, PER_SHEET, THUMB_HEIGHT, THUMB_WIDTH } from '../live/storyboard.js';
import { spoken } from '../processing/ffmpeg.js';
import type { Settings } from '../settings.js';

/** #9–#11: keys, and clip tokens for their own stream (LiveStreams.find). */
const CLIP = ['key', 'clip'] as const;

/** Live streams (decision), #9 temporary recordings, #10 conversion, #11 converted videos, and recording playback. */
export function liveRoutes(
  app: Api,
  deps: {
    accounts: Accounts;
    streams: LiveStreams;
    recordings: Recordings;
    exports: Exports;
    /** The running service's limits, which the descriptions state. */
    settings: Settings;
    /** On an S3 store, a segment this process does not hold is in the store (storage/s3-recordings.ts). */
    recordingMedia?: RecordingMedia;
  },
): void {
  const { accounts, streams, recordings, exports } = deps;
  const { conversionLimits, limits } = deps.settings;
  /** The merge window as this service runs it (`--merge-window-seconds`). */
  const mergeWindow = `the merge window (${spoken(deps.settings.mergeWindowMs / 1000)}, \`--merge-window-seconds\`)`;

  app.post(
    '/live_streams',
    op(accounts, {
      operationId: 'createLiveStream',
      summary: 'Create a live stream',
      description:
        'Decision. Optional body `{name}`. Publish to `ingest.url` (RTMP); a publish with an unknown key is refused.',
      body: C.CreateLiveStreamRequest,
      ok: ref(C.LiveStream),
    }),
    (req) => streams.create(req.caller, req.body.name ?? null),
  );

  app.get(
    '/live_streams',
    op(accounts, {
      operationId: 'listLiveStreams',
      summary: 'List live streams',
      description: 'Oldest first.',
      ok: Type.Array(ref(C.LiveStream)),
    }),
    (req) => streams.list(req.caller),
  );

  app.get(
    '/live_streams/:id',
    op(accounts, {
      operationId: 'getLiveStream',
      summary: 'Get a live stream',
      params: params('id'),
      ok: ref(C.LiveStream),
      errors: ['not_found'],
    }),
    (req) => streams.get(req.caller, req.params.id),
  );

  app.delete(
    '/live_streams/:id',
    op(accounts, {
      operationId: 'deleteLiveStream',
      summary: 'Delete a live stream',
      description: 'Decision: ends its publish and deletes its temporary recordings; videos converted from it stay.',
      params: params('id'),
      ok: ref(C.Success),
      errors: ['not_found'],
    }),
    async (req) => (await streams.delete(req.caller, req.params.id), { success: true }),
  );

  app.post(
    '/live_streams/:id/stream-key',
    op(accounts, {
      operationId: 'rotateStreamKey',
      summary: 'Issue a new stream key',
      description:
        'Decision (keys only). The answer is the stream with its new key. The old key stops at once: a publish using it is ' +
        'cut and a publish with it is refused from now on. Every recording stays; a publisher back with the new key within ' +
        `${mergeWindow} continues its recording.`,
      what: "change a stream's key",
      params: params('id'),
      ok: ref(C.LiveStream),
      errors: ['not_found'],
    }),
    (req) => streams.newKey(req.caller, req.params.id),
  );

  app.get(
    '/live_streams/:id/temporary_recordings',
    op(accounts, {
      operationId: 'listTemporaryRecordings',
      summary: '#9 List temporary recordings',
      description:
        `Oldest first, listed as soon as a publish begins. A publisher back within ${mergeWindow} continues the same ` +
        'recording; a recording is complete once the stream has stayed stopped for more than the window. ' +
        `Deleted ${RECORDING_RETENTION_MS / (24 * HOUR_MS)} days after its end. ` +
        'Decision: `stream_key` is whole for a key only; a clip token gets it masked (`lv_…` and its last four characters).',
      scopes: CLIP,
      what: "read another stream's recordings",
      params: params('id'),
      ok: Type.Array(ref(C.TemporaryRecording)),
      errors: ['not_found'],
    }),
    (req) => streams.temporaryRecordings(req.caller, req.params.id),
  );

  app.post(
    '/live_streams/:id/temporary_recordings/:recordingId',
    op(accounts, {
      operationId: 'convertTemporaryRecording',
      summary: '#10 Convert a recording (or a part) into a permanent video',
      description:
        'Cut frame-accurately, then the normal processing; `video-ready` when done. Several conversions may run at once. The answer ' +
        'is the export entry: PROCESSING, bytes 0, download_url null, no video_id. Decisions (issue 28): the same `from` and ' +
        '`duration` of the same recording, while its conversion is PROCESSING or EXPORTED, answer that entry as it stands (no ' +
        `new video). At most ${conversionLimits.perStream} conversions under way per live stream ` +
        `(\`--max-conversions-per-stream\`) and ${conversionLimits.perToken} per token ` +
        '(`--max-conversions-per-token`): past either, 429 `limit_reached` with `Retry-After`. A part longer than the longest ' +
        `video the service takes (${spoken(limits.maxDurationSeconds)}, \`--max-duration-seconds\`) is 400. One ` +
        `whose estimated size (the recording's bytes per second × its length × ${COPIES_OF_A_CUT}: the cut, its MP4 and ` +
        'its HLS) would leave less than the reserve free (`--min-free-mb`) is ' +
        '507 `insufficient_storage`. The cut runs at a low CPU priority, within the time processing has for its length ' +
        '(`--processing-base-seconds` + `--processing-seconds-per-media-second` × duration); past it the video fails, saying so.',
      scopes: CLIP,
      what: "convert another stream's recordings",
      params: params('id', 'recordingId'),
      body: C.ConversionRequest,
      ok: ref(C.ExportEntry),
      errors: [
        'not_found',
        'recording_not_complete',
        'quota_exceeded',
        'storage_quota_exceeded',
        'limit_reached',
        'insufficient_storage',
      ],
    }),
    (req) => exports.convert(req.caller, req.params.id, req.params.recordingId, req.body),
  );

  app.get(
    '/live_streams/:id/recordings',
    op(accounts, {
      operationId: 'listConvertedVideos',
      summary: '#11 List permanent videos converted from the stream',
      description: 'Decision: #8 video objects, oldest first, whatever their status.',
      scopes: CLIP,
      what: "read another stream's videos",
      params: params('id'),
      ok: Type.Array(ref(C.VideoDetails)),
      errors: ['not_found'],
    }),
    (req) => streams.convertedVideos(req.caller, req.params.id),
  );

  // temporary_playback and download_url of a recording: like video playback, no token (the ids are unguessable).
  app.get(
    '/recordings/:id/index.m3u8',
    op(accounts, {
      operationId: 'getRecordingPlaylist',
      summary: 'temporary_playback of a recording',
      scopes: 'public',
      params: params('id'),
      ok: fileAnswer('HLS playlist: EVENT while it can grow, VOD once complete', ['application/vnd.apple.mpegurl']),
      errors: ['not_found'],
    }),
    async (req, reply) => {
      return reply
        .type('application/vnd.apple.mpegurl')
        .header('cache-control', 'no-cache')
        .send(await recordings.playlist(req.params.id));
    },
  );

  app.get(
    '/recordings/:id/download.mp4',
    op(accounts, {
      operationId: 'downloadRecording',
      summary: 'download_url of a complete recording',
      description: 'Range, If-None-Match and If-Modified-Since are honoured.',
      scopes: 'public',
      params: params('id'),
      ok: fileAnswer('MP4 (206 for a range)', ['video/mp4']),
      errors: ['not_found'],
    }),
    async (req, reply) => {
      const file = await recordings.download(req.params.id);
      // On a store the MP4 is there (storage/s3-recordings.ts, keep).
      const media = deps.recordingMedia;
      const stored = media instanceof S3RecordingMedia ? await media.elsewhere(file) : undefined;
      if (stored) return reply.header('cache-control', 'public, max-age=60').redirect(stored, 302);
      return sendFile(req, reply, file, 'public, max-age=60');
    },
  );

  app.get(
    '/recordings/:id/storyboard.vtt',
    op(accounts, {
      operationId: 'getRecordingStoryboard',
      summary: 'Storyboard of a recording: thumbnails along its timeline',
      description:
        'WebVTT: one cue per segment of temporary_playback (its span on the playlist timeline), whose text is a sprite ' +
        "sheet relative to this address with the thumbnail's place, " +
        `\`storyboard/0.jpg?n=37#xywh=${THUMB_WIDTH},${3 * THUMB_HEIGHT},${THUMB_WIDTH},${THUMB_HEIGHT}\` ` +
        `(${THUMB_WIDTH} × ${THUMB_HEIGHT}, ${COLUMNS} to a row, ${PER_SHEET} to a sheet). Made as segments arrive; ` +
        "a sheet's `n` changes when it grows.",
      scopes: 'public',
      params: params('id'),
      ok: fileAnswer('WebVTT', ['text/vtt']),
      errors: ['not_found'],
    }),
    async (req, reply) =>
      reply
        .type('text/vtt; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(await recordings.storyboard(req.params.id)),
  );

  app.get(
    '/recordings/:id/storyboard/:sheet',
    op(accounts, {
      operationId: 'getRecordingStoryboardSheet',
      summary: 'A sprite sheet of the storyboard',
      description: '`N.jpg`, as the storyboard names it.',
      scopes: 'public',
      params: params('id', 'sheet'),
      ok: fileAnswer('JPEG', ['image/jpeg']),
      errors: ['not_found'],
    }),
    async (req, reply) =>
      sendFile(req, reply, await recordings.storyboardSheet(req.params.id, req.params.sheet), 'public, max-age=3600'),
  );

  app.get(
    '/recordings/:id/:part/:segment',
    op(accounts, {
      operationId: 'getRecordingSegment',
      summary: 'A segment of a recording',
      description: 'The names temporary_playback lists: `part<N>/seg<N>.ts`.',
      scopes: 'public',
      params: params('id', 'part', 'segment'),
      ok: fileAnswer('MPEG-TS segment', ['video/mp2t']),
      errors: ['not_found'],
    }),
    async (req, reply) => {
      const file = await recordings.segment(req.params.id, req.params.part, req.params.segment);
      const media = deps.recordingMedia;
      const stored = media instanceof S3RecordingMedia ? await media.elsewhere(file) : undefined;
      if (stored) return reply.header('cache-control', 'public, max-age=3600').redirect(stored, 302);
      return sendFile(req, reply, file, 'public, max-age=3600');
    },
  );
}
