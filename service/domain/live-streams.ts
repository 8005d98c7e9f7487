import type { LiveStream, TemporaryRecording, VideoDetails } from '../../src/api/types.js';
import { iso, type Clock } from '../clock.js';
import type { Db } from '../db.js';
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

  create(caller: Caller, name: string | null): LiveStream {
    const id = newId();
    this.db
      .prepare(
        `INSERT INTO live_streams (id, organization_id, environment, user_id, name, stream_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, caller.organizationId, caller.environment, caller.userId, name, newSecret('lv_', 18), this.clock.now());
    return this.object(this.find(caller, id), caller);
  }

  list(caller: Caller): LiveStream[] {
    const rows = this.db
      .prepare('SELECT * FROM live_streams WHERE organization_id = ? AND environment = ? ORDER BY created_at, id')
      .all(caller.organizationId, caller.environment) as StreamRow[];
    return rows.map((r) => this.object(r, caller));
  }

  /** A stream the caller may see; another organization's (or environment's), or for a clip token another stream, is a 404. */
  find(caller: Caller, id: string): StreamRow {
    const row = isId(id)
      ? (this.db.prepare('SELECT * FROM live_streams WHERE id = ?').get(id) as StreamRow | undefined)
      : undefined;
    return owned(
      caller,
      caller.scope === 'clip' && row?.id !== caller.liveStreamId ? undefined : row,
      `Live stream ${JSON.stringify(id)}`,
    );
  }

  get(caller: Caller, id: string): LiveStream {
    return this.object(this.find(caller, id), caller);
  }

  /**
   * POST /live_streams/{id}/stream-key: a new key, at once; the publish under way (with the old key) is cut, and
   * the old key is refused from now on (Ingest looks keys up at each publish). Every recording stays: a publisher
   * back with the new key within the merge window continues its recording.
   */
  async newKey(caller: Caller, id: string): Promise<LiveStream> {
    const stream = this.find(caller, id);
    this.db.prepare('UPDATE live_streams SET stream_key = ? WHERE id = ?').run(newSecret('lv_', 18), stream.id);
    await this.disconnect(stream.id);
    return this.get(caller, stream.id);
  }

  byKey(key: string): StreamRow | undefined {
    return this.db.prepare('SELECT * FROM live_streams WHERE stream_key = ?').get(key) as StreamRow | undefined;
  }

  /**
   * Decision: deleting a stream ends its publish and deletes its temporary recordings; converted videos stay.
   * The row goes first (no new publish can start with its key), then the publish, then the recordings.
   */
  async delete(caller: Caller, id: string): Promise<void> {
    const stream = this.find(caller, id);
    this.db.prepare('DELETE FROM live_streams WHERE id = ?').run(stream.id);
    await this.disconnect(stream.id);
    for (const r of this.recordings.list(stream)) await this.recordings.remove(r.id);
  }

  /** #11. Decision: the permanent videos converted from the stream, as #8 shows them, oldest first, whatever their status. */
  convertedVideos(caller: Caller, id: string): VideoDetails[] {
    return this.videos.convertedFrom(this.find(caller, id).id);
  }

  /** #9: the stream's temporary recordings, oldest first, each with its conversions. */
  async temporaryRecordings(caller: Caller, id: string): Promise<TemporaryRecording[]> {
    const stream = this.find(caller, id);
    return Promise.all(this.recordings.list(stream).map((r) => this.recordings.wire(r, stream, caller)));
  }

  /** Decision: only keys reach these routes today; should another scope ever get one, its key and url are masked. */
  private object(row: StreamRow, caller: Caller): LiveStream {
    const server = `${this.rtmpOrigin()}/live`;
    const key = shownKey(caller, row.stream_key);
    return {
      _id: row.id,
      name: row.name,
      stream_key: key,
      ingest: { server, url: `${server}/${key}` },
      status: this.recordings.isLive(row.id) ? 'live' : 'idle',
      creation_time: iso(row.created_at),
    };
  }
}
