/** Adds up what each runner wrote to .test-results/ and prints the one closing line of `npm test`. */
import { readFile } from 'node:fs/promises';

const read = (file: string) => readFile(`.test-results/${file}`, 'utf8').catch(() => '');
const tap = await read('service.tap');
const counts = [
  // node:test (TAP): its own totals
  { passed: Number(/^# pass (\d+)/m.exec(tap)?.[1] ?? 0), failed: Number(/^# fail (\d+)/m.exec(tap)?.[1] ?? 0) },
  // @web/test-runner: written by the reporter in test/component/web-test-runner.config.ts
  JSON.parse((await read('component.json')) || '{"passed":0,"failed":0}') as { passed: number; failed: number },
];
const e2e = JSON.parse((await read('e2e.json')) || '{}') as { stats?: { expected: number; unexpected: number; flaky: number } };
counts.push({ passed: e2e.stats?.expected ?? 0, failed: (e2e.stats?.unexpected ?? 0) + (e2e.stats?.flaky ?? 0) });

const passed = counts.reduce((n, c) => n + c.passed, 0);
const failed = counts.reduce((n, c) => n + c.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
