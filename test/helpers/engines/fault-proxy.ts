import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface FaultProxy {
  /** `host:port` of the proxy on 127.0.0.1, to put in the engine's URL in place of the engine's own. */
  host: string;
  /** Connections refused while cut. */
  refused: number;
  /** Drops every open connection and refuses new ones (each is closed as it opens) until `restore`. */
  cut(): void;
  restore(): void;
  /**
   * The next connection whose client sends `text` (a statement's SQL, say) is closed before the engine sees it, as
   * a connection lost mid-statement; resolves once that happened.
   */
  dropOnce(text: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of one of the scale suite's engines (PostgreSQL, the store), so that a test can take the
 * engine away from one service and give it back, exactly when it needs to, without touching the engine the other
 * tests share. Bytes pass through unchanged: the service speaks to the real engine.
 */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const open = new Set<Socket>();
  let down = false;
  let drop: { text: Buffer; dropped: () => void } | undefined;
  const server = createServer((client) => {
    if (down) {
      proxy.refused++;
      client.destroy();
      return;
    }
    const upstream = createConnection(target);
    const end = () => {
      for (const socket of [client, upstream]) {
        socket.destroy();
        open.delete(socket);
      }
    };
    open.add(client).add(upstream);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (drop && chunk.includes(drop.text)) {
        const { dropped } = drop;
        drop = undefined;
        end();
        dropped();
        return;
      }
      if (!upstream.write(chunk)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const proxy: FaultProxy = {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused: 0,
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    dropOnce(text) {
      return new Promise((dropped) => (drop = { text: Buffer.from(text), dropped }));
    },
    async close() {
      proxy.cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}
