import { existsSync } from 'node:fs';

/**
 * How tests and benchmarks launch Chromium: CHROMIUM_PATH if set, else Debian's Chromium where it is
 * installed (browsers cannot be downloaded here), else Playwright's own browser on a normal machine.
 */
const DEBIAN_CHROMIUM = '/usr/lib/chromium/chromium';

export function chromiumLaunchOptions(): { executablePath?: string; args: string[] } {
  const executablePath = process.env.CHROMIUM_PATH || (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined);
  return {
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
    ],
  };
}
