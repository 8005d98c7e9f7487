import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runService, tempData } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `npm start`'s demo/start.ts to its end; resolves with its exit code and what it printed. */
function startDemo(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'demo/start.ts'), ...args],
      { cwd: ROOT, timeout: 90_000 },
      (err, stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }),
    );
  });
}

/** A second `npm start` (or `npm run service`) while one runs: one line naming the port and its flag. */
describe('a port already in use', () => {
  let taken: Server;
  let port: number;
  before(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  after(() => taken.close());

  const free = ['--port', '0', '--service-port', '0', '--storage-port', '0', '--rtmp-port', '0'];
  for (const flag of ['service-port', 'rtmp-port', 'port'] as const) {
    it(`npm start with --${flag} taken says so in one line, and exits`, async () => {
      const data = await tempData();
      const { code, stderr } = await startDemo([...free, `--${flag}`, String(port), '--data', data]);
      assert.equal(code, 1);
      const lines = stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'));
      assert.deepEqual(lines, [
        `npm start: port ${port} is already in use (another npm start or npm run service, perhaps); stop that, or choose another port with --${flag}.`,
      ]);
    });
  }

  it('npm run service with --storage-port taken says so in one line, and exits', async () => {
    const data = await tempData();
    const { code, stderr } = await runService([
      '--port',
      '0',
      '--rtmp-port',
      '0',
      '--storage-port',
      String(port),
      '--data',
      data,
    ]);
    assert.equal(code, 2);
    assert.match(stderr.trim(), new RegExp(`^video service: port ${port} is already in use .*--storage-port\\.$`));
  });

  it('npm run service with a port of --storage-hosts taken names that flag', async () => {
    const data = await tempData();
    const { code, stderr } = await runService([
      ...['--port', '0', '--rtmp-port', '0', '--storage-port', '0', '--data', data],
      ...['--storage-hosts', `127.0.0.2:0,127.0.0.1:${port}`],
    ]);
    assert.equal(code, 2);
    assert.match(stderr.trim(), new RegExp(`^video service: port ${port} is already in use .*--storage-hosts\\.$`));
  });

  it('npm run service on a host that is not 127.x, its second storage port (the default two hosts) taken, names --storage-hosts', async () => {
    // On ::1 the two hosts are two ports: --storage-port and the one after it.
    const second = createServer();
    await new Promise<void>((resolve) => second.listen(0, '::1', resolve));
    const taken6 = (second.address() as { port: number }).port;
    try {
      const data = await tempData();
      const { code, stderr } = await runService([
        ...['--host', '::1', '--port', '0', '--rtmp-port', '0', '--storage-port', String(taken6 - 1), '--data', data],
      ]);
      assert.equal(code, 2);
      assert.match(stderr.trim(), new RegExp(`^video service: port ${taken6} is already in use .*--storage-hosts\\.$`));
    } finally {
      second.close();
    }
  });
});

describe('npm run service', () => {
  it('compiles the service, serves with plain node, and takes its commands: a key it prints works against it', async () => {
    const data = await tempData();
    // A process group of its own: stopping npm stops whatever it started, whatever that is.
    const npm = (args: string[]) =>
      spawn('npm', ['run', '--silent', 'service', '--', ...args, '--data', data], { cwd: ROOT, detached: true });
    const key = await new Promise<string>((resolve, reject) => {
      const cli = npm(['token', '--org', 'acme']);
      let out = '';
      cli.stdout.on('data', (d: Buffer) => (out += d));
      cli.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`token exited ${code}`))));
    });
    assert.match(key, /^vsk_/);
    const service = npm(['--port', '0', '--storage-port', '0', '--rtmp-port', '0']);
    try {
      const ready = await new Promise<string>((resolve, reject) => {
        createInterface({ input: service.stdout }).on('line', (l) => l.startsWith('Video service ready') && resolve(l));
        service.once('exit', (code) => reject(new Error(`npm run service exited ${code}`)));
      });
      const api = /API (\S+)/.exec(ready)![1]!;
      const res = await fetch(`${api}/videos`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200);
      // npm's child is the shell, which execs node on the build: no loader between them.
      const [serving] = (await readFile(`/proc/${service.pid}/task/${service.pid}/children`, 'utf8')).trim().split(' ');
      const cmdline = (await readFile(`/proc/${serving}/cmdline`, 'utf8')).split('\0');
      assert.ok(!cmdline.includes('tsx') && !cmdline.includes('--import'), cmdline.join(' '));
      assert.match(cmdline[1]!, /node_modules\/\.cache\/service\/[0-9a-f]{16}\/service\/main\.js$/);
    } finally {
      const exited = once(service, 'exit');
      process.kill(-service.pid!, 'SIGTERM');
      await exited;
    }
  });
});
