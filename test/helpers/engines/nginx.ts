/**
 * nginx as the scale suite's load balancer: the one address in front of several origins (API processes), as an
 * integrator runs it. Debian's `nginx` (`scripts/system-deps.sh --engines`), with a configuration made here, in a
 * folder of its own (./processes.ts), on a free port of 127.0.0.1.
 *
 * What it does to requests, as a real deployment would:
 * - Spreads them round-robin over the origins.
 * - Streams both ways: request bodies go to the origin as they arrive (`proxy_request_buffering off`, no size
 *   limit), responses to the client as they come (`proxy_buffering off`).
 * - Tells the origin who asked: `X-Forwarded-For`, `X-Forwarded-Proto`, the client's `Host`, and an `X-Request-Id`
 *   (the client's own, or one nginx makes), which the access log records too.
 * - Fails over, passively (`proxy_next_upstream error timeout`, at most 2 tries), as nginx does by default:
 *   - a request nginx could not pass to its origin (connection refused or reset, as when the process was
 *     SIGKILLed; no connection within 2 s) goes to the other one, whatever its method: the origin saw nothing;
 *   - a request the origin got and then failed on before answering (it died, or 300 s without a response
 *     header) goes to the other one only if its method is idempotent (GET, HEAD, PUT, DELETE, OPTIONS); a POST,
 *     PATCH or LOCK is not sent twice (no `non_idempotent`): the dead process may have acted on it, and the
 *     client gets the 502 and decides (the widget retries a chunk, whose PUT is idempotent);
 *   - not retried either: a request whose body nginx had started passing on (with request buffering off the
 *     body is gone), and a request the origin answered, whatever the status;
 *   - an origin that failed is left out for 10 s (`max_fails=1 fail_timeout=10s`), then tried again.
 *   An origin that stops answering without closing (SIGSTOP) is given up only after `proxy_read_timeout`, 300 s.
 */
import { type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkRunning, engineFolder, freePort, logTails, sleep, spawnDaemon, stopDaemons } from './processes.js';

const NGINX = '/usr/sbin/nginx';
/** nginx is serving within a second here; a busy machine gets thirty times that. */
const START_TIMEOUT_MS = 30_000;
/** A path of nginx's own, answered without an origin: its answer means a worker accepts connections. */
const READY_PATH = '/.balancer/ready';

/** One request nginx answered, from its access log. */
export interface BalancedRequest {
  method: string;
  path: string;
  status: number;
  /** The origins tried, in order (`127.0.0.1:PORT`), e.g. two when the first failed and the request went on. */
  upstreams: string[];
  requestId: string;
}

export interface Balancer {
  /** `http://127.0.0.1:PORT`: the one address clients use. */
  url: string;
  dir: string;
  /** Every request answered so far, oldest first. */
  requests(): Promise<BalancedRequest[]>;
  /**
   * The requests answered once `match` holds for them: nginx writes a request's access line just after the last
   * byte of its response went out, which the client may have read a moment before.
   */
  waitForRequests(match: (requests: BalancedRequest[]) => boolean, timeoutMs?: number): Promise<BalancedRequest[]>;
  /** Fast shutdown (SIGTERM): open connections are closed, not waited for. Removes the folder. */
  stop(): Promise<void>;
}

/** Starts nginx in front of `origins` (`http://127.0.0.1:PORT` each). */
export async function startNginx(origins: string[], options: { port?: number } = {}): Promise<Balancer> {
  const dir = await engineFolder('nginx', stopNginx);
  try {
    // The workers run as nobody when nginx starts as root: they must reach the folder to write request bodies
    // nginx spools (none while buffering is off, but nginx checks the folders at start).
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'temp'));
    const port = options.port ?? (await freePort());
    const conf = join(dir, 'nginx.conf');
    await writeFile(conf, config({ dir, port, origins }));
    const nginx = await spawnDaemon(dir, 'nginx', NGINX, ['-p', dir, '-e', join(dir, 'log', 'error.log'), '-c', conf]);
    const url = `http://127.0.0.1:${port}`;
    await ready(url, nginx);
    const requests = () => readRequests(join(dir, 'log', 'access.log'));
    return {
      url,
      dir,
      requests,
      async waitForRequests(match, timeoutMs = 10_000) {
        const giveUpAt = Date.now() + timeoutMs;
        for (;;) {
          const seen = await requests();
          if (match(seen) || Date.now() > giveUpAt) return seen;
          await sleep(50);
        }
      },
      stop: () => stopNginx(dir),
    };
  } catch (error) {
    const logs = await logTails(dir);
    await stopNginx(dir);
    throw new Error(`nginx did not start: ${(error as Error).message}\n${logs}`, { cause: error });
  }
}

async function ready(url: string, nginx: ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (
    !(await fetch(url + READY_PATH).then(
      (response) => response.status === 204,
      () => false,
    ))
  ) {
    checkRunning(new Map([['nginx', nginx]]));
    if (Date.now() > deadline) throw new Error('timed out waiting for nginx to answer');
    await sleep(100);
  }
}

/** SIGTERM to the master, which ends its workers, then the folder goes. */
async function stopNginx(dir: string) {
  await stopDaemons(dir, ['nginx']);
  await rm(dir, { recursive: true, force: true });
}

function config({ dir, port, origins }: { dir: string; port: number; origins: string[] }) {
  const servers = origins.map((origin) => `    server ${new URL(origin).host} max_fails=1 fail_timeout=10s;`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
    (kind) => `  ${kind}_temp_path ${dir}/temp/${kind};`,
  );
  return `# The master stays in the foreground, a child of the test process, which stops it by its PID.
daemon off;
master_process on;
worker_processes 1;
${process.getuid?.() === 0 ? 'user nobody nogroup;' : '# Not root: the workers run as this user.'}
pid ${dir}/nginx.pid;
error_log ${dir}/log/error.log info;

events {
  worker_connections 1024;
}

http {
${temp.join('\n')}
  # An id for each request, the client's own if it sent one: the origins log it (the service's request id).
  map $http_x_request_id $request_id_out {
    default $http_x_request_id;
    "" $request_id;
  }
  log_format balancer '$request_method $request_uri $status upstreams=$upstream_addr id=$request_id_out';
  access_log ${dir}/log/access.log balancer;

  upstream origins {
${servers.join('\n')}
    keepalive 16;
  }

  server {
    listen 127.0.0.1:${port};
    client_max_body_size 0;

    location = ${READY_PATH} {
      access_log off;
      return 204;
    }

    location / {
      proxy_pass http://origins;
      # HTTP/1.1 without "Connection: close": connections to the origins are kept and reused.
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Request-Id $request_id_out;
      proxy_request_buffering off;
      proxy_buffering off;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
      proxy_send_timeout 300s;
      proxy_read_timeout 300s;
    }
  }
}
`;
}

/** The access lines of the format above. `$upstream_addr` lists the origins tried, separated by ", ". */
const ACCESS_LINE = /^(\S+) (\S+) (\d{3}) upstreams=(.*) id=(\S*)$/;

async function readRequests(log: string): Promise<BalancedRequest[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => {
    const match = ACCESS_LINE.exec(line);
    if (!match) return [];
    const upstreams = match[4] === '-' ? [] : match[4]!.split(/, | : /);
    return [{ method: match[1]!, path: match[2]!, status: Number(match[3]), upstreams, requestId: match[5]! }];
  });
}
