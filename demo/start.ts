/**
 * `npm start`: the local video service, the integrator backend and the demo page, on 127.0.0.1.
 *   tsx demo/start.ts [--port 4700] [--service-port 4500] [--storage-port 4501] [--rtmp-port 1935] [--data DIR] [--test-hooks]
 * Port 0 picks free ports (the end-to-end tests do that). Ctrl+C stops everything.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createServer } from 'vite';
import { startBackend } from './backend/server.js';
import { startService } from './service/app.js';
import { portInUse } from './service/ports.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4700' },
    'service-port': { type: 'string', default: '4500' },
    'storage-port': { type: 'string', default: '4501' },
    'rtmp-port': { type: 'string', default: '1935' },
    data: { type: 'string', default: fileURLToPath(new URL('../.data/service', import.meta.url)) },
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
  serviceToken: service.accounts.createToken('demo'),
});
console.log(`Integrator backend: ${backend.url}`);
const page = await createServer({
  configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
  server: { port: Number(values.port), strictPort: values.port !== '0', proxy: { '/api': backend.url } },
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
