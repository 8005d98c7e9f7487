import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** Debian's WebKitGTK: its WebDriver (webkit2gtk-driver) and the MiniBrowser it automates. */
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * An X display (Xvfb: MiniBrowser has no headless mode) and WebKitWebDriver on a free port of 127.0.0.1, for
 * @web/test-runner-webdriver; both end with this process. Its GTK theme is dark, so the page's system prefers a dark
 * colour scheme (WebDriver cannot emulate media features): theme="auto" is tested against that.
 */
export async function startWebKitDriver(): Promise<{ port: number; stop: () => void }> {
  if (!existsSync('/usr/bin/WebKitWebDriver') || !existsSync(MINIBROWSER)) {
    throw new Error(
      'WebKitGTK is missing: install the Debian packages webkit2gtk-driver and xvfb (scripts/system-deps.sh does).',
    );
  }
  const children: ChildProcess[] = [];
  const stop = () => children.forEach((c) => c.exitCode === null && c.kill());
  process.once('exit', stop);
  // -displayfd: Xvfb picks a free display and says which.
  const xvfb = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(xvfb);
  const display = await new Promise<string>((resolve, reject) => {
    xvfb.stdout!.once('data', (d: Buffer) => resolve(`:${d.toString().trim()}`));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
  });
  const port = await freePort();
  const driver = spawn('WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], {
    env: { ...process.env, DISPLAY: display, GTK_THEME: 'Adwaita:dark' },
    stdio: 'ignore',
  });
  children.push(driver);
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { port, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  stop();
  throw new Error('WebKitWebDriver did not answer within 10 s');
}
