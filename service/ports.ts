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
 * Decision: the storage origin listens on two hosts unless `--storage-hosts` says otherwise. Chromium and Firefox
 * open at most six connections to one host and port; the uploader goes up to 12 (issue 32), so two hosts are what
 * it can use, and more buy it nothing. At most 16: a typo (`--storage-hosts 100`) is refused rather than served.
 */
export const DEFAULT_STORAGE_HOSTS = 2;
export const MAX_STORAGE_HOSTS = 16;

/** `--storage-hosts` on the data directory: how many hosts, or which (each `host:port`). */
export type StorageHosts = number | HostPort[];
export interface HostPort {
  /** An address or a name; an IPv6 address without its brackets. */
  host: string;
  port: number;
}

/**
 * Where the storage origin listens: a list as it is; a count on a loopback `host` on as many loopback addresses
 * (127.0.0.1 … 127.0.0.N, all of 127.0.0.0/8 answers on Linux without setup), each on `port`; a count on any other
 * host on as many ports from `port` on. Port 0: each its own free port.
 */
export function storageListens(hosts: StorageHosts, host: string, port: number): HostPort[] {
  if (typeof hosts !== 'number') return hosts;
  const loopback = host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return Array.from({ length: hosts }, (_, i) =>
    loopback ? { host: `127.0.0.${i + 1}`, port } : { host, port: port === 0 ? 0 : port + i },
  );
}

/** `http://host:port`, an IPv6 address in brackets. */
export const httpOrigin = ({ host, port }: HostPort) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

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
 * command-line flag to the port (or ports) it asked for. Undefined when `err` is not about a taken port.
 */
export function portInUse(err: unknown, flags: Record<string, number | number[]>): string | undefined {
  const e = err as { code?: string; port?: number; message?: string } | undefined;
  const port = e?.code === 'EADDRINUSE' ? e.port : Number(/Port (\d+) is already in use/.exec(e?.message ?? '')?.[1]);
  if (!port) return undefined;
  const flag = Object.entries(flags).find(([, asked]) => [asked].flat().includes(port))?.[0];
  return `port ${port} is already in use (another npm start or npm run service, perhaps)${flag ? `; stop that, or choose another port with --${flag}` : ''}.`;
}
