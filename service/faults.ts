import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { writeJson } from './http/errors.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Faults on demand, for tests only (--test-hooks): POST /__test__/faults with a list of rules.
 *
 *   target   'chunk-put' | 'single-put' (storage, #5), or an API route as "METHOD /path-template",
 *            e.g. "POST /videos/{id}/multipart-upload/get-chunk-upload-url"
 *   nth      the Nth requests to the target that fail (1-based, counted from when the rules were set),
 *   or probability  the share of requests that fail (0..1)
 *   action   'status' (answer `status` and `code`, with `retryAfter` seconds when given, after reading the body),
 *            'reset' (read part of the body, then drop the connection), 'stall' (wait `stallMs`, then go on),
 *            'not-json' (answer 200 with an HTML page), 'no-fields' (answer 200 with `{}`),
 *            'corrupt' (store the body with its first byte flipped, as a faulty disk or proxy would),
 *            'throttle' (read the body at most `bytesPerSecond`, as a connection that loss holds back sends it)
 *   times    how many times the rule fires at most (default: no limit)
 *
 * `exposeEtag: false` makes the storage stop exposing ETag to browsers (a misconfigured CORS).
 */
export interface FaultRule {
  target: string;
  nth?: number[];
  probability?: number;
  action: (typeof FAULT_ACTIONS)[number];
  status?: number;
  /** The error code of the answer (default `injected_fault`), e.g. `signature_expired`. */
  code?: string;
  retryAfter?: number;
  stallMs?: number;
  bytesPerSecond?: number;
  times?: number;
}

/** The header of every answer a fault made up. */
export const INJECTED_HEADER = 'x-injected-fault';

export const FAULT_ACTIONS = ['status', 'reset', 'stall', 'not-json', 'no-fields', 'corrupt', 'throttle'] as const;

export class Faults {
  private rules: (FaultRule & { fired: number })[] = [];
  private readonly seen = new Map<string, number>();
  exposeEtag = true;

  /** The rules of POST /__test__/faults (its schema, routes/test-hooks.ts, checked them). */
  set(body: { rules?: FaultRule[]; exposeEtag?: boolean }): void {
    this.rules = (body.rules ?? []).map((r) => ({ ...r, fired: 0 }));
    this.exposeEtag = body.exposeEtag !== false;
    this.seen.clear();
  }

  /** The rule that fires for this request to `target`, if any; counts the request. */
  private match(target: string): FaultRule | undefined {
    const n = (this.seen.get(target) ?? 0) + 1;
    this.seen.set(target, n);
    const rule = this.rules.find(
      (r) =>
        r.target === target &&
        (r.times === undefined || r.fired < r.times) &&
        (r.nth ? r.nth.includes(n) : Math.random() < (r.probability ?? 1)),
    );
    if (rule) (rule as { fired: number }).fired++;
    return rule;
  }

  /**
   * Applies a matching rule. Returns true when the request was answered (or dropped) here; 'corrupt'
   * when the body is to be stored altered; false when the request goes on (a stall, after its wait).
   */
  async apply(
    target: string,
    req: IncomingMessage,
    res: ServerResponse,
    onBytes?: (n: number) => void,
  ): Promise<boolean | 'corrupt'> {
    const rule = this.match(target);
    if (!rule) return false;
    if (rule.action === 'corrupt') return 'corrupt';
    if (rule.action === 'throttle') {
      throttle(req, rule.bytesPerSecond ?? 1_000_000);
      return false;
    }
    if (rule.action === 'stall') {
      await sleep(rule.stallMs ?? 5000);
      return false;
    }
    if (rule.action === 'reset') {
      let read = 0;
      const half = Number(req.headers['content-length'] ?? 0) / 2;
      await new Promise<void>((resolve) => {
        req.on('data', (d: Buffer) => {
          read += d.length;
          onBytes?.(d.length);
          if (read >= half) {
            req.socket.destroy();
            resolve();
          }
        });
        req.on('end', () => (req.socket.destroy(), resolve()));
        req.on('close', () => resolve());
      });
      return true;
    }
    // The body is read first, as a real failing server would have: those bytes count as received.
    for await (const d of req as AsyncIterable<Buffer>) onBytes?.(d.length);
    // Marked, so the tests' contract check (test/helpers/contract.ts) knows the answer is made up on purpose.
    const marked = { [INJECTED_HEADER]: '1' };
    if (rule.action === 'not-json') {
      res.writeHead(200, { ...marked, 'content-type': 'text/html' });
      res.end('<html><body>Gateway says hello</body></html>');
    } else if (rule.action === 'no-fields') {
      writeJson(res, 200, {}, marked);
    } else {
      const status = rule.status ?? 500;
      // The error shape, with a code of the test's choosing (not one of the contract's).
      const body = {
        error: { status, code: rule.code ?? 'injected_fault', message: `Fault injected by a test: ${status}.` },
      };
      // The storage closes the connection after every refusal (storage/server.ts); the API keeps it.
      const close: Record<string, string> =
        target === 'chunk-put' || target === 'single-put' ? { connection: 'close' } : {};
      const retry: Record<string, string> =
        rule.retryAfter === undefined ? {} : { 'retry-after': String(rule.retryAfter) };
      writeJson(res, status, body, { ...marked, ...close, ...retry });
    }
    return true;
  }
}

/**
 * Holds the body of `req` to `bytesPerSecond` from its first byte on, whoever reads it: while it is ahead of that pace
 * its socket is not read (as the HTTP server itself stops reading a body nobody consumes), so TCP holds the sender back
 * as loss would hold back one connection, each connection on its own. The socket's buffers still take a few MB at once.
 */
function throttle(req: IncomingMessage, bytesPerSecond: number): void {
  const start = Date.now();
  let bytes = 0;
  const aheadMs = () => (bytes / bytesPerSecond) * 1000 - (Date.now() - start);
  // The HTTP parser hands each piece of the body to push(), and the body's reader asks for more through _read().
  const push = req.push.bind(req);
  const read = (req as Readable)._read.bind(req);
  req.push = (chunk: Buffer | null, encoding?: BufferEncoding) => {
    if (chunk) bytes += chunk.length;
    const more = push(chunk, encoding);
    if (aheadMs() > 0) req.socket.pause();
    return more;
  };
  req._read = (size: number) => {
    const wait = aheadMs();
    if (wait > 0) setTimeout(() => read(size), wait);
    else read(size);
  };
}
