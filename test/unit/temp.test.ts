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
async function holder(writer = false): Promise<{
  dir: string;
  /** The writer's pid, to be sure it ends whatever the test finds. */
  writerPid?: number;
  stopped: (signal: NodeJS.Signals, times?: number) => Promise<number | null>;
}> {
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
       console.log(dir, ${writer ? 'child.pid' : "''"});
       setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const [dir, pid] = line.split(' ') as [string, string];
  return {
    dir,
    writerPid: pid ? Number(pid) : undefined,
    // Each signal 50 ms after the one before: a second one arrives while the exit hooks run.
    stopped: async (signal, times = 1) => {
      const exited = once(child, 'exit');
      for (let i = 0; i < times; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50));
        child.kill(signal);
      }
      const [code] = (await exited) as [number | null];
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

  for (const times of [1, 2]) {
    it(`go after the exit hooks that stop what writes into them (${times} SIGTERM)`, async () => {
      const { dir, writerPid, stopped } = await holder(true);
      try {
        assert.equal(await stopped('SIGTERM', times), 143);
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(existsSync(dir), false, `${dir} was written again and left behind`);
      } finally {
        try {
          process.kill(writerPid!, 'SIGKILL');
        } catch {
          /* ended by the hook, as it should */
        }
      }
    });
  }
});
