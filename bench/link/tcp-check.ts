/**
 * The link's self-check (emulator.ts `checkLink`), run inside the namespaces:
 *   tcp-check.ts sink ADDRESS                 listens, echoes a lone 'p', prints its port; at the end of a
 *                                             transfer answers with the rate of its last three quarters
 *                                             (past slow start), in Mbit/s
 *   tcp-check.ts send ADDRESS PORT BYTES      20 one-byte echoes, then BYTES (if any) as fast as TCP goes;
 *                                             prints {mbit, rttMs, congestion} (congestion as `ss` saw it)
 */
import { execFileSync } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';

const [mode, address, port, bytes] = process.argv.slice(2);
const PING = 0x70;

if (mode === 'sink') {
  const server = createServer((socket) => {
    const arrivals: [bytes: number, ms: number][] = [];
    let received = 0;
    socket.on('data', (data) => {
      if (data.length === 1 && data[0] === PING) return void socket.write(data);
      received += data.length;
      arrivals.push([received, performance.now()]);
    });
    socket.on('end', () => {
      const [from, at] = arrivals.find(([n]) => n >= received / 4) ?? [0, 0];
      const [to, end] = arrivals.at(-1) ?? [0, 0];
      socket.end(String(((to - from) * 8) / (end - at) / 1000));
    });
  });
  server.listen(0, address, () => console.log((server.address() as AddressInfo).port));
} else {
  const socket = connect(Number(port), address!);
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once('connect', resolve));
  const rtts: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    socket.write(Buffer.from([PING]));
    await new Promise((resolve) => socket.once('data', resolve));
    rtts.push(performance.now() - start);
  }
  const congestion = /\b(cubic|bbr|reno)\b/.exec(execFileSync('ss', ['-tin', 'dst', address!], { encoding: 'utf8' }));
  const block = Buffer.alloc(1 << 20, 1);
  for (let sent = 0; sent < Number(bytes); sent += block.length)
    if (!socket.write(block)) await new Promise((resolve) => socket.once('drain', resolve));
  socket.end();
  const mbit = await new Promise<number>((resolve) => socket.once('data', (d) => resolve(Number(d.toString()))));
  rtts.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      mbit,
      rttMs: rtts[rtts.length >> 1],
      congestion: congestion?.[1] ?? 'unknown',
    }),
  );
}
