import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { push } from '../helpers/live.js';
import { chunk, closedWithin, command, handshake, rtmpSocket } from '../helpers/rtmp.js';
import { ingestPid, startWithToken, stillServes, until, type RunningService } from '../helpers/service.js';

/**
 * The RTMP ingest against strangers (the hardening issue, point 1): no input stops or stalls the API, the
 * storage origin, or another stream's recording.
 */
const MINUTE = 60_000;

async function stream(service: RunningService, token: string) {
  const { body } = await service.call('POST', '/live_streams', { token, body: {} });
  const recordings = async () =>
    (await service.call('GET', `/live_streams/${body._id}/temporary_recordings`, { token })).body as any[];
  return { ...body, recordings } as {
    _id: string;
    stream_key: string;
    ingest: { url: string };
    recordings: typeof recordings;
  };
}

describe('RTMP ingest: malformed messages', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  /** A connection that got through the handshake (and, with `connected`, a well-formed connect). */
  const opened = async (connected = false): Promise<Socket> => {
    const socket = await rtmpSocket(service.rtmp);
    await handshake(socket);
    if (connected)
      socket.write(
        command('connect', 1, { app: 'live', tcUrl: service.rtmp, flashVer: 'FMLE/3.0', type: 'nonprivate' }),
      );
    return socket;
  };

  it('closes only the connection whose message cannot be read; another stream records on, the API and storage serve', async () => {
    const live = await stream(service, token);
    const publisher = push(live.ingest.url, 14);
    await until('the other stream to record', async () =>
      (await live.recordings())[0]?.duration >= 2 ? true : undefined,
    );

    const hostile: [string, () => Promise<Socket>, Buffer][] = [
      ['connect without a command object', () => opened(), command('connect', 1, null)],
      ['connect without tcUrl', () => opened(), command('connect', 1, { app: 'live' })],
      ['connect whose command object is a number', () => opened(), command('connect', 1, 42)],
      [
        'publish without a name',
        () => opened(true),
        Buffer.concat([command('createStream', 2, null), command('publish', 3, null)]),
      ],
      [
        'publish with a number for a name',
        () => opened(true),
        Buffer.concat([command('createStream', 2, null), command('publish', 3, null, 12345, 'live')]),
      ],
      [
        'publish with an object for a name',
        () => opened(true),
        Buffer.concat([command('createStream', 2, null), command('publish', 3, null, { a: 1 }, 'live')]),
      ],
      ['a command that is not a string', () => opened(), chunk(20, Buffer.from([0x00, 0x40, 0, 0, 0, 0, 0, 0, 0]))],
    ];
    for (const [what, open, message] of hostile) {
      const socket = await open();
      socket.write(message);
      assert.ok(await closedWithin(socket, 15_000), `${what}: the connection is closed`);
      await stillServes(service, token);
    }
    assert.equal(await publisher, 0, 'the other publisher ran its 14 s to the end, never cut');
    const [recording] = await live.recordings();
    assert.ok(recording.duration >= 12, `one recording of it all: ${recording.duration} s`);
    assert.equal((await live.recordings()).length, 1);
  });

  it('costs only the ingest when its process dies: restarted at once, and a returning publisher continues its recording', async () => {
    const live = await stream(service, token);
    const publisher = push(live.ingest.url, 30);
    await until('recording', async () => ((await live.recordings())[0]?.duration >= 2 ? true : undefined));
    process.kill((await ingestPid(service))!, 'SIGKILL');
    assert.notEqual(await publisher, 0, 'the publish was cut with the ingest');
    await stillServes(service, token);
    await until('the recording to stop', async () =>
      (await live.recordings())[0]?.status === 'stopped' ? true : undefined,
    );
    // The publisher comes back within the merge window, once the restarted ingest listens (as OBS retries).
    await until(
      'the ingest to listen again',
      async () =>
        await rtmpSocket(service.rtmp).then(
          (s) => (s.destroy(), true),
          () => undefined,
        ),
      20_000,
    );
    assert.equal(await push(live.ingest.url, 3), 0);
    const recordings = await until('the return to stop', async () => {
      const all = await live.recordings();
      return all[0]?.status === 'stopped' && all[0].duration >= 4 ? all : undefined;
    });
    assert.equal(recordings.length, 1, 'the same recording');
    const playlist = await (await fetch(recordings[0].playback.temporary_playback)).text();
    assert.equal(playlist.match(/#EXT-X-DISCONTINUITY\n/g)?.length, 1);
    await service.advanceClock(MINUTE + 1_000);
    await until(
      'complete',
      async () => ((await live.recordings())[0]?.status === 'complete' ? true : undefined),
      60_000,
    );
  });
});

describe('RTMP ingest: connections that hold on', () => {
  let service: RunningService;
  let token: string;
  before(
    async () =>
      ({ service, token } = await startWithToken('acme', {
        args: ['--rtmp-idle-seconds', '1', '--rtmp-publish-within-seconds', '3', '--rtmp-max-connections', '50'],
      })),
  );
  after(() => service.stop());

  it('closes a connection that sends nothing, one that stalls mid-message, and one that never publishes', async () => {
    const silent = await rtmpSocket(service.rtmp);
    assert.ok(await closedWithin(silent, 10_000), 'a silent connection');

    const stalled = await rtmpSocket(service.rtmp);
    await handshake(stalled);
    // A chunk header that declares 16 MiB, then a few bytes, then nothing.
    stalled.write(chunk(20, Buffer.alloc(100), 0, 0xffffff).subarray(0, 60));
    assert.ok(await closedWithin(stalled, 10_000), 'a message that never completes');

    const chatty = await rtmpSocket(service.rtmp);
    await handshake(chatty);
    chatty.write(command('connect', 1, { app: 'live', tcUrl: service.rtmp }));
    // Busy (a message every 300 ms, so never idle), and never publishing.
    const pings = setInterval(() => !chatty.destroyed && chatty.write(command('_checkbw', 0, null)), 300);
    try {
      assert.ok(await closedWithin(chatty, 10_000), 'a connection that never publishes');
    } finally {
      clearInterval(pings);
    }
    await stillServes(service, token);
  });

  it('takes at most its number of connections, and still takes a publish once they are gone', async () => {
    const sockets = await Promise.all(
      Array.from({ length: 300 }, () => rtmpSocket(service.rtmp).catch(() => undefined)),
    );
    const closed = await Promise.all(sockets.map((s) => (s ? closedWithin(s, 500) : Promise.resolve(true))));
    assert.ok(
      closed.filter(Boolean).length >= 250,
      `the connections past 50 were refused: ${closed.filter(Boolean).length} of 300 closed at once`,
    );
    await stillServes(service, token);
    for (const s of sockets) s?.destroy();
    const live = await stream(service, token);
    await until(
      'the idle ones to be gone',
      async () => ((await push(live.ingest.url, 2)) === 0 ? true : undefined),
      30_000,
    );
    assert.equal((await live.recordings()).length, 1);
  });
});
