/** The parts of node-media-server 4.x (plain CommonJS, no types) that the ingest uses. */
declare module 'node-media-server/src/core/context.js' {
  import type { EventEmitter } from 'node:events';
  export interface NmsSession {
    id: string;
    ip: string;
    streamApp: string;
    streamName: string;
    streamQuery?: Record<string, unknown>;
    videoCodec: number | string;
    audioCodec: number | string;
    socket?: import('node:net').Socket;
    broadcast: { publishGraceMs: number };
    close(): void;
  }
  const Context: { config: Record<string, unknown>; eventEmitter: EventEmitter; sessions: Map<string, NmsSession> };
  export default Context;
}
declare module 'node-media-server/src/server/rtmp_server.js' {
  import type { Socket } from 'node:net';
  export default class NodeRtmpServer {
    handleRequest: (socket: Socket) => void;
    stop(): void;
  }
}
declare module 'node-media-server/src/core/logger.js' {
  const logger: { level: string };
  export default logger;
}
