import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1: answers each delivery with the next status of `statuses` (the last
 * one from then on), with `headers`, and keeps what it got; a `silent` one reads the delivery and never
 * answers. `listen(port)` can bring it back on the same port.
 */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    private readonly statuses: number[] = [200],
    private readonly options: { headers?: Record<string, string>; silent?: boolean } = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async listen(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body });
        if (this.options.silent) return;
        res
          .writeHead(this.statuses[Math.min(this.received.length, this.statuses.length) - 1]!, this.options.headers)
          .end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    this.server?.closeAllConnections(); // a silent receiver's held requests too
    await closed;
  }
}
