/**
 * Uploads that survive, measured (issue 4). Prints figures; asserts nothing.
 *   - Multipart throughput with 10 % of chunk PUTs failing (500 after the body), as a ratio to the
 *     same upload without faults, in the same run.
 *   - Throughput with verify-chunks on, as a ratio to off.
 * 512 MiB from disk in headless Chromium, 8 MiB chunks (64 of them, so 10 % is about 6), 4 in parallel;
 * medians of 5 interleaved rounds. Only the failing case runs with faults; every other case clears them.
 */
import { interleaved, median, table } from './stats.js';
import { benchPage, mbps } from './widget.bench.js';

export async function main(): Promise<void> {
  const bench = await benchPage();
  try {
    await bench.run('raw'); // warm-up
    // Fault rules persist until replaced, so every case sets its own: only the failing case has faults.
    const upload = async (faults: unknown, chunkMiB: number, attributes: Record<string, string> = {}) => {
      await bench.faults(faults);
      return bench.run('multipart', chunkMiB, { 'parallel-uploads': '4', ...attributes });
    };
    const tenPercentFailing = { rules: [{ target: 'chunk-put', probability: 0.1, action: 'status', status: 500 }] };
    const [none, tenPercent, verifyOff, verifyOn] = await interleaved(5, [
      () => upload({}, 8),
      () => upload(tenPercentFailing, 8),
      () => upload({}, 32),
      () => upload({}, 32, { 'verify-chunks': '' }),
    ]);
    await bench.faults({});
    const row = (label: string, times: number[], base: number[] | undefined, target: string) => [
      label,
      `${mbps(median(times)).toFixed(0)} MB/s`,
      base ? (median(base) / median(times)).toFixed(2) : '1.00',
      `${Math.round(mbps(Math.max(...times)))}–${Math.round(mbps(Math.min(...times)))} MB/s`,
      target,
    ];
    console.log('\nResilience: 512 MiB multipart from headless Chromium (loopback, this machine)');
    console.log(
      table([
        ['upload', 'median', 'ratio', 'range of 5', 'target'],
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
