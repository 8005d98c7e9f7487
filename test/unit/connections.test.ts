import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  ConnectionController,
  ENDGAME_EVERY_MS,
  MEASURE_MS,
  PER_HOST,
  SETTLE_MS,
  START_CONNECTIONS,
} from '../../src/upload/connections.js';

const MB = 1_000_000;
const STEP_MS = 50;
const FILE = 'session-1';

interface Link {
  /** Storage hosts: chunk N's link names host (N-1) mod hosts, as the service hands them out. */
  hosts: number;
  /** What loss leaves one TCP connection, bytes per second; `shareAt` instead, when it changes with the time. */
  share: number;
  shareAt?: (ms: number) => number;
  /** What the link carries for all connections together, bytes per second. */
  capacity: number;
  /** Time each chunk PUT holds its turn before its first byte (preflight, request, the answer at its end). */
  gapMs?: number;
  chunks: number;
  chunkBytes: number;
  fixed?: number | null;
  ceiling?: number;
  seconds: number;
}

/**
 * One file's upload on a clock of its own, as @uppy/aws-s3 runs it: chunks start in order while Uppy's queue
 * (`queueLimit`) has room, each waits for its turn in the controller, sends its share of the link, and ends.
 */
async function simulate(link: Link) {
  let clock = 0;
  const connections = new ConnectionController(
    { fixed: () => link.fixed ?? null, ceiling: () => link.ceiling ?? 12 },
    () => clock,
  );
  const running: { host: string; left: number; sinceMs: number; release: () => void }[] = [];
  const perHost = new Map<string, number>();
  let queued = 0;
  let next = 1;
  let started = 0;
  /** At every step: PUTs sending, the file's level, chunks left to start, and the most PUTs to one host. */
  const steps: { running: number; level: number; left: number; onOneHost: number }[] = [];
  for (; clock < link.seconds * 1000; clock += STEP_MS) {
    // Uppy's queue lets up to `queueLimit` PUTs into uploadPartBytes; each waits there for its turn.
    while (next <= link.chunks && queued < connections.queueLimit) {
      const chunkId = next++;
      const host = `127.0.0.${((chunkId - 1) % link.hosts) + 1}:4501`;
      queued++;
      void connections.acquire(host, FILE, link.chunks - chunkId).then((release) => {
        started = Math.max(started, chunkId);
        running.push({ host, left: link.chunkBytes, sinceMs: clock, release });
        perHost.set(host, (perHost.get(host) ?? 0) + 1);
      });
    }
    await new Promise((r) => setImmediate(r));
    const sending = running.filter((put) => clock - put.sinceMs >= (link.gapMs ?? 0));
    const share = link.shareAt?.(clock) ?? link.share;
    const each = Math.min(share, link.capacity / Math.max(1, sending.length)) * (STEP_MS / 1000);
    for (const put of sending) {
      const bytes = Math.min(each, put.left);
      put.left -= bytes;
      connections.sent(FILE, bytes);
    }
    steps.push({
      running: running.length,
      level: connections.level(FILE),
      left: link.chunks - started,
      onOneHost: Math.max(0, ...perHost.values()),
    });
    for (const put of running.filter((p) => p.left <= 0)) {
      running.splice(running.indexOf(put), 1);
      perHost.set(put.host, perHost.get(put.host)! - 1);
      queued--;
      put.release();
    }
    if (next > link.chunks && running.length === 0 && queued === 0) break;
  }
  const levels = steps.map((s) => s.level);
  return { steps, levels, connections, most: Math.max(...steps.map((s) => s.running)) };
}

/** The levels in the order they were held, each once per stretch. */
const stretches = (levels: number[]) => levels.filter((n, i) => n !== levels[i - 1]);

/** The level held longest. */
const mostHeld = (levels: number[]) =>
  [...new Set(levels)].sort((a, b) => levels.filter((n) => n === b).length - levels.filter((n) => n === a).length)[0];

/** A long upload: chunks enough that the tail never comes within the run. */
const LONG = { chunks: 1000, chunkBytes: 8 * MB };

describe('chunk PUTs at once (ConnectionController)', () => {
  it('starts at six and doubles while the connections added raise the rate, up to the ceiling', async () => {
    // Loss holds each connection to 1.2 MB/s, two storage hosts: every one more adds its share.
    const { levels, steps, most } = await simulate({
      hosts: 2,
      share: 1.2 * MB,
      capacity: Infinity,
      seconds: 120,
      ...LONG,
    });
    assert.equal(levels[0], START_CONNECTIONS);
    assert.deepEqual(stretches(levels).slice(0, 2), [6, 12], 'twice six, the ceiling');
    assert.equal(most, 12, 'never past the ceiling');
    assert.ok(Math.max(...steps.map((s) => s.onOneHost)) <= PER_HOST, 'never more than six to one host');
    assert.equal(steps.at(-1)!.running, 12, 'and stays there: one fewer falls short');
  });

  it('tries half as many more when twice did not pay, and keeps the level that fills the link', async () => {
    // Connections of 2 MB/s on a link of 13 MB/s: twelve add less than a doubling must, nine enough for three more;
    // then fewer are tried from nine, and six fall short of seven.
    const { levels } = await simulate({ hosts: 2, share: 2 * MB, capacity: 13 * MB, seconds: 120, ...LONG });
    assert.deepEqual(stretches(levels).slice(0, 5), [6, 12, 6, 12, 9], 'twelve tried, six measured again, then nine');
    assert.equal(mostHeld(levels.slice(levels.length / 2)), 7, 'the level held between tries');
  });

  it('judges more against the later half of a level that was still settling, and keeps them at once', async () => {
    // At loss, connections send at the link's pace until their first losses: 2.2 MB/s each for the first 4 s, then
    // 1.2. Six measured over 2.5–5.5 s send 9.5 MB/s (the link) and then 7.2: twelve at 9.5 beat 7.2 by far, and
    // 8.35 (the whole window) by less than a doubling must.
    const { levels } = await simulate({
      hosts: 2,
      share: 1.2 * MB,
      shareAt: (ms) => (ms < 4000 ? 2.2 : 1.2) * MB,
      capacity: 9.5 * MB,
      seconds: 30,
      ...LONG,
    });
    const held = stretches(levels);
    assert.deepEqual(held.slice(0, 2), [6, 12]);
    assert.ok(!held.slice(2).includes(6), `twelve kept from the first try, not after six measured again: ${held}`);
  });

  it('ends with two or three connections on a clean link that a few fill', async () => {
    // No loss: one connection could take the whole 12 MB/s, but each chunk holds its turn 50 ms before its first
    // byte, which one connection alone cannot hide.
    const { levels } = await simulate({
      hosts: 2,
      share: Infinity,
      capacity: 12 * MB,
      gapMs: 50,
      seconds: 120,
      ...LONG,
    });
    assert.deepEqual(
      stretches(levels).slice(0, 7),
      [6, 12, 6, 12, 9, 7, 5],
      'more added nothing (against six measured twice); then fewer were tried',
    );
    assert.ok(levels.at(-1)! >= 2 && levels.at(-1)! <= 3, `ended at ${levels.at(-1)}`);
  });

  it('never has more than six PUTs to one host, however much one more would add', async () => {
    const { levels, most } = await simulate({
      hosts: 1,
      share: 1.2 * MB,
      capacity: Infinity,
      seconds: 60,
      ...LONG,
    });
    assert.equal(most, PER_HOST);
    assert.equal(Math.max(...levels), PER_HOST, 'no seventh tried on one host');
    assert.equal(mostHeld(levels), PER_HOST, 'five fell short, six kept');
  });

  it('stays within max-parallel-uploads', async () => {
    const { most, levels } = await simulate({
      hosts: 2,
      share: 1.2 * MB,
      capacity: Infinity,
      ceiling: 8,
      seconds: 90,
      ...LONG,
    });
    assert.equal(most, 8);
    assert.equal(Math.max(...levels), 8);
    const low = await simulate({ hosts: 2, share: 1.2 * MB, capacity: Infinity, ceiling: 4, seconds: 30, ...LONG });
    assert.equal(low.levels[0], 4, 'starts at the ceiling when it is under six');
    assert.equal(low.most, 4);
  });

  it('shares the ceiling and each host between files', async () => {
    const connections = new ConnectionController({ fixed: () => null, ceiling: () => 8 });
    let started = 0;
    // Two files, six chunks each, over two hosts: each file's level is six, the page's ceiling eight.
    for (const file of ['a', 'b'])
      for (let chunkId = 1; chunkId <= 6; chunkId++)
        void connections.acquire(`h${chunkId % 2}:1`, file, 6 - chunkId).then(() => started++);
    await new Promise((r) => setImmediate(r));
    assert.equal(started, 8);
    const other = new ConnectionController({ fixed: () => null, ceiling: () => 32 });
    let onOne = 0;
    for (const file of ['a', 'b']) for (let i = 0; i < 6; i++) void other.acquire('h:1', file, 10).then(() => onOne++);
    await new Promise((r) => setImmediate(r));
    assert.equal(onOne, PER_HOST, 'six to one host, whichever files they are of');
  });

  it('does not move its level once fewer chunks are left to start than it has connections', async () => {
    // A clean link where the level would keep falling, and a file of 16 large chunks: its tail lasts long enough
    // for two levels to be measured in it.
    const { steps } = await simulate({
      hosts: 2,
      share: Infinity,
      capacity: 12 * MB,
      gapMs: 150,
      chunks: 16,
      chunkBytes: 48 * MB,
      seconds: 120,
    });
    const tail = steps.findIndex((s) => s.left < s.level);
    assert.ok((steps.length - tail) * STEP_MS >= 2 * (SETTLE_MS + MEASURE_MS), 'the tail is long');
    // One fewer being tried when the tail came is given up at the next count, for the level held; then nothing moves.
    const held = stretches(steps.slice(tail).map((s) => s.level));
    assert.ok(held.length === 1 || (held.length === 2 && held[1] === held[0]! + 1), `frozen in the tail: ${held}`);
  });

  it('gives up more connections being tried when the tail comes, for the level measured before them', async () => {
    // A clean link, and a file of small chunks that reaches its tail while twelve are being tried: they are not kept.
    const { steps, levels } = await simulate({
      hosts: 2,
      share: Infinity,
      capacity: 12 * MB,
      gapMs: 150,
      chunks: 70,
      chunkBytes: 2 * MB,
      seconds: 60,
    });
    // The tail of twelve: fewer than twelve chunks left to start.
    const tail = steps.findIndex((s) => s.left < 12);
    assert.deepEqual(stretches(levels.slice(0, tail)), [6, 12], 'twelve were being tried');
    assert.deepEqual(new Set(levels.slice(tail)), new Set([START_CONNECTIONS]), 'and six is the level in the tail');
  });

  it('tries no more connections when the tail would come before they could be judged, and one fewer instead', async (t) => {
    // A clean link, and a file with fewer than fourteen chunks left to start when six have been measured: twelve (or
    // even seven) begun then would be given up a moment later, their PUTs already under way.
    const decisions: string[] = [];
    t.mock.method(performance, 'mark', (name: string) => decisions.push(name));
    const { levels, most } = await simulate({
      hosts: 2,
      share: Infinity,
      capacity: 12 * MB,
      gapMs: 150,
      chunks: 30,
      chunkBytes: 4 * MB,
      seconds: 60,
    });
    assert.match(decisions[0]!, /: 6 \(level\) sent [\d.]+ MB\/s; 5 \(fewer\)$/, 'six measured, then one fewer tried');
    assert.equal(Math.max(...levels), START_CONNECTIONS, 'never past six');
    assert.equal(most, START_CONNECTIONS);
  });

  it('keeps a fixed parallel-uploads as it is, whatever the rate does', async () => {
    for (const fixed of [1, 3, 12]) {
      const { levels, most, steps } = await simulate({
        hosts: fixed === 12 ? 2 : 1,
        share: Infinity,
        capacity: 12 * MB,
        gapMs: 150,
        fixed,
        seconds: 60,
        ...LONG,
      });
      assert.deepEqual(new Set(levels), new Set([fixed]), `parallel-uploads=${fixed}`);
      assert.equal(most, fixed, `parallel-uploads=${fixed}`);
      assert.equal(steps.at(-1)!.running, fixed, `parallel-uploads=${fixed}`);
    }
    // Twelve on one host: six, the browser's pool, and the controller never queues more there.
    const one = await simulate({ hosts: 1, share: 1 * MB, capacity: Infinity, fixed: 12, seconds: 20, ...LONG });
    assert.equal(one.most, PER_HOST);
  });

  it("lets Uppy's queue hold six per host seen within the ceiling, and one waiting per host, and says when that grows", async () => {
    let ceiling = 12;
    let fixed: number | null = null;
    const connections = new ConnectionController({ fixed: () => fixed, ceiling: () => ceiling });
    let grown = 0;
    connections.onQueueLimit = () => grown++;
    assert.equal(connections.queueLimit, 6);
    (await connections.acquire('a:1', FILE, 10))();
    assert.equal(connections.queueLimit, 7);
    assert.equal(grown, 1);
    (await connections.acquire('b:1', FILE, 9))();
    assert.equal(connections.queueLimit, 14);
    assert.equal(grown, 2);
    (await connections.acquire('c:1', FILE, 8))();
    assert.equal(connections.queueLimit, 15, 'the ceiling, and one waiting for each host');
    assert.equal(grown, 3);
    ceiling = 32;
    assert.equal(connections.queueLimit, 21);
    fixed = 3;
    assert.equal(connections.queueLimit, 6);
    assert.equal(connections.level(FILE), 3);
  });

  it('measures afresh after a pause, so the time paused does not count against the level being tried', async () => {
    let clock = 0;
    const connections = new ConnectionController({ fixed: () => null, ceiling: () => 12 }, () => clock);
    const turns: (() => void)[] = [];
    const take = async (count: number) => {
      for (let i = 0; i < count; i++) turns.push(await connections.acquire(`h${i % 2}:1`, FILE, 100));
    };
    // Each PUT under way sends 1 MB/s (loss), for `ms`.
    const send = (ms: number) => {
      for (const end = clock + ms; clock < end; clock += STEP_MS)
        for (let i = 0; i < turns.length; i++) connections.sent(FILE, 1 * MB * (STEP_MS / 1000));
    };
    await take(6);
    send(8000);
    assert.equal(connections.level(FILE), 12, 'six measured, twelve tried');
    await take(6);
    // Twelve past their settling: counting has begun when the pause comes.
    send(SETTLE_MS + 500);
    // Paused: every PUT is cut off, and nothing is sent for 10 s.
    turns.splice(0).forEach((end) => end());
    clock += 10_000;
    await take(12);
    send(8000);
    assert.equal(connections.level(FILE), 12, 'twelve added their share and are kept (counting the pause, nine)');
  });

  it('keeps more that fell short of a level measured high, once that level measured again is below them', async () => {
    let clock = 0;
    const connections = new ConnectionController({ fixed: () => null, ceiling: () => 12 }, () => clock);
    const turns: (() => void)[] = [];
    const take = async (count: number, left: number) => {
      for (let i = 0; i < count; i++) turns.push(await connections.acquire(`h${i % 2}:1`, FILE, left));
    };
    // Each PUT under way sends `mbps` MB/s for `ms`.
    const send = (ms: number, mbps: number) => {
      for (const end = clock + ms; clock < end; clock += STEP_MS)
        for (let i = 0; i < turns.length; i++) connections.sent(FILE, mbps * MB * (STEP_MS / 1000));
    };
    await take(6, 30);
    send(8000, 2); // six read 12 MB/s, as connections starting do
    assert.equal(connections.level(FILE), 12, 'six measured, twelve tried');
    // Twenty chunks left to start: a try of twelve from here would be cut to ten, as many as there is time to judge.
    await take(6, 20);
    send(8000, 1);
    assert.equal(connections.level(FILE), 6, 'twelve at 12 MB/s fell short of six at 12: six measured again');
    turns.splice(6).forEach((end) => end());
    send(8000, 1);
    assert.equal(connections.level(FILE), 12, 'six measured again at 6 MB/s: the twelve measured at 12 are kept');
  });

  it('gives turns in order, and forgets a PUT whose upload was aborted while it waited', async () => {
    const connections = new ConnectionController({ fixed: () => 2, ceiling: () => 12 });
    const started: string[] = [];
    const releases: (() => void)[] = [];
    const take = (name: string, signal?: AbortSignal) =>
      connections.acquire('h:1', FILE, 10, signal).then(
        (release) => (started.push(name), releases.push(release)),
        (err: Error) => started.push(`${name}: ${err.name}`),
      );
    void take('a');
    void take('b');
    const abort = new AbortController();
    const c = take('c', abort.signal);
    const d = take('d');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, ['a', 'b']);
    abort.abort();
    await c;
    releases[0]!();
    releases[0]!(); // a turn ends once, however often its PUT says so
    await d;
    assert.deepEqual(started, ['a', 'b', 'c: AbortError', 'd'], 'the aborted one never held a turn');
    void take('e');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started.at(-1), 'd', 'two under way: e waits');
  });

  describe('the endgame: a second PUT of a chunk that would end long after the others', () => {
    // The endgame looks again every 250 ms until its file is forgotten: a test that fails before its `done` must not
    // keep the process alive.
    const forgets: (() => void)[] = [];
    afterEach(() => forgets.splice(0).forEach((forget) => forget()));

    /** Three PUTs of 5 MB, every chunk started; `named` says which were given one. */
    async function endgame(left = [2, 1, 0]) {
      let clock = 0;
      const connections = new ConnectionController({ fixed: () => null, ceiling: () => 12 }, () => clock);
      forgets.push(() => connections.forget(FILE));
      const host = 'h:1';
      const turns = await Promise.all(left.map((l) => connections.acquire(host, FILE, l)));
      const twins: { name: string; release: () => void }[] = [];
      const flights = ['a', 'b', 'c'].map((name) => ({
        size: 5 * MB,
        loaded: 0,
        twin: (release: () => void) => twins.push({ name, release }),
      }));
      const lands = flights.map((f) => connections.fly(FILE, host, f));
      const at = (ms: number) => (clock = ms);
      // Names, not the list itself: assert.deepEqual narrows what it is given.
      const named = () => twins.map((t) => t.name);
      return { connections, turns, twins, named, flights, lands, at, done: () => connections.forget(FILE) };
    }

    it('sends one once every chunk has started, for the PUT that would end latest, one at a time', async () => {
      const { connections, turns, twins, named, flights, lands, at, done } = await endgame();
      at(500);
      flights[1]!.loaded = flights[2]!.loaded = 4 * MB;
      flights[0]!.loaded = 5 * MB;
      lands[0]!(true); // 10 MB/s: a second PUT of 5 MB would take 0.65 s
      turns[0]!();
      assert.deepEqual(named(), [], 'the others at its pace');
      at(6000);
      flights[1]!.loaded = 4.4 * MB; // 0.8 s left at its pace since it began
      connections.sent(FILE, 0.4 * MB);
      assert.deepEqual(named(), ['c'], 'c stalled at 4 MB: 1.5 s left');
      at(12_000);
      connections.sent(FILE, 0);
      assert.deepEqual(named(), ['c'], "b has 1.6 s left now, and waits for c's twin to end");
      twins[0]!.release();
      connections.sent(FILE, 0);
      assert.deepEqual(named(), ['c', 'b']);
      done();
    });

    it('sends none for a PUT that ends about as soon as a second one would', async () => {
      const { connections, named, flights, lands, at, done } = await endgame();
      at(500);
      flights[1]!.loaded = flights[2]!.loaded = 4 * MB;
      flights[0]!.loaded = 5 * MB;
      lands[0]!(true);
      at(3000);
      connections.sent(FILE, 0); // 0.75 s left each, against 0.65 s for a second: not twice as late
      assert.deepEqual(named(), []);
      done();
    });

    it('judges a PUT only once it has run as long as a second one would take', async () => {
      const { connections, named, flights, lands, at, done } = await endgame();
      at(5000);
      flights[0]!.loaded = 5 * MB;
      lands[0]!(true); // 1 MB/s: a second PUT would take 5.15 s
      flights[2]!.loaded = 0.5 * MB;
      at(5100);
      connections.sent(FILE, 0.5 * MB); // b and c have run 5.1 s: less than a second PUT would take
      assert.deepEqual(named(), []);
      at(10_150);
      flights[1]!.loaded = 4.9 * MB;
      connections.sent(FILE, 4.4 * MB); // c at 0.5 MB after 10 s: 91 s left
      assert.deepEqual(named(), ['c']);
      done();
    });

    it('sends none while chunks are left to start, nor before any PUT of the file answered', async () => {
      const waiting = await endgame([3, 2, 1]);
      waiting.at(500);
      waiting.flights[0]!.loaded = 5 * MB;
      waiting.lands[0]!(true);
      waiting.at(5000);
      waiting.connections.sent(FILE, 0);
      assert.deepEqual(waiting.named(), [], 'a chunk is left to start');
      waiting.done();

      const none = await endgame();
      none.at(5000);
      none.flights[2]!.loaded = 0.1 * MB;
      none.connections.sent(FILE, 0.1 * MB);
      assert.deepEqual(none.named(), [], 'no PUT answered yet: no pace to judge a second by');
      none.done();
    });

    it('names a twin for a PUT that has sent nothing yet as such in its performance mark', async () => {
      const { connections, named, flights, lands, at, done } = await endgame();
      at(500);
      flights[0]!.loaded = flights[1]!.loaded = 5 * MB;
      lands[0]!(true);
      lands[1]!(true);
      at(6000); // c has sent nothing in 6 s
      connections.sent(FILE, 0);
      assert.deepEqual(named(), ['c']);
      const marks = performance.getEntriesByType('mark').filter((m) => m.name.includes(': a twin, '));
      assert.match(marks.at(-1)!.name, /: a twin, its PUT has sent nothing$/);
      done();
    });

    it('sends none for a PUT waiting to be sent again, and judges it from its new attempt on', async () => {
      const { connections, named, flights, lands, at, done } = await endgame();
      at(500);
      flights[0]!.loaded = flights[1]!.loaded = 5 * MB;
      lands[0]!(true);
      lands[1]!(true); // 10 MB/s: a second PUT of 5 MB would take 0.65 s
      connections.retrying(flights[2]!, 1000); // c answered 500 at 0.5 s: sent again at 1.5 s, from its first byte
      at(1400);
      connections.sent(FILE, 0);
      assert.deepEqual(named(), [], 'c waits as long as its retry policy says: a twin now would not');
      at(1900);
      flights[2]!.loaded = 1 * MB;
      connections.sent(FILE, 1 * MB);
      assert.deepEqual(named(), [], 'its new attempt sends at 2.5 MB/s: 1.6 s left, judged from 1.5 s');
      at(8000);
      connections.sent(FILE, 0);
      assert.deepEqual(named(), ['c'], 'its new attempt stalled at 1 MB');
      done();
    });

    it('sends one for a PUT that sends nothing, without waiting for its progress', async () => {
      const { named, flights, lands, at, done } = await endgame();
      at(500);
      flights[1]!.loaded = flights[2]!.loaded = 4 * MB;
      flights[0]!.loaded = flights[1]!.loaded = 5 * MB;
      lands[0]!(true);
      lands[1]!(true);
      at(6000); // c stalled at 4 MB: no progress comes, and the endgame looks again on its own
      await new Promise((r) => setTimeout(r, ENDGAME_EVERY_MS + 100));
      assert.deepEqual(named(), ['c']);
      done();
    });
  });
});
