/**
 * The local video service's command line.
 *   npm run service -- [--port 4500] [--storage-port 4501] [--data DIR] [--test-hooks]
 *   npm run service -- token --org NAME [--environment production|sandbox] [--data DIR]
 *   npm run service -- revoke-token TOKEN [--data DIR]
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ENVIRONMENTS, type Environment } from '../../src/api/types.js';
import { startService } from './app.js';
import { systemClock } from './clock.js';
import { openDb } from './db.js';
import { Accounts } from './domain/accounts.js';
import { mkdirSync } from 'node:fs';

const DEFAULT_DATA = fileURLToPath(new URL('../../.data/service', import.meta.url));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string', default: '4500' },
    'storage-port': { type: 'string', default: '4501' },
    host: { type: 'string', default: '127.0.0.1' },
    data: { type: 'string', default: DEFAULT_DATA },
    'test-hooks': { type: 'boolean', default: false },
    org: { type: 'string' },
    environment: { type: 'string', default: 'production' },
  },
});

function fail(message: string): never {
  console.error(`video service: ${message}`);
  process.exit(2);
}

function port(flag: 'port' | 'storage-port'): number {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < 0 || n > 65535) fail(`--${flag} must be a port number from 0 to 65535; got ${JSON.stringify(values[flag])}.`);
  return n;
}

function accounts(): Accounts {
  mkdirSync(values.data, { recursive: true });
  return new Accounts(openDb(values.data), systemClock());
}

const [command, argument] = positionals;
if (command === 'token') {
  if (!values.org) fail('token needs --org NAME.');
  if (!(ENVIRONMENTS as readonly string[]).includes(values.environment)) {
    fail(`--environment must be one of ${ENVIRONMENTS.join(', ')}; got ${JSON.stringify(values.environment)}.`);
  }
  console.log(accounts().createToken(values.org, values.environment as Environment));
} else if (command === 'revoke-token') {
  if (!argument) fail('revoke-token needs the token.');
  console.log(accounts().revokeToken(argument) ? 'revoked' : 'no such live token');
} else if (command !== undefined) {
  fail(`unknown command ${JSON.stringify(command)}; use "token" or "revoke-token", or no command to start the service.`);
} else {
  for (const tool of ['ffmpeg', 'ffprobe']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch {
      fail(`${tool} is not installed. Install the Debian package "ffmpeg" (apt-get install ffmpeg), or run "npm start".`);
    }
  }
  const service = await startService({
    dataDir: values.data,
    host: values.host,
    port: port('port'),
    storagePort: port('storage-port'),
    testHooks: values['test-hooks'],
  }).catch((err: NodeJS.ErrnoException) => fail(err.code === 'EADDRINUSE' ? `a port is in use (${err.message}); pick another with --port / --storage-port.` : String(err)));
  console.log(`Video service ready: API ${service.apiOrigin} storage ${service.storageOrigin} data ${values.data}${values['test-hooks'] ? ' (test hooks on)' : ''}`);
  const stop = () => void service.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
