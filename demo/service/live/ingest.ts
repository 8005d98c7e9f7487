import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import Context, { type NmsSession } from 'node-media-server/src/core/context.js';
import logger from 'node-media-server/src/core/logger.js';
import NodeRtmpServer from 'node-media-server/src/server/rtmp_server.js';
import type { Clock } from '../clock.js';
import type { LiveStreams, Recordings } from '../domain/live.js';
import { copyable, Recorder } from './recorder.js';

interface Publish {
  streamId: string;
  session: NmsSession;
  /** Subscribed to the broadcast as node-media-server's own FLV recorder is, with no address (no events, no play count). */
  tap: { id: string; ip: ''; protocol: 'flv'; streamPath: string; sendBuffer: (data: Buffer) => void };
  recorder: Recorder;
  part?: { recordingId: string; seq: number };
}

/**
 * RTMP ingest: node-media-server 4.x takes publishes to rtmp://HOST:PORT/live/{stream_key}. A key no
 * live stream has is refused; a known key starts (or, inside the merge window, continues) a temporary
 * recording at once. node-media-server's own 30 s "grace" for reconnecting publishers is turned off:
 * the merge window is the service's rule, kept on the service clock (domain/live.ts).
 * node-media-server keeps its state in one module, so there is one ingest per process.
 */
export class Ingest {
  origin = '';
  private readonly nms = new NodeRtmpServer();
  private server: Server | undefined;
  /** By node-media-server session id. */
  private readonly publishing = new Map<string, Publish>();
  /** Events of one stream are handled in order (a publish that ends before its recorder started, say). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly streams: LiveStreams,
    private readonly recordings: Recordings,
    private readonly clock: Clock,
  ) {}

  async listen(host: string, port: number): Promise<string> {
    logger.level = process.env.NMS_LOG ?? 'error';
    Context.config = { bind: host };
    Context.eventEmitter.on('prePublish', this.prePublish);
    Context.eventEmitter.on('donePublish', this.donePublish);
    const server = createServer((socket) => this.nms.handleRequest(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.origin = `rtmp://${host}:${(server.address() as AddressInfo).port}`;
    return this.origin;
  }

  private isPublishing(streamId: string): boolean {
    return [...this.publishing.values()].some((p) => p.streamId === streamId);
  }

  /** Ends the stream's publish, if any (the stream is being deleted); resolves once its recorder has finished. */
  async disconnect(streamId: string): Promise<void> {
    for (const [id, publish] of this.publishing) {
      if (publish.streamId !== streamId) continue;
      this.publishing.delete(id); // donePublish, when the socket closes, finds nothing left to do
      this.enqueue(streamId, () => this.end(publish, this.clock.now()));
      publish.session.close();
    }
    await this.queues.get(streamId);
  }

  /** Stops every recorder cleanly and ends their parts, so a restart inside the window continues them. */
  async close(): Promise<void> {
    Context.eventEmitter.off('prePublish', this.prePublish);
    Context.eventEmitter.off('donePublish', this.donePublish);
    const now = this.clock.now();
    const open = [...this.publishing.values()];
    this.publishing.clear();
    await Promise.all([...this.queues.values()]);
    await Promise.all(open.map((p) => this.end(p, now)));
    this.nms.stop();
    this.server?.close();
  }

  private readonly prePublish = (session: NmsSession): void => {
    const stream = session.streamApp === 'live' ? this.streams.byKey(session.streamName) : undefined;
    const refuse = (why: string) => {
      console.warn(`RTMP: refused a publish to /${session.streamApp}/${session.streamName.slice(0, 5)}…: ${why}`);
      session.socket?.destroy();
    };
    if (!stream) return refuse('no live stream has that key');
    if (this.isPublishing(stream.id)) return refuse('the stream already has a publisher');
    session.broadcast.publishGraceMs = 0;
    // Subscribed now, before the publisher sends a byte, so the recording misses nothing however long
    // ffmpeg takes to start (the broadcast would only replay the last keyframe's group to a late player).
    const recorder = new Recorder(`${stream.id} ${session.id}`);
    const tap = { id: `recorder-${session.id}`, ip: '', protocol: 'flv', streamPath: session.streamPath, sendBuffer: recorder.write } as const;
    session.broadcast.postPlay(tap);
    const publish: Publish = { streamId: stream.id, session, tap, recorder };
    this.publishing.set(session.id, publish);
    const at = this.clock.now();
    this.enqueue(stream.id, async () => {
      const { recordingId, seq, dir } = this.recordings.beginPart(stream, at);
      publish.part = { recordingId, seq };
      // Metadata (onMetaData) names the codecs; it comes right after the publish command.
      for (let i = 0; i < 40 && !session.videoCodec && !session.audioCodec; i++) await new Promise((r) => setTimeout(r, 50));
      await recorder.start(dir, copyable(session.videoCodec, session.audioCodec));
    });
  };

  private readonly donePublish = (session: NmsSession): void => {
    const publish = this.publishing.get(session.id);
    if (!publish) return;
    this.publishing.delete(session.id);
    const at = this.clock.now();
    this.enqueue(publish.streamId, () => this.end(publish, at));
  };

  private async end(publish: Publish, at: number): Promise<void> {
    publish.session.broadcast.donePlay(publish.tap);
    await publish.recorder.finish();
    if (publish.part) this.recordings.endPart(publish.part.recordingId, publish.part.seq, at);
  }

  private enqueue(streamId: string, task: () => Promise<void>): void {
    const next = (this.queues.get(streamId) ?? Promise.resolve())
      .then(task)
      .catch((err) => console.error(`live stream ${streamId}:`, err));
    this.queues.set(streamId, next);
    void next.finally(() => this.queues.get(streamId) === next && this.queues.delete(streamId));
  }
}
