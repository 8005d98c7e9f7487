/**
 * The one closing line of `npm test`: "tests: N passed, N failed". scripts/test.sh runs each step and
 * writes its exit status to .test-results/<step>.exit; runners write their results beside it.
 *
 * What counts as failed, so that the line can never say 0 while something went wrong:
 *  - a failed or cancelled node:test test (a test under a `before` hook that throws is "cancelled");
 *  - a failed or flaky Playwright test, and each of Playwright's global errors (a global setup that throws);
 *  - a step without tests (typecheck, build) that exited non-zero;
 *  - a runner that exited non-zero while its results count no failure, or that wrote no results at all;
 *  - a step (a component engine each) that ran fewer tests than test/counts.json records for it: a skipped or
 *    deleted file, a committed `.only`, or an engine left out (BROWSERS) would otherwise pass unseen.
 *
 * Each failed test is named under the counts (`failures`), with the first line of its error where the runner gives
 * one: CI keeps only the tail of what a run printed, and the tail must say which test failed, not only how many.
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
  /** How many tests the runner says ran (passed or failed); undefined when it left no readable results. */
  ran?: number;
  /** Why failures were counted beyond the runner's own, if any. */
  notes: string[];
  /** The failed tests by name (with the first line of the error, where known). */
  failures?: string[];
}

/** The first line of an error message, without the terminal's colours, and the next where the first ends in ':'. */
export function firstLine(message = ''): string {
  const lines = message
    // eslint-disable-next-line no-control-regex -- the terminal's colour codes, which Playwright's messages keep
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines[0]?.endsWith(':') ? lines.slice(0, 2).join(' ') : (lines[0] ?? '')).slice(0, 300);
}

/**
 * The failed tests a TAP stream (node:test's) names, with their errors; a suite that failed because its tests did
 * (`failureType: 'subtestsFailed'`) adds nothing to them.
 */
function tapFailures(text: string): string[] {
  const lines = text.split('\n');
  const failures: string[] = [];
  for (const [i, line] of lines.entries()) {
    const title = /^\s*not ok \d+ - (.*)$/.exec(line)?.[1];
    // A todo test that fails is not counted as failed, nor named.
    if (title === undefined || /# TODO\b/.test(title)) continue;
    const end = lines.findIndex((l, j) => j > i && /^\s*\.\.\.$/.test(l));
    const block = lines.slice(i + 1, end < 0 ? undefined : end);
    if (block.some((l) => l.includes("failureType: 'subtestsFailed'"))) continue;
    const at = block.findIndex((l) => /^\s*error: /.test(l));
    // `error: 'message'` on its line, or `error: |-` and the message on the lines below, indented deeper.
    let error = at < 0 ? '' : block[at]!.replace(/^\s*error: /, '');
    if (error === '|-') {
      const depth = block[at]!.search(/\S/);
      const below = block.slice(at + 1);
      const shallower = below.findIndex((l) => l.trim() !== '' && l.search(/\S/) <= depth);
      error = below.slice(0, shallower < 0 ? undefined : shallower).join('\n');
    }
    // YAML quotes a message in single quotes, or in double quotes when it holds one.
    const message = firstLine(error.replace(/^\s*(['"])(.*)\1\s*$/s, '$2'));
    failures.push(message ? `${title}: ${message}` : title);
  }
  return failures;
}

interface PlaywrightSuite {
  suites?: PlaywrightSuite[];
  specs?: {
    title: string;
    file: string;
    line: number;
    tests: { status: string; results: { error?: { message?: string } }[] }[];
  }[];
}

/** The failed (or flaky) tests of Playwright's JSON report. */
function playwrightFailures(suites: PlaywrightSuite[] = []): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((t) => t.status === 'unexpected' || t.status === 'flaky')
        .map((t) => {
          const error = t.results.find((r) => r.error)?.error?.message;
          const name = `${spec.file}:${spec.line} › ${spec.title}${t.status === 'flaky' ? ' (flaky)' : ''}`;
          return error ? `${name}: ${firstLine(error)}` : name;
        }),
    ),
    ...playwrightFailures(suite.suites),
  ]);
}

/** What a runner's results file says; a component run, one count per engine ("component (webkit)"). */
function countResults(step: Step): Count[] {
  const notes: string[] = [];
  const text = step.results ?? '';
  if (step.kind === 'tap') {
    const total = (label: string) => Number(new RegExp(`^# ${label} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    const cancelled = total('cancelled');
    if (cancelled) notes.push(`${cancelled} cancelled`);
    return [
      {
        name: step.name,
        passed: total('pass'),
        failed: total('fail') + cancelled,
        skipped: total('skipped') + total('todo'),
        notes,
        failures: tapFailures(text),
      },
    ];
  }
  if (step.kind === 'component') {
    const parsed = JSON.parse(text) as {
      engines: Record<string, { passed: number; failed: number; failures?: string[] }>;
    };
    const engines = Object.entries(parsed.engines);
    if (engines.length === 0) throw new Error('no engine');
    return engines.map(([engine, c]) => ({
      name: `${step.name} (${engine})`,
      passed: c.passed,
      failed: c.failed,
      skipped: 0,
      notes: [],
      failures: c.failures ?? [],
    }));
  }
  if (step.kind === 'playwright') {
    const parsed = JSON.parse(text) as {
      stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number };
      errors?: { message?: string }[];
      suites?: PlaywrightSuite[];
    };
    const errors = parsed.errors ?? [];
    for (const e of errors) notes.push(`global error: ${firstLine(e.message)}`);
    const stats = parsed.stats ?? {};
    return [
      {
        name: step.name,
        passed: stats.expected ?? 0,
        failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0) + errors.length,
        skipped: stats.skipped ?? 0,
        notes,
        failures: playwrightFailures(parsed.suites),
      },
    ];
  }
  return [{ name: step.name, passed: 0, failed: 0, skipped: 0, notes }];
}

/** One step's counts, with the failures its runner did not count added. */
function countStep(step: Step): Count[] {
  const failedStep = (notes: string[]): Count[] => [{ name: step.name, passed: 0, failed: 1, skipped: 0, notes }];
  if (step.exit === undefined) return failedStep(['did not run']);
  if (step.kind === 'check') return step.exit === 0 ? countResults(step) : failedStep([`exited ${step.exit}`]);
  let counts: Count[];
  try {
    if (step.results === undefined || step.results.trim() === '') throw new Error('no results');
    counts = countResults(step);
  } catch {
    return failedStep([`exited ${step.exit} and wrote no readable results`]);
  }
  if (step.exit !== 0 && counts.every((c) => c.failed === 0)) {
    counts[0]!.failed = 1;
    counts[0]!.notes.push(`exited ${step.exit} though its results count no failure`);
  }
  for (const c of counts) {
    c.ran = c.passed + c.failed;
    if (step.exit === 0 && c.passed === 0) {
      c.failed += 1;
      c.notes.push('ran no test');
    }
  }
  return counts;
}

/**
 * Each step's counts, with the failures its runner did not count added; `recorded` (test/counts.json) is the
 * floor: a step, or a component engine, that ran fewer tests than recorded fails, and one missing from the
 * results ran 0. A step that failed as a whole (no results) is not counted twice.
 */
export function summarize(steps: Step[], recorded: Record<string, number> = {}): Count[] {
  const counts = steps.flatMap(countStep);
  for (const [name, floor] of Object.entries(recorded)) {
    const stepName = name.replace(/ \(.*\)$/, '');
    if (counts.some((c) => c.name === stepName && c.ran === undefined)) continue;
    let count = counts.find((c) => c.name === name);
    if (!count) {
      count = { name, passed: 0, failed: 0, skipped: 0, ran: 0, notes: [] };
      const last = counts.findLastIndex((c) => c.name.replace(/ \(.*\)$/, '') === stepName);
      counts.splice(last + 1, 0, count);
    }
    const ran = count.ran ?? 0;
    if (ran < floor) {
      count.failed += 1;
      count.notes.push(
        `${ran} tests ran, the repository records ${floor} (test/counts.json): ${name === stepName ? 'a test or a file was skipped or deleted' : 'the engine did not run, or a test or a file was skipped or deleted'}; if on purpose, update the count in the same commit`,
      );
    }
  }
  return counts;
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
  { name: 'scale', kind: 'tap', results: 'scale.tap' },
];

/**
 * test/counts.json: how many tests each step runs, a component engine each. It changes in the commit that adds
 * or removes tests, so that a run with fewer (a file skipped or deleted, an engine left out) fails.
 */
export async function recordedCounts(file = 'test/counts.json'): Promise<Record<string, number>> {
  const { counts } = JSON.parse(await readFile(file, 'utf8')) as { counts: Record<string, number> };
  return counts;
}

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
  const counts = summarize(steps, await recordedCounts());
  for (const c of counts) {
    console.log(
      `  ${c.name.padEnd(20)} ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}${c.notes.length ? ` (${c.notes.join('; ')})` : ''}`,
    );
  }
  const failures = counts.flatMap((c) => (c.failures ?? []).map((f) => `  ${c.name}: ${f}`));
  if (failures.length > 0) console.log(['', 'failed:', ...failures, ''].join('\n'));
  console.log(closingLine(counts));
  process.exit(counts.some((c) => c.failed > 0) ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
