import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConnectionRamp,
  RAMP_FIRST_SETTLE_MS,
  RAMP_IDLE_MS,
  RAMP_SETTLE_MS,
  RAMP_WINDOW_MS,
} from '../../src/upload/ramp.js';

const MB = 1_000_000;
const STEP_MS = 50;

/**
 * A link on a clock of its own: `share` bytes per second for each connection (what loss leaves one TCP
 * connection), never more than `capacity` for all of them together.
 */
function simulate(opts: {
  max: number;
  share: number | ((ms: number, running: number) => number);
  capacity: number;
  seconds: number;
}) {
  let clock = 0;
  const ramp = new ConnectionRamp(
    () => opts.max,
    () => clock,
  );
  let running = 0;
  const levels: number[] = [];
  // More chunks than connections, each longer than the run: the ramp alone decides how many go at once.
  for (let i = 0; i < 32; i++) void ramp.acquire().then(() => running++);
  return (async () => {
    for (; clock < opts.seconds * 1000; clock += STEP_MS) {
      await Promise.resolve();
      levels.push(running);
      const share = typeof opts.share === 'number' ? opts.share : opts.share(clock, running);
      const each = Math.min(share, opts.capacity / running) * (STEP_MS / 1000);
      for (let c = 0; c < running; c++) ramp.sent(each);
    }
    return { levels, ramp };
  })();
}

describe('chunk PUTs at once', () => {
  it('starts with two and adds one at a time while each adds its share, up to the limit', async () => {
    const { levels } = await simulate({ max: 6, share: 1.2 * MB, capacity: Infinity, seconds: 20 });
    assert.equal(levels[1], 2, 'two at first');
    assert.deepEqual([...new Set(levels.slice(1))], [2, 3, 4, 5, 6], 'one more at a time');
    assert.equal(Math.max(...levels), 6, 'never past the limit');
    const first = (RAMP_FIRST_SETTLE_MS + RAMP_WINDOW_MS) / STEP_MS;
    const step = (RAMP_SETTLE_MS + RAMP_WINDOW_MS) / STEP_MS;
    assert.ok(levels.indexOf(6) <= first + 4 * step + 4, `six after the first level and three more`);
  });

  it('is not fooled by the first seconds of slow start, nor stopped by one slow window', async () => {
    // The first 1.5 s go at four times the share loss leaves later; the first window at level 4 is slow.
    let level4 = -1;
    const { levels } = await simulate({
      max: 6,
      share: (ms, running) => {
        if (ms < 1500) return 4 * MB;
        if (running === 4 && level4 < 0) level4 = ms;
        return running === 4 && ms - level4 < RAMP_SETTLE_MS + RAMP_WINDOW_MS ? 0.5 * MB : 1 * MB;
      },
      capacity: Infinity,
      seconds: 30,
    });
    assert.equal(levels.at(-1), 6);
  });

  it('stops adding once one more did not raise the throughput, as on a link two already fill', async () => {
    const { levels } = await simulate({ max: 6, share: Infinity, capacity: 12 * MB, seconds: 20 });
    assert.equal(levels.at(-1), 3, 'the third added nothing, and no fourth came');
    assert.equal(Math.max(...levels), 3);
  });

  it('stops where the link is full, after the connections that still added', async () => {
    // Four connections of 2 MB/s fill 8 MB/s; a fifth adds nothing.
    const { levels } = await simulate({ max: 6, share: 2 * MB, capacity: 8 * MB, seconds: 30 });
    assert.equal(levels.at(-1), 5);
  });

  it('never starts more than the limit, even below two', async () => {
    for (const max of [1, 3]) {
      const { levels } = await simulate({ max, share: 1 * MB, capacity: Infinity, seconds: 20 });
      assert.equal(Math.max(...levels), max, `limit ${max}`);
      assert.equal(levels.at(-1), max, `limit ${max}`);
    }
  });

  it('gives turns in order, and forgets a waiter whose upload was aborted', async () => {
    const ramp = new ConnectionRamp(() => 6);
    const started: string[] = [];
    const take = (name: string, signal?: AbortSignal) =>
      ramp.acquire(signal).then(
        () => started.push(name),
        (err: Error) => started.push(`${name}: ${err.name}`),
      );
    void take('a');
    void take('b');
    const abort = new AbortController();
    const c = take('c', abort.signal);
    void take('d');
    await Promise.resolve();
    assert.deepEqual(started, ['a', 'b']);
    abort.abort();
    await c;
    ramp.release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, ['a', 'b', 'c: AbortError', 'd'], 'the aborted one never held a turn');
  });

  it('starts at two again after a pause with nothing under way', async () => {
    let clock = 0;
    const ramp = new ConnectionRamp(
      () => 6,
      () => clock,
    );
    await ramp.acquire();
    await ramp.acquire();
    for (; clock < 5000; clock += STEP_MS) ramp.sent(1 * MB * (STEP_MS / 1000));
    assert.equal(ramp.level, 3, 'the first level was measured, and one more added');
    ramp.release();
    ramp.release();
    clock += RAMP_IDLE_MS - 1;
    await ramp.acquire();
    assert.equal(ramp.level, 3, 'a short gap between chunks keeps the level');
    ramp.release();
    clock += RAMP_IDLE_MS;
    await ramp.acquire();
    assert.equal(ramp.level, 2);
  });
});
