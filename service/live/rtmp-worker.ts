/**
 * The RTMP ingest's own process, forked and supervised by live/ingest.ts. node-media-server parses what
 * strangers send; here a fault in it costs this process only, which the service restarts (with back-off; a
 * publisher that comes back within the merge window continues its recording). It owns no database: whether
 * a key is a stream's, and where a publish is recorded, is the service's to decide, asked over IPC.
 *
 * Held against strangers (each limit is a flag of the service; docs/security.md):
 *  - A message handler that throws (a `connect` with no command object, say) closes that connection only.
 *  - Until it publishes, a connection is a stranger's. One address may hold `unpublishedPerAddress` of them
 *    (`::ffff:1.2.3.4` is 1.2.3.4, an IPv6 address counts by its /64); one more from it is closed at once, whatever other addresses hold.
 *  - Those connections may hold half of `maxConnections` (UNPUBLISHED_SHARE); the rest is kept for publishers.
 *    When that half is full, a new connection closes the oldest one that has not published rather than being
 *    refused: idle sockets can no longer keep an encoder out, only race it, and an encoder publishes within a
 *    few round trips. A publishing connection is never closed for an idle one.
 *  - The handshake and `connect` within `connectWithinMs`, a publish within `publishWithinMs`, and a byte at
 *    least every `idleMs` (a chunk header that declares 16 MiB and sends nothing): else the connection is closed.
 *  - A publish whose recording cannot be set up (its folder cannot be made, ffmpeg cannot be started) is
 *    refused alone: its publisher is cut, its part ends empty, and everything else goes on.
 *  - At most `maxConnections` connections; nobody may play over RTMP (playback is HLS).
 */
import { createServer, type Socket } from 'node:net';
import Context, { type NmsSession } from 'node-media-server/src/core/context.js';
import logger from 'node-media-server/src/core/logger.js';
import RtmpSession from 'node-media-server/src/session/rtmp_session.js';
import { copyable, Recorder } from './recorder.js';
import { clientAddress } from '../net/client-address.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { log } from '../log.js';

export interface WorkerOptions {
  host: string;
  port: number;
  maxConnections: number;
  idleMs: number;
  connectWithinMs: number;
  publishWithinMs: number;
  unpublishedPerAddress: number;
  /** The data volume's reserve: a recorder ends its publish below it. */
  minFreeBytes?: number;
}

/** The service → this process. */
export type ToWorker =
  | { type: 'accept'; sid: string; streamId: string; dir: string }
  | { type: 'refuse'; sid: string; why: string }
  | { type: 'disconnect'; streamId: string }
  | { type: 'close' };

/** This process → the service. `unpublished` is when a publish ended; `finished`, when its recording is whole on disk. */
export type FromWorker =
  | { type: 'listening'; port: number }
  | { type: 'listen-error'; code: string; message: string }
  | { type: 'publish'; sid: string; app: string; key: string }
  | { type: 'unpublished'; sid: string }
  | { type: 'finished'; sid: string }
  | { type: 'disconnected'; streamId: string }
  | { type: 'closed' };

interface Publish {
  session: NmsSession;
  tap: { id: string; ip: ''; protocol: 'flv'; streamPath: string; sendBuffer: (data: Buffer) => void };
  recorder: Recorder;
  streamId?: string;
  /** The recorder's start, once the service accepted: an end waits for it. */
  started: Promise<void>;
}

const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
const send = (message: FromWorker) => process.send?.(message);
const publishes = new Map<string, Publish>();

/** The share of `maxConnections` that connections which have not published may hold. */
const UNPUBLISHED_SHARE = 0.5;
const maxUnpublished = Math.max(1, Math.floor(options.maxConnections * UNPUBLISHED_SHARE));
/** Connections that have not published yet, oldest first: their address and deadlines. */
const unpublished = new Map<Socket, { address: string; deadlines: NodeJS.Timeout[] }>();
const perAddress = new Map<string, number>();

/** A client as per-address limits count it: `::ffff:1.2.3.4` is 1.2.3.4, an IPv6 address counts by its /64. */
const addressOf = (socket: Socket) => clientAddress(socket.remoteAddress ?? '');

/** The connection published or closed: it holds no stranger's slot any more. */
function release(socket: Socket): void {
  const held = unpublished.get(socket);
  if (!held) return;
  unpublished.delete(socket);
  held.deadlines.forEach(clearTimeout);
  const left = perAddress.get(held.address)! - 1;
  if (left > 0) perAddress.set(held.address, left);
  else perAddress.delete(held.address);
}

logger.level = process.env.NMS_LOG ?? 'error';
Context.config = {};

/** Only this connection goes when its handler throws: node-media-server's parser trusts what it reads. */
function guard(socket: Socket): void {
  const on = socket.on.bind(socket);
  socket.on = ((event: string, listener: (...args: unknown[]) => void) =>
    on(
      event,
      event !== 'data'
        ? listener
        : (...args: unknown[]) => {
            try {
              listener(...args);
            } catch (err) {
              log.warn(
                `RTMP: closed a connection from ${socket.remoteAddress} whose message could not be read: ${(err as Error).message}`,
              );
              socket.destroy();
            }
          },
    )) as Socket['on'];
}

const server = createServer((socket) => {
  const address = addressOf(socket);
  const held = perAddress.get(address) ?? 0;
  if (held >= options.unpublishedPerAddress) return void socket.destroy();
  const [oldest] = unpublished.keys();
  if (oldest && unpublished.size >= maxUnpublished) {
    release(oldest);
    oldest.destroy();
  }
  guard(socket);
  socket.setTimeout(options.idleMs, () => socket.destroy());
  const session = new RtmpSession(socket);
  perAddress.set(address, held + 1);
  unpublished.set(socket, {
    address,
    deadlines: [
      setTimeout(() => session.rtmp.connectCmdObj || socket.destroy(), options.connectWithinMs),
      setTimeout(() => socket.destroy(), options.publishWithinMs),
    ],
  });
  socket.once('close', () => release(socket));
  session.run();
});
server.maxConnections = options.maxConnections;
// A port it cannot take is the supervisor's to report (a line naming the port), not a stack trace here.
server.once('error', (err: NodeJS.ErrnoException) => {
  send({ type: 'listen-error', code: err.code ?? 'ERROR', message: err.message });
  process.exit(3);
});
server.listen(options.port, options.host, () =>
  send({ type: 'listening', port: (server.address() as { port: number }).port }),
);

Context.eventEmitter.on('prePlay', (session: NmsSession) => session.socket?.destroy());

Context.eventEmitter.on('prePublish', (session: NmsSession) => {
  if (session.socket) release(session.socket);
  session.broadcast.publishGraceMs = 0;
  // Subscribed now, before the publisher sends a byte, so the recording misses nothing while the service
  // decides (the broadcast would only replay the last keyframe's group to a late player).
  const recorder = new Recorder(
    session.id,
    options.minFreeBytes === undefined
      ? undefined
      : { reserveBytes: options.minFreeBytes, onFull: () => session.close() },
  );
  const tap = {
    id: `recorder-${session.id}`,
    ip: '',
    protocol: 'flv',
    streamPath: session.streamPath,
    sendBuffer: recorder.write,
  } as const;
  session.broadcast.postPlay(tap);
  publishes.set(session.id, { session, tap, recorder, started: Promise.resolve() });
  send({ type: 'publish', sid: session.id, app: session.streamApp, key: session.streamName });
});

Context.eventEmitter.on('donePublish', (session: NmsSession) => {
  const publish = publishes.get(session.id);
  if (!publish) return;
  publishes.delete(session.id);
  // Not accepted (yet): the service learns of the end when its answer finds no publish.
  if (publish.streamId) void end(session.id, publish);
  else publish.session.broadcast.donePlay(publish.tap);
});

async function end(sid: string, publish: Publish): Promise<void> {
  send({ type: 'unpublished', sid });
  publish.session.broadcast.donePlay(publish.tap);
  await publish.started;
  await publish.recorder.finish();
  send({ type: 'finished', sid });
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'accept') {
    const publish = publishes.get(message.sid);
    if (!publish) {
      // It ended before the answer came: nothing was recorded.
      send({ type: 'unpublished', sid: message.sid });
      send({ type: 'finished', sid: message.sid });
      return;
    }
    publish.streamId = message.streamId;
    publish.started = (async () => {
      // Metadata (onMetaData) names the codecs; it comes right after the publish command.
      for (let i = 0; i < 40 && !publish.session.videoCodec && !publish.session.audioCodec; i++) await sleep(50);
      await publish.recorder.start(message.dir, copyable(publish.session.videoCodec, publish.session.audioCodec));
    })().catch((err: Error) => {
      // Nothing would be recorded: this publish is refused, and only this one. Its part ends empty (a
      // publish that ended meanwhile is being ended already).
      log.error(`RTMP: cut a publish to stream ${message.streamId}, whose recording could not start: ${err.message}`);
      if (publishes.get(message.sid) !== publish) return;
      publishes.delete(message.sid);
      publish.session.socket?.destroy();
      void end(message.sid, publish);
    });
  } else if (message.type === 'refuse') {
    const publish = publishes.get(message.sid);
    if (!publish) return;
    log.warn(
      `RTMP: refused a publish to /${publish.session.streamApp}/${publish.session.streamName.slice(0, 5)}…: ${message.why}`,
    );
    publishes.delete(message.sid);
    publish.session.broadcast.donePlay(publish.tap);
    publish.session.socket?.destroy();
  } else if (message.type === 'disconnect') {
    const ending = [...publishes].filter(([, p]) => p.streamId === message.streamId);
    for (const [sid] of ending) publishes.delete(sid);
    void Promise.all(
      ending.map(([sid, p]) => {
        p.session.close();
        return end(sid, p);
      }),
    ).then(() => send({ type: 'disconnected', streamId: message.streamId }));
  } else if (message.type === 'close') {
    server.close();
    const open = [...publishes].filter(([, p]) => p.streamId);
    publishes.clear();
    void Promise.all(open.map(([sid, p]) => end(sid, p))).then(() => {
      send({ type: 'closed' });
      process.exit(0);
    });
  }
});

// The service went away without saying so: nothing here outlives it.
process.on('disconnect', () => process.exit(0));
