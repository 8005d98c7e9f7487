import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProgressBatch } from '../../src/upload/progress.js';

describe('progress of PUTs under way', () => {
  it('is handed on together once per interval, only the latest figure of each PUT', async () => {
    const batch = new ProgressBatch<number>(30);
    const a: number[] = [];
    const b: number[] = [];
    const first = (n: number) => a.push(n);
    const second = (n: number) => b.push(n);
    for (let i = 1; i <= 5; i++) {
      batch.queue(first, i);
      batch.queue(second, i * 10);
    }
    assert.deepEqual([a, b], [[], []], 'nothing before the interval');
    await sleep(80);
    assert.deepEqual([a, b], [[5], [50]]);
    batch.queue(first, 6);
    await sleep(80);
    assert.deepEqual([a, b], [[5, 6], [50]], 'a PUT that reported nothing new gets nothing');
  });

  it('hands one PUT’s figure on at once when it ends, and leaves the others to the interval', async () => {
    const batch = new ProgressBatch<number>(30);
    const seen: string[] = [];
    const ending = (n: number) => seen.push(`ending ${n}`);
    const other = (n: number) => seen.push(`other ${n}`);
    batch.queue(ending, 100);
    batch.queue(other, 7);
    batch.flush(ending);
    batch.flush(ending);
    assert.deepEqual(seen, ['ending 100']);
    await sleep(80);
    assert.deepEqual(seen, ['ending 100', 'other 7']);
  });
});
