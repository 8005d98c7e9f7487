import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1: answers each delivery with the next status of `statuses` (the last
 * one from then on) and keeps what it got. `listen(port)` can bring it back on the same port.
 */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(private readonly statuses: number[] = [200]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async listen(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body });
        res.writeHead(this.statuses[Math.min(this.received.length, this.statuses.length) - 1]!).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
    this.server?.closeAllConnections();
  }
}
