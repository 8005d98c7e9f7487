import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';

const helper = new URL('../helpers/temp.ts', import.meta.url).href;

/** A process that makes a temporary folder, prints it, and waits to be stopped. */
async function holder(): Promise<{ dir: string; stopped: (signal: NodeJS.Signals) => Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { tempDir } = await import(${JSON.stringify(helper)});
       console.log(await tempDir('temp-test-'));
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
});
