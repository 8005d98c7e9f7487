/** What every benchmark shares: medians, interleaved rounds, and a plain text table. */
import { mulberry32 } from '../test/helpers/random.js';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Runs every case once per round, `rounds` times, so drift on this shared 2-core machine falls on all
 * cases alike; returns each case's results. Each round runs the cases in another order (shuffled, the same
 * shuffles every run), so no case always follows the same one: what ran before mattered (in bench/widget.bench.ts a
 * raw XHR upload run twice, each in the same place every round, came out 1.23 × itself).
 */
export async function interleaved(rounds: number, cases: (() => Promise<number>)[]): Promise<number[][]> {
  const times = cases.map(() => [] as number[]);
  // A fixed seed: the orders differ between rounds and repeat between runs.
  const random = mulberry32(1);
  for (let round = 0; round < rounds; round++) {
    const order = cases.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) times[i]!.push(await cases[i]!());
  }
  return times;
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
}
