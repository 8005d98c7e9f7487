/**
 * The one closing line of `npm test`: "tests: N passed, N failed". scripts/test.sh runs each step and
 * writes its exit status to .test-results/<step>.exit; runners write their results beside it.
 *
 * What counts as failed, so that the line can never say 0 while something went wrong:
 *  - a failed or cancelled node:test test (a test under a `before` hook that throws is "cancelled");
 *  - a failed or flaky Playwright test, and each of Playwright's global errors (a global setup that throws);
 *  - a step without tests (typecheck, build) that exited non-zero;
 *  - a runner that exited non-zero while its results count no failure, or that wrote no results at all.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

export type StepKind = 'check' | 'tap' | 'component' | 'playwright';
export interface Step {
  name: string;
  kind: StepKind;
  /** Exit status; undefined when the step never ran. */
  exit?: number;
  /** The runner's results file as text; undefined when it wrote none. */
  results?: string;
}
export interface Count {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Why failures were counted beyond the runner's own, if any. */
  notes: string[];
}

function countResults(step: Step): Omit<Count, 'name' | 'notes'> & { notes: string[] } {
  const notes: string[] = [];
  const text = step.results ?? '';
  if (step.kind === 'tap') {
    const total = (label: string) => Number(new RegExp(`^# ${label} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    const cancelled = total('cancelled');
    if (cancelled) notes.push(`${cancelled} cancelled`);
    return {
      passed: total('pass'),
      failed: total('fail') + cancelled,
      skipped: total('skipped') + total('todo'),
      notes,
    };
  }
  if (step.kind === 'component') {
    const parsed = JSON.parse(text) as { passed: number; failed: number };
    return { passed: parsed.passed, failed: parsed.failed, skipped: 0, notes };
  }
  if (step.kind === 'playwright') {
    const parsed = JSON.parse(text) as {
      stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number };
      errors?: { message?: string }[];
    };
    const errors = parsed.errors ?? [];
    for (const e of errors) notes.push(`global error: ${(e.message ?? '').split('\n')[0]}`);
    const stats = parsed.stats ?? {};
    return {
      passed: stats.expected ?? 0,
      failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0) + errors.length,
      skipped: stats.skipped ?? 0,
      notes,
    };
  }
  return { passed: 0, failed: 0, skipped: 0, notes };
}

/** Each step's counts, with the failures its runner did not count added. */
export function summarize(steps: Step[]): Count[] {
  return steps.map((step) => {
    if (step.exit === undefined) return { name: step.name, passed: 0, failed: 1, skipped: 0, notes: ['did not run'] };
    if (step.kind === 'check') {
      return {
        name: step.name,
        passed: 0,
        failed: step.exit === 0 ? 0 : 1,
        skipped: 0,
        notes: step.exit === 0 ? [] : [`exited ${step.exit}`],
      };
    }
    let count: ReturnType<typeof countResults>;
    try {
      if (step.results === undefined || step.results.trim() === '') throw new Error('no results');
      count = countResults(step);
    } catch {
      return {
        name: step.name,
        passed: 0,
        failed: 1,
        skipped: 0,
        notes: [`exited ${step.exit} and wrote no readable results`],
      };
    }
    if (step.exit !== 0 && count.failed === 0) {
      count.failed = 1;
      count.notes.push(`exited ${step.exit} though its results count no failure`);
    }
    if (step.exit === 0 && count.passed === 0) {
      count.failed += 1;
      count.notes.push('ran no test');
    }
    return { name: step.name, ...count };
  });
}

/** The closing line; the plain form that CI reads ("tests: N passed, N failed", then skipped if any). */
export function closingLine(counts: Count[]): string {
  const sum = (key: 'passed' | 'failed' | 'skipped') => counts.reduce((n, c) => n + c[key], 0);
  const skipped = sum('skipped');
  return `tests: ${sum('passed')} passed, ${sum('failed')} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/** The steps scripts/test.sh runs, in order, and the file each runner writes. */
export const STEPS: { name: string; kind: StepKind; results?: string }[] = [
  { name: 'typecheck', kind: 'check' },
  { name: 'build', kind: 'check' },
  { name: 'docs', kind: 'check' },
  { name: 'unit', kind: 'tap', results: 'unit.tap' },
  { name: 'service', kind: 'tap', results: 'service.tap' },
  { name: 'component', kind: 'component', results: 'component.json' },
  { name: 'e2e', kind: 'playwright', results: 'e2e.json' },
];

async function main(dir = '.test-results'): Promise<void> {
  const read = (file: string) => readFile(`${dir}/${file}`, 'utf8').catch(() => undefined);
  const steps: Step[] = [];
  for (const s of STEPS) {
    const exit = await read(`${s.name}.exit`);
    steps.push({
      name: s.name,
      kind: s.kind,
      exit: exit === undefined ? undefined : Number(exit.trim()),
      results: s.results && (await read(s.results)),
    });
  }
  const counts = summarize(steps);
  for (const c of counts) {
    console.log(
      `  ${c.name.padEnd(10)} ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}${c.notes.length ? ` (${c.notes.join('; ')})` : ''}`,
    );
  }
  console.log(closingLine(counts));
  process.exit(counts.some((c) => c.failed > 0) ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
