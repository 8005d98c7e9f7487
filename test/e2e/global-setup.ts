import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Starts `demo/start.ts` (service, backend, page) on free 127.0.0.1 ports; tests read where from the environment. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const data = await mkdtemp(join(tmpdir(), 'video-uploader-e2e-'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'demo/start.ts',
      '--port',
      '0',
      '--service-port',
      '0',
      '--storage-port',
      '0',
      '--rtmp-port',
      '0',
      '--data',
      data,
      '--test-hooks',
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`demo exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const service = /API (\S+) storage (\S+) rtmp (\S+)/.exec(line);
      if (service)
        [process.env.SERVICE_URL, process.env.STORAGE_URL, process.env.RTMP_URL] = [service[1], service[2], service[3]];
      // Every host of the storage origin (--storage-hosts), comma-separated: chunk links alternate over them.
      const storageHosts = / storage-hosts (\S+)/.exec(line);
      if (storageHosts) process.env.STORAGE_URLS = storageHosts[1];
      const demo = /^Demo: (\S+)/.exec(line);
      if (demo) {
        process.env.DEMO_URL = demo[1];
        resolve();
      }
    });
  });
  process.env.SERVICE_DATA = data;
  // A key of the demo organization, as its owner gets one from the dashboard: for what browser tokens may not do.
  process.env.SERVICE_KEY = execFileSync(
    process.execPath,
    ['--import', 'tsx', 'service/main.ts', 'token', '--org', 'demo', '--data', data],
    { cwd: root, encoding: 'utf8' },
  ).trim();
  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(data, { recursive: true, force: true });
  };
}
