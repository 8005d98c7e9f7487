import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempData } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs a command line of the project to its end; resolves with its exit code and what it printed. */
function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, script), ...args],
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
      const { code, stderr } = await run('demo/start.ts', [...free, `--${flag}`, String(port), '--data', data]);
      assert.equal(code, 1);
      const lines = stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'));
      assert.deepEqual(lines, [
        `npm start: port ${port} is already in use (another npm start or npm run service, perhaps); stop that, or choose another port with --${flag}.`,
      ]);
    });
  }

  it('npm run service with --storage-port taken says so in one line, and exits', async () => {
    const data = await tempData();
    const { code, stderr } = await run('service/main.ts', [
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
    const { code, stderr } = await run('service/main.ts', [
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
      const { code, stderr } = await run('service/main.ts', [
        ...['--host', '::1', '--port', '0', '--rtmp-port', '0', '--storage-port', String(taken6 - 1), '--data', data],
      ]);
      assert.equal(code, 2);
      assert.match(stderr.trim(), new RegExp(`^video service: port ${taken6} is already in use .*--storage-hosts\\.$`));
    } finally {
      second.close();
    }
  });
});
