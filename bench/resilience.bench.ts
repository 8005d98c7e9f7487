/**
 * Uploads that survive, measured (issue 4). Prints figures; asserts nothing.
 *   - Multipart throughput with 10 % of chunk PUTs failing (500 after the body), as a ratio to the
 *     same upload without faults, in the same run.
 *   - Throughput with verify-chunks on, as a ratio to off.
 * 512 MiB from disk in headless Chromium, 8 MiB chunks (64 of them, so 10 % is about 6), 4 in parallel;
 * medians of 5 interleaved rounds.
 */
import { table } from './service.bench.js';
import { benchPage, interleaved, mbps, median } from './widget.bench.js';

export async function main(): Promise<void> {
  const bench = await benchPage();
  try {
    await bench.run('raw'); // warm-up
    const clean = async (attributes: Record<string, string> = {}) => {
      await bench.faults({});
      return bench.run('multipart', 8, attributes);
    };
    const failing = async () => {
      await bench.faults({ rules: [{ target: 'chunk-put', probability: 0.1, action: 'status', status: 500 }] });
      return bench.run('multipart', 8);
    };
    const [none, tenPercent, verifyOff, verifyOn] = await interleaved(5, [
      () => clean(),
      failing,
      () => bench.run('multipart', 32),
      () => bench.run('multipart', 32, { 'verify-chunks': '' }),
    ]);
    await bench.faults({});
    const row = (label: string, times: number[], base: number[] | undefined, target: string) => [
      label,
      `${mbps(median(times)).toFixed(0)} MB/s`,
      base ? (median(base) / median(times)).toFixed(2) : '1.00',
      target,
    ];
    console.log('\nResilience: 512 MiB multipart from headless Chromium (loopback, this machine)');
    console.log(
      table([
        ['upload', 'median', 'ratio', 'target'],
        row('8 MiB chunks × 4, no faults (baseline)', none!, undefined, ''),
        row('8 MiB chunks × 4, 10 % of chunk PUTs answer 500', tenPercent!, none, '≥ 0.80'),
        row('32 MiB chunks × 4, verify-chunks off (baseline)', verifyOff!, undefined, ''),
        row('32 MiB chunks × 4, verify-chunks on', verifyOn!, verifyOff, ''),
      ]),
    );
  } finally {
    await bench.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
