import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Where `npm run service` (main.ts) and `npm start` (demo/start.ts) run unless a flag says otherwise: the address
 * and ports they listen on, and the data directory. Port 0 picks a free port (the tests do that).
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORTS = {
  /** The API ({base_url}): `--port` of the service, `--service-port` of `npm start`. */
  api: 4500,
  /** The storage origin ({upload_url}): `--storage-port`. */
  storage: 4501,
  /** RTMP ingest: `--rtmp-port`. */
  rtmp: 1935,
  /** The demo pages of `npm start`: its `--port`. */
  page: 4700,
} as const;

/**
 * The database and the media live in the user's data directory (XDG), outside the repository, so that nothing
 * serving the repository (a dev server, a static server) can hand out the signing secret, the stream keys or the
 * videos.
 */
export const DEFAULT_DATA = join(
  process.env.XDG_DATA_HOME && isAbsolute(process.env.XDG_DATA_HOME)
    ? process.env.XDG_DATA_HOME
    : join(homedir(), '.local', 'share'),
  'video-uploader',
  'service',
);

/**
 * The one line for a port that is already taken: which port, and the flag that chooses another. `flags` maps each
 * command-line flag to the port it asked for. Undefined when `err` is not about a taken port.
 */
export function portInUse(err: unknown, flags: Record<string, number>): string | undefined {
  const e = err as { code?: string; port?: number; message?: string } | undefined;
  const port = e?.code === 'EADDRINUSE' ? e.port : Number(/Port (\d+) is already in use/.exec(e?.message ?? '')?.[1]);
  if (!port) return undefined;
  const flag = Object.entries(flags).find(([, asked]) => asked === port)?.[0];
  return `port ${port} is already in use (another npm start or npm run service, perhaps)${flag ? `; stop that, or choose another port with --${flag}` : ''}.`;
}
