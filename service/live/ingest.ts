import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../clock.js';
import type { LiveStreams } from '../domain/live-streams.js';
import { INGEST_NODE_LEASE_MS, type Recordings, type StoredSegment } from '../domain/recordings.js';
import type { FromWorker, ToWorker, WorkerOptions } from './rtmp-worker.js';
import { log } from '../log.js';
import { sibling } from '../modules.js';

/** Decisions (docs/service.md, docs/security.md): how the ingest holds against strangers (live/rtmp-worker.ts). */
export interface IngestLimits {
  maxConnections: number;
  /** A connection that sends nothing for this long is closed. */
  idleMs: number;
  /** A connection that has not finished the handshake and `connect` within this long is closed. */
  connectWithinMs: number;
  /** A connection that has not published within this long is closed. */
  publishWithinMs: number;
  /** Connections one address may hold before they publish. */
  unpublishedPerAddress: number;
  /** The longest wait before the ingest's process is restarted (the back-off doubles from 1 s up to it). */
  restartMaxMs: number;
  /** The data volume's reserve (--min-free-mb): a recorder ends its publish below it. */
  minFreeBytes?: number;
}

/**
 * An encoder needs one connection per stream, and holds it unpublished for a few round trips only: 8 at once from
 * one address leaves room for a studio behind one NAT starting its streams together. A handshake and `connect`
 * take two round trips: 5 s is slow satellite links many times over.
 */
export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  maxConnections: 512,
  idleMs: 30_000,
  connectWithinMs: 5_000,
  publishWithinMs: 10_000,
  unpublishedPerAddress: 8,
  restartMaxMs: 60_000,
};

/** The first wait before a restart; it doubles with each death that follows a short life. */
const FIRST_RESTART_MS = 1_000;

const WORKER = fileURLToPath(sibling('rtmp-worker', import.meta.url));

interface Publish {
  streamId: string;
  recordingId: string;
  seq: number;
  /** When the publish ended (the merge window counts from here), once it has. */
  endedAt?: number;
  /** Makes the storyboard's thumbnails as segments arrive. */
  storyboard: NodeJS.Timeout;
  /** On an S3 store: the part's segments going to the store as they close. */
  shipping?: { finish(): Promise<void> };
}

/** Where a recording's closed segments go besides --data: an S3 store (storage/s3-recordings.ts). */
export interface SegmentStore {
  /** `stored` is told each segment the store took: its place in the part, file name, seconds and bytes. */
  follow(
    recordingId: string,
    organizationId: string,
    seq: number,
    dir: string,
    stored: (segment: StoredSegment) => Promise<void>,
  ): { finish(): Promise<void> };
}

/** How often a live recording's storyboard gets the thumbnails of its new segments (one per 2 s segment). */
const STORYBOARD_EVERY_MS = 4_000;

/**
 * RTMP ingest: rtmp://HOST:PORT/live/{stream_key}, taken by node-media-server 4.x in a process of its own
 * (live/rtmp-worker.ts), which this class forks, restarts with back-off when it dies, and answers: a key no live
 * stream has is refused, and so is a second publisher on a live key; a known key starts (or, inside the merge
 * window, continues) a temporary recording at once. The merge window is the service's rule, on its clock
 * (domain/recordings.ts); node-media-server's own reconnect grace is off. When the process dies, its publishes
 * end there and then, and their publishers may come back.
 *
 * One or more ingest nodes may share a database (docs/scale.md, Roles): each names the parts it records with its
 * node id and keeps a heartbeat in the database; at its start it ends only what it left live before a restart and
 * what dead nodes left (Recordings.interrupted), never another running node's recordings.
 */
export class Ingest {
  origin = '';
  private worker: ChildProcess | undefined;
  private host = '127.0.0.1';
  private port = 0;
  private closing = false;
  /** The worker's messages being handled, one after another (handle). */
  private inbox: Promise<void> = Promise.resolve();
  /** By the worker's session id. */
  private readonly publishes = new Map<string, Publish>();
  private readonly disconnecting = new Map<string, () => void>();
  private closed: (() => void) | undefined;
  /** The wait before the next restart, and when the worker last started (a long life resets the wait). */
  private restartInMs = 0;
  private startedAt = 0;
  private restart: NodeJS.Timeout | undefined;
  /** This ingest node's id (Recordings.nodeId), once it listens, and the timer of its heartbeat. */
  private node: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly streams: LiveStreams,
    private readonly recordings: Recordings,
    private readonly clock: Clock,
    private readonly limits: IngestLimits = DEFAULT_INGEST_LIMITS,
    private readonly segments?: SegmentStore,
  ) {}

  async listen(host: string, port: number): Promise<string> {
    this.host = host;
    this.port = port;
    const node = (this.node = await this.recordings.nodeId());
    // Before the first publish is taken: what this node recorded before a restart has ended, and what dead nodes did.
    await this.recordings.interrupted(node);
    this.heartbeat = setInterval(
      () =>
        void this.recordings
          .heartbeat(node)
          .catch((err: unknown) => log.error({ err }, 'RTMP ingest: its heartbeat failed')),
      INGEST_NODE_LEASE_MS / 3,
    );
    await this.start();
    this.origin = `rtmp://${host}:${this.port}`;
    return this.origin;
  }

  /** Streams an encoder publishes to now (/metrics). */
  get publishing(): number {
    return [...this.publishes.values()].filter((p) => p.endedAt === undefined).length;
  }

  /** Ends the stream's publish, if any (the stream is being deleted); resolves once its recording is on disk. */
  async disconnect(streamId: string): Promise<void> {
    if (![...this.publishes.values()].some((p) => p.streamId === streamId && p.endedAt === undefined) || !this.worker)
      return;
    await new Promise<void>((resolve) => {
      // Two callers at once (two key rotations, say): both are answered.
      const before = this.disconnecting.get(streamId);
      this.disconnecting.set(streamId, () => (before?.(), resolve()));
      this.tell({ type: 'disconnect', streamId });
    });
  }

  /** Stops every recorder cleanly and ends their parts, so a restart inside the window continues them. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restart);
    clearInterval(this.heartbeat);
    const worker = this.worker;
    if (worker && worker.exitCode === null) {
      await new Promise<void>((resolve) => {
        this.closed = resolve;
        worker.once('exit', () => resolve());
        this.tell({ type: 'close' });
      });
    }
    await this.endAll();
    // Every part of this node has ended: no heartbeat is needed to tell it went.
    if (this.node) await this.recordings.leave(this.node).catch(() => {});
  }

  private start(): Promise<void> {
    const options: WorkerOptions = { host: this.host, port: this.port, ...this.limits };
    const worker = fork(WORKER, [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.worker = worker;
    this.startedAt = performance.now();
    return new Promise((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'listening') {
          this.port = message.port;
          resolve();
        } else if (message.type === 'listen-error') {
          reject(Object.assign(new Error(message.message), { code: message.code, port: this.port }));
        } else this.handle(message);
      });
      worker.once('exit', (code, signal) => {
        reject(new Error(`the RTMP ingest exited (${signal ?? code}) before it listened`));
        this.exited(worker, code, signal);
      });
    });
  }

  private exited(worker: ChildProcess, code: number | null, signal: string | null): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    void this.endAll();
    // Never listened (its port was taken): the service does not start, so there is nothing to restart.
    if (this.closing || !this.origin) return;
    // Back-off rather than giving up: a worker that cannot live is retried ever more slowly, never abandoned.
    const livedMs = performance.now() - this.startedAt;
    const next =
      livedMs > this.limits.restartMaxMs ? FIRST_RESTART_MS : Math.max(FIRST_RESTART_MS, this.restartInMs * 2);
    this.restartInMs = Math.min(this.limits.restartMaxMs, next);
    log.error(
      `RTMP ingest: its process exited (${signal ?? code}); restarting it in ${this.restartInMs / 1000} s. Publishers may reconnect.`,
    );
    this.restart = setTimeout(
      () =>
        void this.start().catch(
          (err: { code?: string; message: string }) => err.code && log.error(`RTMP ingest: ${err.message}`),
        ),
      this.restartInMs,
    );
  }

  /** The worker is gone: its publishes ended now, and whoever waits for one of them waits no more. */
  private async endAll(): Promise<void> {
    // After the messages the worker sent before it went (a publish being recorded, say).
    await this.inbox;
    const now = this.clock.now();
    for (const [sid, p] of this.publishes) {
      clearInterval(p.storyboard);
      this.publishes.delete(sid);
      // Its last segments in the store first: a part ended has every segment row (Recordings.storedPart).
      await p.shipping?.finish();
      await this.recordings
        .endPart(p.recordingId, p.seq, p.endedAt ?? now)
        .catch((err: unknown) => log.error({ err }, 'RTMP ingest: could not end a part'));
    }
    for (const resolve of this.disconnecting.values()) resolve();
    this.disconnecting.clear();
  }

  /**
   * The worker's messages, each handled after the one before (a publish's end never overtakes its beginning,
   * whose database statements take a moment).
   */
  private handle(message: FromWorker): void {
    this.inbox = this.inbox
      .then(() => this.receive(message))
      .catch((err: unknown) => log.error({ err }, `RTMP ingest: ${message.type}`));
  }

  private async receive(message: FromWorker): Promise<void> {
    if (message.type === 'publish') {
      const stream = message.app === 'live' ? await this.streams.byKey(message.key) : undefined;
      if (!stream) return this.tell({ type: 'refuse', sid: message.sid, why: 'no live stream has that key' });
      if ([...this.publishes.values()].some((p) => p.streamId === stream.id)) {
        return this.tell({ type: 'refuse', sid: message.sid, why: 'the stream already has a publisher' });
      }
      const { recordingId, seq, dir } = await this.recordings.beginPart(stream, this.clock.now(), this.node!);
      const storyboard = setInterval(() => {
        void this.recordings.storyboards.update(recordingId).catch(() => {});
        // Kept in the database: a process without the files cuts on the same timeline (Recordings.firstFrameAt).
        void this.recordings.noteFirstFrame(recordingId, seq).catch(() => {});
      }, STORYBOARD_EVERY_MS);
      const shipping = this.segments?.follow(recordingId, stream.organization_id, seq, dir, (segment) =>
        this.recordings.addSegment(recordingId, seq, segment),
      );
      this.publishes.set(message.sid, { streamId: stream.id, recordingId, seq, storyboard, shipping });
      this.tell({ type: 'accept', sid: message.sid, streamId: stream.id, dir });
    } else if (message.type === 'unpublished') {
      const publish = this.publishes.get(message.sid);
      if (publish) publish.endedAt ??= this.clock.now();
    } else if (message.type === 'finished') {
      const publish = this.publishes.get(message.sid);
      if (!publish) return;
      this.publishes.delete(message.sid);
      clearInterval(publish.storyboard);
      // On a store, the part is stopped once the store has all of it: a worker elsewhere may finish it a second later.
      await publish.shipping?.finish();
      await this.recordings.endPart(publish.recordingId, publish.seq, publish.endedAt ?? this.clock.now());
      void this.recordings.storyboards.update(publish.recordingId).catch(() => {});
    } else if (message.type === 'disconnected') {
      this.disconnecting.get(message.streamId)?.();
      this.disconnecting.delete(message.streamId);
    } else if (message.type === 'closed') {
      this.closed?.();
    }
  }

  private tell(message: ToWorker): void {
    if (this.worker?.connected) this.worker.send(message);
  }
}
