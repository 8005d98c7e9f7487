import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';

const helper = new URL('../helpers/temp.ts', import.meta.url).href;

/**
 * A process that makes a temporary folder, prints it, and waits to be stopped. With `writer`, a child of its
 * own keeps writing into the folder until an exit hook made after the folder kills it, as the link bench's
 * service does until bench/link/emulator.ts's hook kills what runs in its namespaces (listing them first).
 */
async function holder(
  writer = false,
): Promise<{ dir: string; stopped: (signal: NodeJS.Signals) => Promise<number | null> }> {
  const write = `const { spawn, execFileSync } = await import('node:child_process');
       const child = spawn(process.execPath, ['-e', 'setInterval(() => require("node:fs").mkdirSync(process.argv[1] + "/data", { recursive: true }), 1)', dir], { stdio: 'ignore' });
       process.once('exit', () => { execFileSync('sleep', ['0.2']); child.kill('SIGKILL'); });`;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { tempDir } = await import(${JSON.stringify(helper)});
       const dir = await tempDir('temp-test-');
       ${writer ? write : ''}
       console.log(dir);
       setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [dir] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    dir,
    stopped: async (signal) => {
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

describe('temporary folders', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`go when the process is stopped by ${signal}, which still ends it with ${code}`, async () => {
      const { dir, stopped } = await holder();
      assert.ok(existsSync(dir), `${dir} was made`);
      assert.equal(await stopped(signal), code);
      assert.equal(existsSync(dir), false, `${dir} is left behind`);
    });
  }

  it('go after the exit hooks that stop what writes into them', async () => {
    const { dir, stopped } = await holder(true);
    assert.equal(await stopped('SIGTERM'), 143);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(existsSync(dir), false, `${dir} was written again and left behind`);
  });
});
