import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closingLine, summarize, type Step } from '../../scripts/test-summary.js';

const tap = (pass: number, fail: number, cancelled = 0, skipped = 0) =>
  `TAP version 13\n# tests ${pass + fail + cancelled}\n# pass ${pass}\n# fail ${fail}\n# cancelled ${cancelled}\n# skipped ${skipped}\n# todo 0\n`;
const playwright = (expected: number, unexpected: number, flaky = 0, errors: string[] = []) =>
  JSON.stringify({
    stats: { expected, unexpected, flaky, skipped: 0 },
    errors: errors.map((message) => ({ message })),
  });
const green: Step[] = [
  { name: 'typecheck', kind: 'check', exit: 0 },
  { name: 'build', kind: 'check', exit: 0 },
  { name: 'service', kind: 'tap', exit: 0, results: tap(40, 0) },
  { name: 'component', kind: 'component', exit: 0, results: JSON.stringify({ passed: 20, failed: 0 }) },
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

  it('says how many were skipped, after the counts CI reads', () => {
    assert.equal(line(replace('service', { results: tap(38, 0, 0, 2) })), 'tests: 94 passed, 0 failed, 2 skipped');
  });
});
