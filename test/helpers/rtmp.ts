import { connect, type Socket } from 'node:net';

/**
 * Raw RTMP for hostile-input tests: a handshake, and chunks carrying whatever a stranger might send.
 * Enough of the protocol to reach node-media-server's parser: C0+C1, C2, and type-0 chunks on csid 3.
 * `localAddress` (any of 127.0.0.0/8, all loopback on Linux) makes the socket another client than ffmpeg's.
 */
export function rtmpSocket(url: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(url.replace(/^rtmp:/, 'http:'));
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** C0 (version 3) and C1 (1536 bytes), then, once S0+S1+S2 arrived, C2. Resolves when the handshake is done. */
export async function handshake(socket: Socket): Promise<void> {
  socket.write(Buffer.concat([Buffer.from([3]), Buffer.alloc(1536, 7)]));
  await new Promise<void>((resolve, reject) => {
    let got = 0;
    const onData = (d: Buffer) => {
      got += d.length;
      if (got >= 1 + 1536 * 2) {
        socket.off('data', onData);
        socket.write(Buffer.alloc(1536, 9));
        resolve();
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error('closed during the handshake')));
  });
}

/** AMF0 values: strings, numbers, null, and objects of those. */
export type Amf = string | number | null | boolean | { [key: string]: Amf };

export function amf0(...values: Amf[]): Buffer {
  const parts: Buffer[] = [];
  const str = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const one = (v: Amf): void => {
    if (typeof v === 'number') {
      const b = Buffer.alloc(9);
      b[0] = 0;
      b.writeDoubleBE(v, 1);
      parts.push(b);
    } else if (typeof v === 'boolean') parts.push(Buffer.from([1, v ? 1 : 0]));
    else if (typeof v === 'string') parts.push(Buffer.from([2]), str(v));
    else if (v === null) parts.push(Buffer.from([5]));
    else {
      parts.push(Buffer.from([3]));
      for (const [k, val] of Object.entries(v)) {
        parts.push(str(k));
        one(val);
      }
      parts.push(Buffer.from([0, 0, 9]));
    }
  };
  values.forEach(one);
  return Buffer.concat(parts);
}

/** One message as a type-0 chunk on csid 3 (payloads up to the default chunk size of 128 bytes split into type-3 chunks). */
export function chunk(type: number, payload: Buffer, streamId = 0, declaredLength = payload.length): Buffer {
  const header = Buffer.alloc(12);
  header[0] = 3; // fmt 0, csid 3
  header.writeUIntBE(0, 1, 3); // timestamp
  header.writeUIntBE(declaredLength, 4, 3);
  header[7] = type;
  header.writeUInt32LE(streamId, 8);
  const pieces: Buffer[] = [header];
  for (let i = 0; i < payload.length; i += 128) {
    if (i > 0) pieces.push(Buffer.from([0xc3]));
    pieces.push(payload.subarray(i, i + 128));
  }
  return Buffer.concat(pieces);
}

/** An AMF0 command message (type 20). */
export const command = (...values: Amf[]) => chunk(20, amf0(...values));

/** Resolves when the socket closes (the server cut it), or with false after `ms`. */
export function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => (clearTimeout(timer), resolve(true)));
  });
}

/**
 * Strangers' connections that never publish, kept up as a stranger would: `perAddress` of them from each of
 * `localAddresses`, each opened again `reopenMs` after the service closes it. Each sends nothing (`silent`), half
 * a handshake (`half`), or a handshake and a `connect` (`connected`, which holds a connection longest).
 */
export function strangers(
  url: string,
  localAddresses: string[],
  perAddress: number,
  kinds: ('silent' | 'half' | 'connected')[],
  reopenMs = 2_000,
) {
  const open = new Set<Socket>();
  let stopped = false;
  let opened = 0;
  const keep = async (localAddress: string, kind: (typeof kinds)[number]): Promise<void> => {
    if (stopped) return;
    const socket = await rtmpSocket(url, localAddress).catch(() => undefined);
    const again = () => setTimeout(() => void keep(localAddress, kind), reopenMs);
    if (!socket) return void again();
    if (stopped) return void socket.destroy();
    opened++;
    open.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => (open.delete(socket), again()));
    if (kind === 'half') socket.write(Buffer.concat([Buffer.from([3]), Buffer.alloc(700, 7)]));
    if (kind === 'connected')
      await handshake(socket).then(
        () => socket.write(command('connect', 1, { app: 'live', tcUrl: url, flashVer: 'FMLE/3.0' })),
        () => {},
      );
  };
  localAddresses.forEach((address) =>
    Array.from({ length: perAddress }, (_, i) => void keep(address, kinds[i % kinds.length]!)),
  );
  return {
    /** How many of them are open now, and how many were opened in all. */
    open: () => open.size,
    opened: () => opened,
    stop() {
      stopped = true;
      for (const socket of open) socket.destroy();
    },
  };
}
