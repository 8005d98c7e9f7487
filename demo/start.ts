/**
 * `npm start`: the local video service, the integrator backend and the demo page, on 127.0.0.1.
 *   tsx demo/start.ts [--port PAGE] [--service-port API] [--storage-port STORAGE] [--rtmp-port RTMP] [--data DIR] [--test-hooks]
 * The default ports and data directory are service/ports.ts's, the service's own. Port 0 picks free ports (the
 * end-to-end tests do that). Ctrl+C stops everything. The data directory is outside the repository; the page server
 * never serves it.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createServer } from 'vite';
import { startBackend } from './backend/server.js';
import { startService } from '../service/app.js';
import { DEFAULT_DATA, DEFAULT_PORTS, portInUse } from '../service/ports.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: String(DEFAULT_PORTS.page) },
    'service-port': { type: 'string', default: String(DEFAULT_PORTS.api) },
    'storage-port': { type: 'string', default: String(DEFAULT_PORTS.storage) },
    'rtmp-port': { type: 'string', default: String(DEFAULT_PORTS.rtmp) },
    data: { type: 'string', default: DEFAULT_DATA },
    'test-hooks': { type: 'boolean', default: false },
  },
});

const ports = {
  port: Number(values.port),
  'service-port': Number(values['service-port']),
  'storage-port': Number(values['storage-port']),
  'rtmp-port': Number(values['rtmp-port']),
};
/** A port already taken (a second npm start, say) is one line that names it and its flag, not a stack trace. */
function failed(err: unknown): never {
  console.error(`npm start: ${portInUse(err, ports) ?? (err as Error).message}`);
  process.exit(1);
}

const service = await startService({
  dataDir: values.data,
  port: Number(values['service-port']),
  storagePort: Number(values['storage-port']),
  rtmpPort: Number(values['rtmp-port']),
  testHooks: values['test-hooks'],
  // The demo is local development: webhooks to a receiver on this machine are fine here.
  allowPrivateNetwork: true,
}).catch(failed);
console.log(service.readyLine(values.data));
const backend = await startBackend({
  serviceUrl: service.apiOrigin,
  serviceToken: await service.accounts.createToken('demo'),
});
console.log(`Integrator backend: ${backend.url}`);
/** The data directory as a glob of itself (its name may hold glob characters): denied, wherever it is. */
const dataGlobs = [...new Set([resolve(values.data), realpathSync(values.data)])]
  .map((dir) => dir.replace(/[\\*?!+@()[\]{}|]/g, '\\$&'))
  .flatMap((dir) => [dir, `${dir}/**`]);
const page = await createServer({
  configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
  server: {
    port: Number(values.port),
    strictPort: values.port !== '0',
    // The page's Host goes along (Vite's short form would put the backend's there): the backend checks a POST's
    // Origin against it.
    proxy: { '/api': { target: backend.url } },
    fs: { deny: dataGlobs },
  },
  plugins: [
    {
      name: 'demo-sign-in',
      // After Vite's own middleware, just before it answers with a page: loading a page signs the visitor in.
      configureServer: (server) => () =>
        server.middlewares.use((req, res, next) => {
          if (/\.html$/.test(new URL(req.url ?? '/', 'http://localhost').pathname)) backend.signIn(req, res);
          next();
        }),
    },
  ],
  logLevel: 'warn',
});
await page.listen().catch(async (err: unknown) => {
  backend.server.close();
  await service.close();
  failed(err);
});
console.log(`Demo: ${page.resolvedUrls!.local[0]}`);
console.log(`Live: ${new URL('live.html', page.resolvedUrls!.local[0]).href}`);

const stop = async () => {
  await page.close();
  backend.server.close();
  await service.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
