import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Recorder } from '../../service/live/recorder.js';
import { push } from '../helpers/live.js';
import { chunk, closedWithin, command, handshake, rtmpSocket, strangers } from '../helpers/rtmp.js';
import { ingestPid, startWithToken, stillServes, until, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

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

/** A connection from `localAddress` that got through the handshake and sent a well-formed `connect`. */
async function connected(service: RunningService, localAddress: string): Promise<Socket> {
  const socket = await rtmpSocket(service.rtmp, localAddress);
  await handshake(socket);
  socket.write(command('connect', 1, { app: 'live', tcUrl: service.rtmp, flashVer: 'FMLE/3.0', type: 'nonprivate' }));
  return socket;
}

/** Milliseconds from now until the service closes `socket`, or Infinity after `ms`. */
function closesIn(socket: Socket, ms: number): Promise<number> {
  const from = performance.now();
  return closedWithin(socket, ms).then((closed) => (closed ? performance.now() - from : Infinity));
}

/** Its one recording, once stopped (the publish ended and its recorder finished). */
const stopped = async (live: Awaited<ReturnType<typeof stream>>) =>
  until('the recording to stop', async () => {
    const all = await live.recordings();
    return all[0]?.status === 'stopped' ? all : undefined;
  });

/**
 * Kills the ingest's process; resolves, once another one takes connections, with its pid and how long after the
 * kill it was started (read from the process list every 100 ms or so: never less than the service waited).
 */
async function killIngest(service: RunningService): Promise<{ pid: number; waitedMs: number }> {
  const old = (await ingestPid(service))!;
  const since = performance.now();
  process.kill(old, 'SIGKILL');
  const pid = await until(
    'another ingest process',
    async () => {
      const now = await ingestPid(service);
      return now !== undefined && now !== old ? now : undefined;
    },
    60_000,
  );
  const waitedMs = performance.now() - since;
  await until('the ingest to listen again', () =>
    rtmpSocket(service.rtmp).then(
      (s) => (s.destroy(), true),
      () => undefined,
    ),
  );
  return { pid, waitedMs };
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

  it('costs only the ingest when its process dies: restarted, and a returning publisher continues its recording', async () => {
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
});

describe('RTMP ingest: the half kept for publishers', () => {
  // Every deadline is far away: only the cap on connections that have not published can close a socket here,
  // however slowly a loaded machine accepts them.
  let service: RunningService;
  let token: string;
  before(
    async () =>
      ({ service, token } = await startWithToken('acme', {
        args: [
          '--rtmp-max-connections',
          '50',
          '--rtmp-idle-seconds',
          '60',
          '--rtmp-connect-within-seconds',
          '60',
          '--rtmp-publish-within-seconds',
          '60',
        ],
      })),
  );
  after(() => service.stop());

  it('lets connections that have not published hold half its connections, and still takes a publish', async () => {
    // 30 addresses × 10: past the 8 each address may hold, and far past the 25 places (half of 50) for them all.
    const sockets = (
      await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          rtmpSocket(service.rtmp, `127.0.1.${1 + (i % 30)}`).catch(() => undefined),
        ),
      )
    ).filter((s) => s !== undefined);
    const open = () => sockets.filter((s) => !s.destroyed && !s.readableEnded).length;
    sockets.forEach((s) => s.on('error', () => undefined).resume());
    try {
      await until('at most half of --rtmp-max-connections 50 to be held', async () =>
        open() <= 25 ? true : undefined,
      );
      assert.ok(open() > 0, 'the half is held, not emptied');
      await stillServes(service, token);
      // While strangers hold their half, a publisher still gets in (it closes the oldest of them).
      const live = await stream(service, token);
      assert.equal(await push(live.ingest.url, 2), 0, 'the publish is taken');
      assert.equal((await live.recordings()).length, 1);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('RTMP ingest: the idle rule alone', () => {
  // The connect and publish deadlines are a minute away: only the 2 s idle rule can close a socket in this test.
  let service: RunningService;
  before(
    async () =>
      ({ service } = await startWithToken('acme', {
        args: [
          '--rtmp-idle-seconds',
          '2',
          '--rtmp-connect-within-seconds',
          '60',
          '--rtmp-publish-within-seconds',
          '60',
        ],
      })),
  );
  after(() => service.stop());

  it('closes a connection once it has sent nothing for --rtmp-idle-seconds, and keeps one that goes on talking', async () => {
    const talking = await connected(service, '127.0.0.2');
    const pings = setInterval(() => talking.write(command('_checkbw', 0, null)), 500);
    try {
      const silent = await connected(service, '127.0.0.3');
      const ms = await closesIn(silent, 20_000);
      // Not at once (no other rule closes it), and long before the one-minute deadlines: 20 s is ten idle periods.
      assert.ok(ms >= 1_500 && ms < 20_000, `the silent connection closed after ${ms} ms`);
      // The one that talks has been open longer than the silent one was, and stays open for another idle period and a half.
      assert.equal(await closedWithin(talking, 3_000), false, 'the connection that keeps talking is still open');
    } finally {
      clearInterval(pings);
      talking.destroy();
    }
  });
});

describe('RTMP ingest: strangers at the default limits', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('600 idle sockets from one address do not keep a real publisher from recording', async () => {
    const live = await stream(service, token);
    // Silent and half-handshaken, each opened again when the service closes it, as a stranger would.
    const flood = strangers(service.rtmp, ['127.0.0.2'], 600, ['silent', 'half']);
    try {
      await until('the 600 sockets to be opened', async () => (flood.opened() >= 600 ? true : undefined));
      assert.equal(await push(live.ingest.url, 6), 0, 'the publisher was taken and ran its 6 s, never cut');
      const [recording] = await stopped(live);
      assert.ok(recording.duration >= 4, `its recording has its segments: ${recording.duration} s`);
      assert.ok(flood.opened() > 600, 'the stranger kept opening sockets all along');
    } finally {
      flood.stop();
    }
    await stillServes(service, token);
  });

  it('refuses only the publish whose recording cannot be set up: its publisher is cut, the ingest and other streams go on', async () => {
    const broken = await stream(service, token);
    assert.equal(await push(broken.ingest.url, 3), 0);
    const [first] = await stopped(broken);
    // The next publish inside the merge window is recorded to part2/ of the same recording: a file is in its way.
    await writeFile(join(service.data, 'recordings', first._id, 'part2'), 'not a folder');
    const pid = await ingestPid(service);

    assert.notEqual(await push(broken.ingest.url, 20), 0, 'the publisher was cut, not left sending to nowhere');
    const [again] = await stopped(broken);
    assert.equal(again._id, first._id);
    assert.equal((await broken.recordings()).length, 1);
    assert.equal(await ingestPid(service), pid, 'the ingest process went on');

    const healthy = await stream(service, token);
    assert.equal(await push(healthy.ingest.url, 3), 0);
    assert.ok((await stopped(healthy))[0].duration >= 2, 'another stream still records');
    assert.equal(await ingestPid(service), pid);

    // The refused publish left an empty part: the recording completes with what was recorded.
    await service.advanceClock(MINUTE + 1_000);
    const complete = await until(
      'the recording to complete',
      async () => (await broken.recordings()).find((r) => r.status === 'complete'),
      60_000,
    );
    assert.ok(complete.duration >= 2 && complete.duration <= 4, `its first publish: ${complete.duration} s`);
  });
});

describe('RTMP ingest: connections that have not published', () => {
  let service: RunningService;
  let token: string;
  before(
    async () =>
      ({ service, token } = await startWithToken('acme', {
        args: [
          ...['--rtmp-max-connections', '40', '--rtmp-unpublished-per-address', '4'],
          ...['--rtmp-connect-within-seconds', '3', '--rtmp-publish-within-seconds', '30', '--rtmp-idle-seconds', '30'],
          ...['--rtmp-restart-max-seconds', '8'],
        ],
      })),
  );
  after(() => service.stop());

  it('takes 4 from one address at once; the next of that address is closed while another address connects', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => connected(service, '127.0.0.2')));
    const fifth = await rtmpSocket(service.rtmp, '127.0.0.2');
    await assert.rejects(handshake(fifth), /closed during the handshake/, 'the fifth of 127.0.0.2 is closed');
    const other = await connected(service, '127.0.0.3');
    assert.ok(
      [...held, other].every((s) => !s.destroyed),
      'the four and the other address are still open',
    );

    // A connection that publishes holds no stranger's place: ffmpeg is the fourth of 127.0.0.1, then one more is taken.
    const live = await stream(service, token);
    const mine = await Promise.all(Array.from({ length: 3 }, () => connected(service, '127.0.0.1')));
    const publisher = push(live.ingest.url, 6);
    await until('the publish', async () => ((await live.recordings())[0]?.status === 'live' ? true : undefined));
    const fourth = await connected(service, '127.0.0.1');
    assert.equal(await publisher, 0);
    for (const s of [...held, other, ...mine, fourth]) s.destroy();
  });

  it('closes a connection that has not finished the handshake and connect within 3 s, and keeps one that has', async () => {
    const half = await rtmpSocket(service.rtmp, '127.0.0.4');
    half.write(Buffer.concat([Buffer.from([3]), Buffer.alloc(700, 7)]));
    const halfClosed = closesIn(half, 15_000);
    const noConnect = await rtmpSocket(service.rtmp, '127.0.0.4');
    const noConnectClosed = closesIn(noConnect, 15_000);
    await handshake(noConnect);
    const ready = await connected(service, '127.0.0.4');
    // 3 s from the service's accept; margins for a loaded machine, far from the 30 s of the other deadlines.
    for (const [what, closed] of [
      ['half a handshake', await halfClosed],
      ['a handshake without connect', await noConnectClosed],
    ] as const)
      assert.ok(closed >= 2_500 && closed < 15_000, `${what}: closed after ${Math.round(closed)} ms`);
    assert.equal(await closedWithin(ready, 3_000), false, 'a connection that sent connect waits for its publish');
    ready.destroy();
  });

  it('keeps half its connections for publishers: strangers from many addresses do not keep a publisher out', async () => {
    const live = await stream(service, token);
    // 10 addresses × 4 connected sockets: as many as --rtmp-max-connections, each opened again 5 s after it is closed.
    const addresses = Array.from({ length: 10 }, (_, i) => `127.0.0.${10 + i}`);
    const flood = strangers(service.rtmp, addresses, 4, ['connected'], 5_000);
    try {
      await until('the 40 sockets to be opened', async () => (flood.opened() >= 40 ? true : undefined));
      assert.equal(await push(live.ingest.url, 4), 0, 'the publisher was taken and ran its 4 s, never cut');
      assert.ok((await stopped(live))[0].duration >= 2, 'and recorded');
    } finally {
      flood.stop();
    }
  });

  it('restarts its process with back-off: 1 s, doubling to --rtmp-restart-max-seconds, from 1 s again after a long life', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) waits.push((await killIngest(service)).waitedMs);
    const [one, two, four, eight, capped] = waits as [number, number, number, number, number];
    assert.ok(
      one >= 1_000 && two >= 2_000 && four >= 4_000 && eight >= 8_000,
      `waits double: ${waits.map(Math.round).join(', ')} ms`,
    );
    assert.ok(capped >= 8_000 && capped < 12_000, `and stay at the 8 s cap: ${Math.round(capped)} ms`);
    // Up longer than the cap: the next death is not part of a loop.
    await new Promise((r) => setTimeout(r, 9_000));
    const { waitedMs } = await killIngest(service);
    assert.ok(waitedMs >= 1_000 && waitedMs < 5_000, `after a long life, 1 s again: ${Math.round(waitedMs)} ms`);
    const live = await stream(service, token);
    assert.equal(await push(live.ingest.url, 3), 0);
  });
});

describe('RTMP ingest: a process that keeps dying', () => {
  let service: RunningService;
  let token: string;
  before(
    async () => ({ service, token } = await startWithToken('acme', { args: ['--rtmp-restart-max-seconds', '0.25'] })),
  );
  after(() => service.stop());

  it('is restarted however often it dies: killed 25 times in a row, it still comes back and records', async () => {
    // The rule this replaces gave up after 20 deaths in a minute (here a death and its restart take a second or two).
    for (let i = 0; i < 25; i++) await killIngest(service);
    const live = await stream(service, token);
    assert.equal(await push(live.ingest.url, 3), 0);
    assert.ok((await stopped(live))[0].duration >= 2);
    await stillServes(service, token);
  });
});

describe('RTMP ingest: a recorder that cannot start', () => {
  it('says so when its folder cannot be made or ffmpeg cannot be started, so that its publish is cut', async () => {
    const dir = await tempDir('recorder-');
    await writeFile(join(dir, 'part1'), 'not a folder');
    await assert.rejects(new Recorder('test').start(join(dir, 'part1'), true), { code: 'EEXIST' });
    const path = process.env.PATH;
    process.env.PATH = dir; // no ffmpeg in it
    try {
      await assert.rejects(new Recorder('test').start(join(dir, 'part2'), true), { code: 'ENOENT' });
    } finally {
      process.env.PATH = path;
    }
  });
});
