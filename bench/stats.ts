/** What every benchmark shares: medians, interleaved rounds, and a plain text table. */

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Runs every case once per round, `rounds` times, so drift on this shared 2-core machine falls on all
 * cases alike; returns each case's results.
 */
export async function interleaved(rounds: number, cases: (() => Promise<number>)[]): Promise<number[][]> {
  const times = cases.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) for (const [i, run] of cases.entries()) times[i]!.push(await run());
  return times;
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
}
