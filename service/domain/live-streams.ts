import type { LiveStream, TemporaryRecording, VideoDetails } from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import type { Db } from '../db/index.js';
import { isId, newId, newSecret } from '../ids.js';
import { owned, type Caller } from './accounts.js';
import type { Recordings } from './recordings.js';
import type { Videos } from './videos.js';

export interface StreamRow {
  id: string;
  organization_id: string;
  environment: string;
  user_id: string;
  name: string | null;
  stream_key: string;
  created_at: number;
}

/**
 * A stream's publish key as the caller may see it (decision, issue 28): whole for an organization's key; for any
 * other token (a clip token reads #9) masked, `lv_…` and its last four characters, enough to tell keys apart.
 */
export const shownKey = (caller: Caller, key: string): string =>
  caller.scope === 'key' ? key : `lv_…${key.slice(-4)}`;

export interface LiveStreamsOptions {
  db: Db;
  clock: Clock;
  rtmpOrigin: () => string;
  recordings: Recordings;
  videos: Videos;
  /** Ends the stream's publish, if one is on (live/ingest.ts, built after this module: called later). */
  disconnect: (streamId: string) => Promise<void>;
}

/** Live streams (decision: POST/GET/DELETE /live_streams; the spec shows none of their endpoints), and #11. */
export class LiveStreams {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly rtmpOrigin: () => string;
  private readonly recordings: Recordings;
  private readonly videos: Videos;
  private readonly disconnect: (streamId: string) => Promise<void>;

  constructor(options: LiveStreamsOptions) {
    ({
      db: this.db,
      clock: this.clock,
      rtmpOrigin: this.rtmpOrigin,
      recordings: this.recordings,
      videos: this.videos,
      disconnect: this.disconnect,
    } = options);
  }

  async create(caller: Caller, name: string | null): Promise<LiveStream> {
    const id = newId();
    await this.db
      .insertInto('live_streams')
      .values({
        id,
        organization_id: caller.organizationId,
        environment: caller.environment,
        user_id: caller.userId,
        name,
        stream_key: newSecret('lv_', 18),
        created_at: this.clock.now(),
      })
      .execute();
    return this.object(await this.find(caller, id), caller);
  }

  async list(caller: Caller): Promise<LiveStream[]> {
    const rows = await this.db
      .selectFrom('live_streams')
      .selectAll()
      .where('organization_id', '=', caller.organizationId)
      .where('environment', '=', caller.environment)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return Promise.all(rows.map((r) => this.object(r, caller)));
  }

  /** A stream the caller may see; another organization's (or environment's), or for a clip token another stream, is a 404. */
  async find(caller: Caller, id: string): Promise<StreamRow> {
    const row = isId(id)
      ? await this.db.selectFrom('live_streams').selectAll().where('id', '=', id).executeTakeFirst()
      : undefined;
    return owned(
      caller,
      caller.scope === 'clip' && row?.id !== caller.liveStreamId ? undefined : row,
      `Live stream ${JSON.stringify(id)}`,
    );
  }

  async get(caller: Caller, id: string): Promise<LiveStream> {
    return this.object(await this.find(caller, id), caller);
  }

  /**
   * POST /live_streams/{id}/stream-key: a new key, at once; the publish under way (with the old key) is cut, and
   * the old key is refused from now on (Ingest looks keys up at each publish). Every recording stays: a publisher
   * back with the new key within the merge window continues its recording.
   */
  async newKey(caller: Caller, id: string): Promise<LiveStream> {
    const stream = await this.find(caller, id);
    await this.db
      .updateTable('live_streams')
      .set({ stream_key: newSecret('lv_', 18) })
      .where('id', '=', stream.id)
      .execute();
    await this.disconnect(stream.id);
    return this.get(caller, stream.id);
  }

  byKey(key: string): Promise<StreamRow | undefined> {
    return this.db.selectFrom('live_streams').selectAll().where('stream_key', '=', key).executeTakeFirst();
  }

  /**
   * Decision: deleting a stream ends its publish and deletes its temporary recordings; converted videos stay.
   * The row goes first (no new publish can start with its key), then the publish, then the recordings.
   */
  async delete(caller: Caller, id: string): Promise<void> {
    const stream = await this.find(caller, id);
    await this.db.deleteFrom('live_streams').where('id', '=', stream.id).execute();
    await this.disconnect(stream.id);
    for (const r of await this.recordings.list(stream)) await this.recordings.remove(r.id);
  }

  /** #11. Decision: the permanent videos converted from the stream, as #8 shows them, oldest first, whatever their status. */
  async convertedVideos(caller: Caller, id: string): Promise<VideoDetails[]> {
    return this.videos.convertedFrom((await this.find(caller, id)).id);
  }

  /** #9: the stream's temporary recordings, oldest first, each with its conversions. */
  async temporaryRecordings(caller: Caller, id: string): Promise<TemporaryRecording[]> {
    const stream = await this.find(caller, id);
    return Promise.all((await this.recordings.list(stream)).map((r) => this.recordings.wire(r, stream, caller)));
  }

  /** Decision: only keys reach these routes today; should another scope ever get one, its key and url are masked. */
  private async object(row: StreamRow, caller: Caller): Promise<LiveStream> {
    const server = `${this.rtmpOrigin()}/live`;
    const key = shownKey(caller, row.stream_key);
    return {
      _id: row.id,
      name: row.name,
      stream_key: key,
      ingest: { server, url: `${server}/${key}` },
      status: (await this.recordings.isLive(row.id)) ? 'live' : 'idle',
      creation_time: iso(row.created_at),
    };
  }
}
