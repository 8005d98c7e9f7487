import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DATA } from '../../service/ports.js';

/**
 * `npm start` as a stranger meets it (issue 28, item 3): the dev server hands out the pages, the library and its
 * dependencies and nothing else, to this machine's names only; the integrator backend serves its visitor's data
 * to a visitor the page signed in, and POSTs from its own pages only; the service's test hooks answer at its own
 * address only. The demo runs as the end-to-end tests start it (test/e2e/global-setup.ts), its data directory in
 * src/, a folder the page server serves: only the data directory's own refusal keeps it out.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with exactly these headers (fetch may not send Host); `path` is sent as written. */
function send(
  origin: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let demo: ChildProcess;
let data = '';
const urls = { page: '', service: '' };

before(async () => {
  data = await mkdtemp(join(ROOT, 'src', 'demo-test-data-'));
  const free = ['--port', '0', '--service-port', '0', '--storage-port', '0', '--rtmp-port', '0'];
  demo = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts', ...free, '--data', data, '--test-hooks'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    demo.once('exit', (code) => reject(new Error(`demo exited with ${code}`)));
    createInterface({ input: demo.stdout! }).on('line', (line) => {
      urls.service ||= /API (\S+)/.exec(line)?.[1] ?? '';
      const page = /^Demo: (\S+)\/$/.exec(line)?.[1];
      if (page) resolve(void (urls.page = page));
    });
  });
});

after(async () => {
  const exited = new Promise((resolve) => demo.once('exit', resolve));
  demo.kill('SIGTERM');
  await exited;
  await rm(data, { recursive: true, force: true });
});

/** Refused, with an answer that names no path of this machine. */
function assertRefused(answer: Answer, what: string) {
  assert.equal(answer.status, 403, what);
  for (const path of [ROOT, data, '/etc']) assert.ok(!answer.body.includes(path), `${what}: the answer names ${path}`);
}

describe('the dev server of npm start', () => {
  it('serves the pages, the library and its dependencies', async () => {
    for (const path of ['/', '/live.html', '/main.ts', `/@fs${ROOT}src/index.ts`]) {
      assert.equal((await send(urls.page, path)).status, 200, path);
    }
  });

  it('refuses the rest of the repository, and says so without a path', async () => {
    assertRefused(await send(urls.page, `/@fs${ROOT}package.json`), 'a file of the repository');
    assertRefused(await send(urls.page, `/@fs${ROOT}src%2F..%2Fpackage.json`), 'an encoded way out of src/');
    assertRefused(await send(urls.page, `/@fs${ROOT}service/db.ts`), 'the service');
    assertRefused(await send(urls.page, '/backend/server.ts'), "the demo's backend, beside the pages");
    assertRefused(await send(urls.page, '/@fs/etc/passwd'), 'a file of the machine');
    assertRefused(await send(urls.page, '/@id//etc/passwd?raw'), 'a file of the machine, by its id');
    assertRefused(await send(urls.page, '/main%00.ts'), 'a path with a NUL, which Node cannot look up');
    assertRefused(await send(urls.page, '/__open-in-editor?file=package.json'), "the developer's editor");
  });

  it('refuses the data directory, even where files are served', async () => {
    assertRefused(await send(urls.page, `/@fs${data}/service.db`), 'the database');
    assertRefused(await send(urls.page, `/@fs${data}/service.db?raw`), 'the database, raw');
  });

  it('refuses dotfiles, even where files are served', async () => {
    assertRefused(await send(urls.page, `/@fs${ROOT}node_modules/.package-lock.json`), 'a dotfile');
  });

  it('answers this machine only: a foreign Host (DNS rebinding) is refused', async () => {
    const { host } = new URL(urls.page);
    assert.equal((await send(urls.page, '/', { host })).status, 200);
    for (const foreign of ['evil.example', `evil.example:${new URL(urls.page).port}`]) {
      assert.equal((await send(urls.page, '/', { host: foreign })).status, 403, foreign);
      assert.equal((await send(urls.page, `/@fs${ROOT}src/index.ts`, { host: foreign })).status, 403, foreign);
    }
  });

  it('grants no other origin CORS, not even one on localhost', async () => {
    const origin = { origin: 'http://localhost:3000' };
    for (const path of ['/', `/@fs${ROOT}src/index.ts`, '/api/config']) {
      const answer = await send(urls.page, path, origin);
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers['access-control-allow-origin'], undefined, path);
    }
    const preflight = await send(urls.page, '/', { ...origin, 'access-control-request-method': 'POST' }, 'OPTIONS');
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });
});

describe('the integrator backend behind the page', () => {
  /** The cookie a visitor's browser keeps from loading the page. */
  async function signIn(): Promise<string> {
    const setCookie = (await send(urls.page, '/live.html')).headers['set-cookie'];
    assert.equal(setCookie?.length, 1);
    assert.match(setCookie[0]!, /^demo_visitor=[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/);
    return setCookie[0]!.split(';')[0]!;
  }

  it("serves the live page's data (the stream key) to a visitor the page signed in, and to no one else", async () => {
    const cookie = await signIn();
    const live = await send(urls.page, '/api/live', { cookie });
    assert.equal(live.status, 200);
    assert.match(JSON.parse(live.body).streamKey, /^lv_/);

    const [, id] = /^demo_visitor=([\w-]+)\./.exec(cookie)!;
    const forged = [
      'demo_visitor=AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      // The page's own id with another page's signature: a signed id cannot be changed.
      `demo_visitor=${id}.${'B'.repeat(43)}`,
      `demo_visitor=${id}`,
    ];
    for (const headers of [{}, ...forged.map((c) => ({ cookie: c }))]) {
      const refused = await send(urls.page, '/api/live', headers);
      assert.equal(refused.status, 401, JSON.stringify(headers));
      assert.equal(JSON.parse(refused.body).error.code, 'not_signed_in');
      assert.equal((await send(urls.page, '/api/clip-token', headers, 'POST')).status, 401);
    }
    // A page does not sign in again a visitor it signed in already.
    assert.equal((await send(urls.page, '/', { cookie })).headers['set-cookie'], undefined);
  });

  it("takes POSTs from its own pages only: a page of another origin is refused, even with the visitor's cookie", async () => {
    const cookie = await signIn();
    const own = await send(urls.page, '/api/clip-token', { cookie, origin: urls.page }, 'POST');
    assert.equal(own.status, 200, own.body);
    for (const origin of ['http://localhost:3000', 'null']) {
      const refused = await send(urls.page, '/api/video-token', { cookie, origin }, 'POST');
      assert.equal(refused.status, 403, origin);
      assert.equal(JSON.parse(refused.body).error.code, 'cross_origin');
      assert.equal((await send(urls.page, '/api/clip-token', { cookie, origin }, 'POST')).status, 403);
    }
  });
});

describe("the service's test hooks", () => {
  it('answer at the address the service listens on only: a foreign Host gets 421 invalid_host', async () => {
    const { host, port } = new URL(urls.service);
    for (const own of [host, `localhost:${port}`]) {
      assert.equal((await send(urls.service, '/__test__/storage-requests', { host: own })).status, 200, own);
    }
    for (const foreign of [`evil.example:${port}`, 'evil.example']) {
      for (const [path, method] of [
        ['/__test__/storage-requests', 'GET'],
        ['/__test__/clock', 'POST'],
      ] as const) {
        const json = { 'content-type': 'application/json' };
        const refused = await (method === 'GET'
          ? send(urls.service, path, { host: foreign })
          : send(urls.service, path, { host: foreign, ...json }, method, '{"advanceMs":0}'));
        assert.equal(refused.status, 421, `${method} ${path} from ${foreign}`);
        assert.equal(JSON.parse(refused.body).error.code, 'invalid_host');
      }
    }
  });
});

it('keeps its data outside the repository unless told otherwise', () => {
  assert.ok(!DEFAULT_DATA.startsWith(ROOT), DEFAULT_DATA);
});
