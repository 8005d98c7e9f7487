/** The parts of node-media-server 4.x (plain CommonJS, no types) that the ingest uses. */
declare module 'node-media-server/src/core/context.js' {
  import type { EventEmitter } from 'node:events';
  export interface NmsSession {
    id: string;
    ip: string;
    streamApp: string;
    streamName: string;
    streamPath: string;
    videoCodec: number | string;
    audioCodec: number | string;
    socket?: import('node:net').Socket;
    broadcast: {
      publishGraceMs: number;
      /** Subscribes a player; an 'flv' one gets the FLV header, the cached headers, then every tag. */
      postPlay(session: { id: string; ip: string; protocol: string; sendBuffer(data: Buffer): void }): string | null;
      donePlay(session: { id: string }): void;
    };
    close(): void;
  }
  const Context: { config: Record<string, unknown>; eventEmitter: EventEmitter };
  export default Context;
}
declare module 'node-media-server/src/session/rtmp_session.js' {
  import type { Socket } from 'node:net';
  /** One RTMP connection: `run()` starts reading the socket; `rtmp.connectCmdObj` is set once `connect` is read. */
  export default class RtmpSession {
    constructor(socket: Socket);
    id: string;
    rtmp: { connectCmdObj?: object };
    run(): void;
  }
}
declare module 'node-media-server/src/core/logger.js' {
  const logger: { level: string };
  export default logger;
}
declare module 'node-media-server/src/server/rtmp_server.js' {
  import type { Socket } from 'node:net';
  /** bench/live.bench.ts's bare node-media-server, to compare with the ingest. */
  export default class NodeRtmpServer {
    handleRequest: (socket: Socket) => void;
    stop(): void;
  }
}
