import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { push } from '../helpers/live.js';
import { amf0, chunk, command, handshake, rtmpSocket, type Amf } from '../helpers/rtmp.js';
import { mulberry32 } from '../helpers/random.js';
import { ingestPid, startWithToken, until, type RunningService } from '../helpers/service.js';

/**
 * Seeded fuzzing of what strangers reach (the hardening issue, point 7): the RTMP port, and every route of
 * /openapi.json. Bounded in count and time; the seed is in the suite's name, and FUZZ_SEED replays it.
 * Afterwards: no 5xx, the service and its ingest process still run, and a real publish still records.
 */
// A fixed seed by default, so a run is the same run everywhere; FUZZ_SEED=random (or a number) explores further.
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 1_000_000 : Number(process.env.FUZZ_SEED || 20_261_123);

/** Seeded random inputs. */
function random(seed: number) {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  const text = () =>
    pick([
      '',
      'live',
      'lv_x',
      '\u0000',
      '%E0%A4%A',
      'é'.repeat(int(40)),
      '../../etc/passwd',
      'x'.repeat(int(3000)),
      String(int(1e9)),
    ]);
  const value = (depth = 0): unknown => {
    switch (int(depth > 2 ? 6 : 9)) {
      case 0:
        return null;
      case 1:
        return int(2) === 0;
      case 2:
        return pick([0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 10_001, 86_401]);
      case 3:
      case 4:
        return text();
      case 5:
        return pick(['2026-11-23T10:00:00Z', 'yesterday', 'upload', 'clip', 'video-ready']);
      case 6:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: int(5) }, () => [
            pick([
              'url',
              'events',
              'key',
              'chunkId',
              'chunks',
              'eTag',
              'from',
              'duration',
              'scope',
              'user',
              'live_stream_id',
              'ttl_seconds',
              'name',
              'file_name',
              text(),
            ]),
            value(depth + 1),
          ]),
        );
    }
  };
  return { next, int, pick, bytes, text, value };
}

describe(`fuzzing (seed ${SEED})`, () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  const workerPid = () => ingestPid(service);

  it('the RTMP port takes 2,000 seeded random and truncated messages: nothing exits, and a publish still records', async () => {
    const r = random(SEED);
    const worker = await workerPid();
    const valid = (): Buffer =>
      r.pick([
        () => command('connect', 1, { app: r.pick(['live', '', 'x']), tcUrl: r.pick([service.rtmp, '', 'rtmp://']) }),
        () => command('connect', r.int(5), r.value() as Amf),
        () => command('createStream', r.int(9), null),
        () => command('publish', r.int(9), null, r.value() as Amf, r.pick(['live', 'record', ''])),
        () => command(r.text(), r.int(9), r.value() as Amf, r.value() as Amf),
        () => chunk(r.pick([1, 2, 3, 4, 5, 6, 8, 9, 15, 17, 18, 19, 20, 22]), r.bytes(r.int(400)), r.int(3)),
        () => chunk(r.int(256), amf0(r.text()), r.int(1e6), r.int(0xffffff)),
      ])();
    const deadline = Date.now() + 90_000;
    let sent = 0;
    while (sent < 2_000 && Date.now() < deadline) {
      const socket = await rtmpSocket(service.rtmp);
      socket.on('error', () => {});
      try {
        if (r.int(10) > 0) await Promise.race([handshake(socket), new Promise((resolve) => setTimeout(resolve, 500))]);
        else socket.write(r.bytes(r.int(3000)));
        for (let i = 0; i < 10; i++, sent++) {
          const message = r.int(3) === 0 ? r.bytes(1 + r.int(300)) : valid();
          socket.write(r.int(4) === 0 ? message.subarray(0, r.int(message.length)) : message);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      } catch {
        /* closed on us: fine */
      } finally {
        socket.destroy();
      }
    }
    assert.ok(sent >= 2_000, `sent ${sent} messages in the time allowed`);
    assert.equal(service.process.exitCode, null, 'the service runs');
    assert.equal(await workerPid(), worker, 'the ingest process never died');
    const { body: stream } = await service.call('POST', '/live_streams', { token, body: {} });
    assert.equal(await push(stream.ingest.url, 3), 0);
    await until('the recording', async () =>
      (await service.call('GET', `/live_streams/${stream._id}/temporary_recordings`, { token })).body[0]?.duration >= 2
        ? true
        : undefined,
    );
  });

  it('every route of /openapi.json answers random bodies and parameters without a 5xx', async () => {
    const r = random(SEED + 1);
    const { body: doc } = await service.call('GET', '/openapi.json');
    const upload = (await service.call('POST', '/tokens', { token, body: {} })).body.token as string;
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => !path.startsWith('/__test__'))
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ['get', 'post', 'delete'].includes(m))
          .map((method) => ({ path, method: method.toUpperCase() })),
      );
    assert.ok(operations.length >= 25, `${operations.length} operations`);
    const deadline = Date.now() + 120_000;
    let calls = 0;
    for (const { path, method } of operations) {
      for (let i = 0; i < 30 && Date.now() < deadline; i++, calls++) {
        const concrete = path.replace(/\{[^}]+\}/g, () =>
          encodeURIComponent(r.pick(['0123456789abcdef01234567', r.text(), '%', '..', 'index.m3u8'])).replace(
            /%25/g,
            r.pick(['%25', '%']),
          ),
        );
        const body =
          method === 'POST'
            ? r.int(5) === 0
              ? r.pick(['{', 'null', '[]', '"x"', '{"a":'.repeat(50)])
              : JSON.stringify(r.value())
            : undefined;
        const auth = r.pick([token, upload, null, 'Bearer nonsense']);
        const res = await fetch(service.api + concrete, {
          method,
          headers: {
            ...(auth ? { authorization: auth.startsWith('Bearer') ? auth : `Bearer ${auth}` } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body,
        });
        await res.arrayBuffer();
        assert.ok(res.status < 500, `${method} ${concrete} ${body?.slice(0, 200)} → ${res.status}`);
      }
    }
    assert.ok(calls >= 700, `${calls} calls in the time allowed`);
    assert.equal(service.process.exitCode, null);
  });
});
