/**
 * nginx as the scale suite runs it in front of the API processes (test/helpers/engines/nginx.ts), here in front of
 * two tiny origins of node:http, each its own process: it spreads requests over both, tells them who asked, streams
 * bodies both ways (a chunk reaches the origin while the client still sends it, whatever its size; a response
 * goes no faster than the client reads it, nothing piles up in the balancer), and when one
 * origin is SIGKILLed, every request, a POST included, is answered by the other.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { startNginx, type Balancer } from '../helpers/engines/nginx.js';

/** The response of /large: more than loopback's socket buffers and nginx's own can hold together (about 20 MiB). */
const LARGE_BYTES = 128 * 1024 * 1024;

/**
 * An origin, a process of its own: answers every request with its name, the forwarding headers it got and the
 * bytes of the body. It prints its port at start, and "first-bytes" when the body of a PUT to /upload begins. /large
 * answers LARGE_BYTES, as fast as they are taken from it, saying how far it got. /die?who=NAME kills origin NAME
 * once it has read the request.
 */
const ORIGIN = `
const http = require('node:http');
const name = process.argv[1];
const server = http.createServer((request, response) => {
  let bytes = 0;
  request.on('data', (chunk) => {
    if (bytes === 0 && request.url === '/upload') console.log('first-bytes');
    bytes += chunk.length;
  });
  request.on('end', () => {
    if (request.url === '/large') return writeLarge(response);
    // As an API process SIGKILLed while it handles a request: it got all of it, and answers nothing.
    if (request.url === '/die?who=' + name) process.kill(process.pid, 'SIGKILL');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({
      name,
      method: request.method,
      bytes,
      forwardedFor: request.headers['x-forwarded-for'],
      requestId: request.headers['x-request-id'],
      host: request.headers.host,
    }));
  });
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
// LARGE_BYTES in chunks of a MiB, each written only once the socket took the previous one, "written N" after each.
function writeLarge(response) {
  const chunk = Buffer.alloc(1024 * 1024);
  let written = 0;
  const next = () => {
    if (written === ${LARGE_BYTES}) return response.end();
    written += chunk.length;
    response.write(chunk, () => {
      console.log('written ' + written);
      next();
    });
  };
  next();
}
`;

interface Origin {
  name: string;
  url: string;
  process: ChildProcess;
  /** Resolves at the next line the origin prints. */
  next(line: string): Promise<void>;
  /** The bytes of /large the origin has written so far, and when it last wrote some. */
  large: { written: number; at: number };
}

async function startOrigin(name: string): Promise<Origin> {
  const child = spawn(process.execPath, ['-e', ORIGIN, name], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting = new Map<string, () => void>();
  const [first] = (await once(lines, 'line')) as [string];
  const large = { written: 0, at: 0 };
  lines.on('line', (line) => {
    waiting.get(line)?.();
    if (line.startsWith('written ')) Object.assign(large, { written: Number(line.slice(8)), at: Date.now() });
  });
  return {
    name,
    url: `http://127.0.0.1:${first.replace('port ', '')}`,
    process: child,
    next: (line) => new Promise<void>((resolve) => waiting.set(line, resolve)),
    large,
  };
}

/** Resolves with what `found` returns once it returns something, looking every 100 ms. */
async function until<T>(found: () => T | undefined): Promise<T> {
  for (let value = found(); ; value = found()) {
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Answer {
  name: string;
  method: string;
  bytes: number;
  forwardedFor?: string;
  requestId?: string;
  host?: string;
}

/** Origins a and b, nginx in front of them. */
async function startPair() {
  const origins = (await Promise.all(['a', 'b'].map(startOrigin))) as [Origin, Origin];
  const balancer = await startNginx(origins.map((origin) => origin.url));
  return {
    origins,
    balancer,
    /** A request through nginx, which must be answered 200 by an origin. */
    async call(path: string, init?: RequestInit): Promise<Answer> {
      const response = await fetch(balancer.url + path, init);
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as Answer;
    },
    async stop() {
      await balancer.stop();
      for (const origin of origins) origin.process.kill('SIGKILL');
    },
  };
}

// A balancer that held a body or a response back would leave a test waiting: it fails at this instead.
describe('nginx in front of two origins', { timeout: 60_000 }, () => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  let origins: [Origin, Origin];
  let balancer: Balancer;
  let call: (path: string, init?: RequestInit) => Promise<Answer>;

  before(async () => {
    pair = await startPair();
    ({ origins, balancer, call } = pair);
  });

  after(() => pair?.stop());

  it('spreads requests over both origins, telling each who asked and under which request id', async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 10; i++) answers.push(await call(`/spread?i=${i}`));
    // Round-robin: each origin gets its turn (exactly every other request, unless one failed, which none did).
    assert.deepEqual(
      answers.map((answer) => answer.name),
      answers.map((_, i) => ((answers[0]!.name === 'a') === (i % 2 === 0) ? 'a' : 'b')),
    );
    const host = new URL(balancer.url).host;
    for (const answer of answers) {
      assert.equal(answer.forwardedFor, '127.0.0.1');
      assert.equal(answer.host, host, 'the origin sees the address the client used');
      assert.match(answer.requestId ?? '', /^[0-9a-f]{32}$/, 'nginx makes a request id when the client sent none');
    }
    // A request id the client sent is the one the origin gets, and the one nginx logs.
    const own = await call('/spread/own-id', { headers: { 'X-Request-Id': 'client-chosen-id' } });
    assert.equal(own.requestId, 'client-chosen-id');
    const ownId = (request: { path: string }) => request.path === '/spread/own-id';
    const logged = (await balancer.waitForRequests((requests) => requests.some(ownId))).find(ownId);
    assert.equal(logged?.requestId, 'client-chosen-id');
  });

  it('passes a request body to the origin while the client is still sending it, whatever its size', async () => {
    const firstBytes = Promise.race(origins.map((origin) => origin.next('first-bytes')));
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const answer = call('/upload', { method: 'PUT', body: readable, duplex: 'half' } as RequestInit);
    const chunk = new Uint8Array(1024 * 1024);
    await writer.write(chunk);
    // A balancer that buffered the body would wait for its end before passing anything on: this would never resolve.
    await firstBytes;
    // 8 MiB in all: more than nginx's default limit of 1 MiB for a request body.
    for (let i = 1; i < 8; i++) await writer.write(chunk);
    await writer.close();
    assert.equal((await answer).bytes, 8 * chunk.length);
  });

  it('holds the origin back while the client reads slowly, rather than taking the whole response in', async () => {
    const response = await fetch(`${balancer.url}/large`);
    const reader = response.body!.getReader();
    let received = (await reader.read()).value!.length;
    // The client stops reading. The origin writes on until every buffer between them is full, then waits: its
    // last write is a second old. A balancer that buffered responses would have taken all of it meanwhile.
    const origin = await until(() => origins.find((o) => o.large.at > 0 && Date.now() - o.large.at > 1000));
    assert.ok(
      origin.large.written < LARGE_BYTES / 2,
      `the origin wrote ${origin.large.written} bytes of ${LARGE_BYTES} while the client read ${received}`,
    );
    for (let part = await reader.read(); !part.done; part = await reader.read()) received += part.value.length;
    assert.equal(received, LARGE_BYTES);
  });

  it('sends every request to the other origin once one is SIGKILLed, a POST as well as a GET', async () => {
    const [killed, survivor] = origins;
    killed.process.kill('SIGKILL');
    await once(killed.process, 'exit');
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) {
      const method = i % 2 === 0 ? 'GET' : 'POST';
      answers.push(await call(`/after-kill?i=${i}`, method === 'POST' ? { method, body: 'a form' } : undefined));
    }
    assert.deepEqual(
      answers.map((answer) => `${answer.method} ${answer.name}`),
      ['GET', 'POST', 'GET', 'POST', 'GET', 'POST'].map((method) => `${method} ${survivor.name}`),
    );
    // One request, when the dead origin's turn came, tried it, failed to connect and went on: the client never saw
    // it. Then the dead origin is left out (max_fails=1, fail_timeout=10s): no other request tries it meanwhile.
    const afterKill = (request: { path: string }) => request.path.startsWith('/after-kill');
    const all = await balancer.waitForRequests((requests) => requests.filter(afterKill).length === 6);
    const logged = all.filter(afterKill);
    const killedAddress = new URL(killed.url).host;
    const tried = logged.filter((request) => request.upstreams.includes(killedAddress));
    assert.deepEqual(
      tried.map((request) => request.upstreams),
      [[killedAddress, new URL(survivor.url).host]],
    );
  });
});

describe('nginx when an origin dies while it handles a request', { timeout: 60_000 }, () => {
  // Whichever origin's turn it is gets the request; the one named in it dies. Round-robin gives each a turn in two.
  const dieOn = async (pair: Awaited<ReturnType<typeof startPair>>, method: 'GET' | 'POST') => {
    const [victim, survivor] = pair.origins;
    const path = `/die?who=${victim.name}`;
    const died = once(victim.process, 'exit');
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await fetch(pair.balancer.url + path, { method })).status);
    await died;
    const logged = await pair.balancer.waitForRequests((requests) => requests.length === 2);
    const victimAddress = new URL(victim.url).host;
    const survivorAddress = new URL(survivor.url).host;
    return { statuses, upstreams: logged.map((request) => request.upstreams), victimAddress, survivorAddress };
  };

  it('passes a GET on to the other origin: the client never sees the failure', async () => {
    const pair = await startPair();
    try {
      const { statuses, upstreams, victimAddress, survivorAddress } = await dieOn(pair, 'GET');
      assert.deepEqual(statuses, [200, 200]);
      assert.deepEqual(
        upstreams.find((tried) => tried.includes(victimAddress)),
        [victimAddress, survivorAddress],
      );
    } finally {
      await pair.stop();
    }
  });

  it('does not send a POST again, which the dead origin may have acted on: the client gets a 502', async () => {
    const pair = await startPair();
    try {
      const { statuses, upstreams, victimAddress } = await dieOn(pair, 'POST');
      assert.deepEqual([...statuses].sort(), [200, 502]);
      assert.deepEqual(
        upstreams.find((tried) => tried.includes(victimAddress)),
        [victimAddress],
      );
    } finally {
      await pair.stop();
    }
  });
});
