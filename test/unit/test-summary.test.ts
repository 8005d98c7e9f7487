import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/temp.js';
import { closingLine, summarize, type Step } from '../../scripts/test-summary.js';

const tap = (pass: number, fail: number, cancelled = 0, skipped = 0) =>
  `TAP version 13\n# tests ${pass + fail + cancelled}\n# pass ${pass}\n# fail ${fail}\n# cancelled ${cancelled}\n# skipped ${skipped}\n# todo 0\n`;
const playwright = (expected: number, unexpected: number, flaky = 0, errors: string[] = []) =>
  JSON.stringify({
    stats: { expected, unexpected, flaky, skipped: 0 },
    errors: errors.map((message) => ({ message })),
  });
const component = (passed: Record<string, number>, failed = 0) =>
  JSON.stringify({
    engines: Object.fromEntries(Object.entries(passed).map(([engine, n]) => [engine, { passed: n, failed }])),
  });
const green: Step[] = [
  { name: 'typecheck', kind: 'check', exit: 0 },
  { name: 'build', kind: 'check', exit: 0 },
  { name: 'service', kind: 'tap', exit: 0, results: tap(40, 0) },
  { name: 'component', kind: 'component', exit: 0, results: component({ chromium: 8, firefox: 6, webkit: 6 }) },
  { name: 'e2e', kind: 'playwright', exit: 0, results: playwright(36, 0) },
];
const line = (steps: Step[]) => closingLine(summarize(steps));
const replace = (name: string, step: Partial<Step>) => green.map((s) => (s.name === name ? { ...s, ...step } : s));

describe('the closing line of npm test (scripts/test-summary.ts)', () => {
  it('adds up every runner when all is well', () => {
    assert.equal(line(green), 'tests: 96 passed, 0 failed');
  });

  it('counts cancelled node:test tests (a before hook that threw) as failed', () => {
    assert.equal(line(replace('service', { exit: 1, results: tap(30, 0, 10) })), 'tests: 86 passed, 10 failed');
  });

  it('counts a failed typecheck or build', () => {
    assert.equal(line(replace('typecheck', { exit: 2 })), 'tests: 96 passed, 1 failed');
    assert.equal(line(replace('build', { exit: 1 })), 'tests: 96 passed, 1 failed');
  });

  it('counts a runner that exited non-zero without results, or whose results count no failure', () => {
    assert.equal(line(replace('component', { exit: 1, results: undefined })), 'tests: 76 passed, 1 failed');
    assert.equal(line(replace('component', { exit: 1, results: '{not json' })), 'tests: 76 passed, 1 failed');
    assert.equal(line(replace('service', { exit: 1, results: tap(40, 0) })), 'tests: 96 passed, 1 failed');
  });

  it("counts Playwright's global errors and flaky tests as failed", () => {
    assert.equal(
      line(replace('e2e', { exit: 1, results: playwright(0, 0, 0, ['globalSetup: demo exited with 1']) })),
      'tests: 60 passed, 1 failed',
    );
    assert.equal(line(replace('e2e', { exit: 1, results: playwright(35, 0, 1) })), 'tests: 95 passed, 1 failed');
    const [e2e] = summarize([
      { name: 'e2e', kind: 'playwright', exit: 1, results: playwright(0, 0, 0, ['globalSetup: boom\nstack']) },
    ]);
    assert.deepEqual(e2e!.notes, ['global error: globalSetup: boom']);
  });

  it('counts a step that never ran, and a runner that ran no test', () => {
    assert.equal(line(replace('e2e', { exit: undefined, results: undefined })), 'tests: 60 passed, 1 failed');
    assert.equal(line(replace('service', { exit: 0, results: tap(0, 0) })), 'tests: 56 passed, 1 failed');
  });

  it('counts the component tests of each engine on a line of their own', () => {
    assert.deepEqual(
      summarize(green)
        .filter((c) => c.name.startsWith('component'))
        .map((c) => `${c.name}: ${c.passed}`),
      ['component (chromium): 8', 'component (firefox): 6', 'component (webkit): 6'],
    );
  });

  const recorded = {
    service: 40,
    'component (chromium)': 8,
    'component (firefox)': 6,
    'component (webkit)': 6,
    e2e: 36,
  };

  it('fails a step that ran fewer tests than test/counts.json records, saying what to do if on purpose', () => {
    assert.equal(closingLine(summarize(green, recorded)), 'tests: 96 passed, 0 failed');
    const counts = summarize(replace('service', { results: tap(39, 0) }), recorded);
    assert.equal(closingLine(counts), 'tests: 95 passed, 1 failed');
    assert.deepEqual(counts.find((c) => c.name === 'service')!.notes, [
      '39 tests ran, the repository records 40 (test/counts.json): a test or a file was skipped or deleted; if on purpose, update the count in the same commit',
    ]);
    // More than recorded is not a failure: the count is a floor.
    assert.equal(
      closingLine(summarize(replace('e2e', { results: playwright(37, 0) }), recorded)),
      'tests: 97 passed, 0 failed',
    );
  });

  it('fails each engine CI requires that did not run (BROWSERS=chromium), or ran fewer tests', () => {
    const chromiumOnly = summarize(replace('component', { results: component({ chromium: 8 }) }), recorded);
    assert.equal(closingLine(chromiumOnly), 'tests: 84 passed, 2 failed');
    assert.deepEqual(
      chromiumOnly.filter((c) => c.failed).map((c) => c.name),
      ['component (firefox)', 'component (webkit)'],
    );
    assert.match(
      chromiumOnly.find((c) => c.name === 'component (webkit)')!.notes[0]!,
      /^0 tests ran, the repository records 6/,
    );
    const fewer = summarize(
      replace('component', { results: component({ chromium: 8, firefox: 6, webkit: 5 }) }),
      recorded,
    );
    assert.equal(closingLine(fewer), 'tests: 95 passed, 1 failed');
  });

  it('does not count a step twice that failed as a whole against its recorded number', () => {
    assert.equal(
      closingLine(summarize(replace('component', { exit: 1, results: undefined }), recorded)),
      'tests: 76 passed, 1 failed',
    );
    assert.equal(
      closingLine(summarize(replace('service', { exit: undefined }), recorded)),
      'tests: 56 passed, 1 failed',
    );
  });

  it('says how many were skipped, after the counts CI reads', () => {
    assert.equal(line(replace('service', { results: tap(38, 0, 0, 2) })), 'tests: 94 passed, 0 failed, 2 skipped');
  });

  it("names each failed test with its error's first line, under a suite that failed with it or alone", async () => {
    // node:test's own TAP, from a file with a failure inside a suite, one nested deeper, and one at the top.
    const file = join(await tempDir('summary-'), 'failing.test.mjs');
    await writeFile(
      file,
      `import { describe, it } from 'node:test';
       import assert from 'node:assert/strict';
       describe('suite', () => {
         it('passes', () => {});
         it('compares', () => assert.equal(1, 2));
         describe('inner', () => it('throws', () => { throw new Error('boom\\nsecond line'); }));
       });
       it('top', () => assert.ok(false, 'not true'));`,
    );
    const tapText = await promisify(execFile)(process.execPath, ['--test', '--test-reporter=tap', file], {
      // Run by node --test itself, a child would report to it instead of printing TAP.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    }).then(
      () => assert.fail('the file has failing tests'),
      (err: { stdout: string }) => err.stdout,
    );
    const [unit] = summarize([{ name: 'unit', kind: 'tap', exit: 1, results: tapText }]);
    assert.deepEqual(unit!.failures, [
      'compares: Expected values to be strictly equal: 1 !== 2',
      'throws: boom',
      'top: not true',
    ]);

    // Playwright's JSON report: specs in suites in suites, an error's colours dropped.
    const spec = (title: string, status: string, message?: string) => ({
      title,
      file: 'test/e2e/a.spec.ts',
      line: 7,
      tests: [{ status, results: [message ? { error: { message } } : {}] }],
    });
    const report = JSON.stringify({
      stats: { expected: 1, unexpected: 1, flaky: 1 },
      suites: [
        {
          specs: [spec('ok', 'expected')],
          suites: [
            {
              specs: [
                spec('grows', 'unexpected', '\u001b[31mExpected: 12\u001b[39m\nReceived: 6'),
                spec('slow', 'flaky'),
              ],
            },
          ],
        },
      ],
    });
    const [e2e] = summarize([{ name: 'e2e', kind: 'playwright', exit: 1, results: report }]);
    assert.deepEqual(e2e!.failures, [
      'test/e2e/a.spec.ts:7 › grows: Expected: 12',
      'test/e2e/a.spec.ts:7 › slow (flaky)',
    ]);

    // The component run's reporter names its own (web-test-runner.config.ts).
    const results = JSON.stringify({ engines: { webkit: { passed: 1, failed: 1, failures: ['a.test.ts › b: c'] } } });
    const [webkit] = summarize([{ name: 'component', kind: 'component', exit: 1, results }]);
    assert.deepEqual(webkit!.failures, ['a.test.ts › b: c']);
  });
});
