import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Accounts } from '../domain/accounts.js';
import type { Exports } from '../domain/exports.js';
import type { LiveStreams, Recordings } from '../domain/live.js';
import { badField, notFound } from '../http/errors.js';
import { readJson, show, type Request, type Router } from '../http/router.js';
import { sendFile } from '../http/static.js';
import { isId } from '../ids.js';
import type { Ingest } from '../live/ingest.js';
import type { Files } from '../storage/files.js';
import { authed as authedBy } from './authed.js';

const MAX_NAME = 256;
/** #9–#11: keys, and clip tokens for their own stream (LiveStreams.find). */
const CLIP = ['key', 'clip'] as const;
/** A recording's part folder and segment file names (the OpenAPI document shows the same patterns). */
export const RECORDING_PART = /^part\d{1,6}$/;
export const RECORDING_SEGMENT = /^seg\d{5,9}\.ts$/;

/** Live streams (decision), #9 temporary recordings, #10 conversion, #11 converted videos, and recording playback. */
export function liveRoutes(
  router: Router,
  deps: { accounts: Accounts; streams: LiveStreams; recordings: Recordings; exports: Exports; ingest: Ingest; files: Files },
): void {
  const { streams, recordings, exports } = deps;
  const authed = authedBy(deps.accounts);

  // Decision: create a live stream; optional body {name}.
  router.add('POST', '/live_streams', authed(async (caller, req) => {
    const { name } = await readJson(req);
    if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME)) {
      throw badField('name', `name must be a string of at most ${MAX_NAME} characters; got ${show(name)}.`);
    }
    return streams.create(caller, name ?? null);
  }));
  router.add('GET', '/live_streams', authed((caller) => streams.list(caller)));
  router.add('GET', '/live_streams/{id}', authed((caller, req) => streams.object(streams.find(caller, req.params.id!))));
  // Decision: deleting a stream ends its publish and deletes its temporary recordings; converted videos stay.
  router.add('DELETE', '/live_streams/{id}', authed(async (caller, req) => {
    const stream = streams.find(caller, req.params.id!);
    streams.delete(stream.id);
    await deps.ingest.disconnect(stream.id);
    for (const r of recordings.list(stream)) await recordings.remove(r.id);
    return { success: true };
  }));

  // #9 List temporary recordings, oldest first.
  router.add('GET', '/live_streams/{id}/temporary_recordings', authed(async (caller, req) => {
    const stream = streams.find(caller, req.params.id!);
    return Promise.all(recordings.list(stream).map((r) => recordings.wire(r, stream, exports.entries(r.id))));
  }, CLIP));

  // #10 Convert a recording, whole ({} or no body) or a part ({from, duration}).
  router.add('POST', '/live_streams/{id}/temporary_recordings/{recordingId}', authed(async (caller, req) => {
    const stream = streams.find(caller, req.params.id!);
    const recording = recordings.find(stream, req.params.recordingId!);
    return exports.convert(caller, stream, recording, await readJson(req));
  }, CLIP));

  // #11 Permanent videos converted from the stream.
  router.add('GET', '/live_streams/{id}/recordings', authed((caller, req) => exports.videosOf(streams.find(caller, req.params.id!)), CLIP));

  // temporary_playback and download_url of a recording: like video playback, no token (the ids are unguessable).
  const recording = (id: string) => {
    const row = isId(id) ? recordings.row(id) : undefined;
    if (!row) throw notFound(`Temporary recording ${JSON.stringify(id)}`);
    return row;
  };
  router.add('GET', '/recordings/{id}/index.m3u8', async (req: Request, res: ServerResponse) => {
    recording(req.params.id!);
    const body = await recordings.playlist(req.params.id!);
    res.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl', 'cache-control': 'no-cache' });
    res.end(body);
  });
  router.add('GET', '/recordings/{id}/download.mp4', async (req: Request, res: ServerResponse) => {
    const row = recording(req.params.id!);
    if (row.state !== 'complete') throw notFound(`The download of recording ${row.id} (it is not complete yet)`);
    await sendFile(req.raw, res, join(deps.files.recordingDir(row.id), 'recording.mp4'), { 'cache-control': 'public, max-age=60' });
  });
  router.add('GET', '/recordings/{id}/{part}/{segment}', async (req: Request, res: ServerResponse) => {
    const { id, part, segment } = req.params as { id: string; part: string; segment: string };
    recording(id);
    if (!RECORDING_PART.test(part) || !RECORDING_SEGMENT.test(segment)) throw notFound(`The file ${JSON.stringify(segment)}`);
    await sendFile(req.raw, res, join(deps.files.recordingDir(id), part, segment), { 'cache-control': 'public, max-age=3600' });
  });
}
