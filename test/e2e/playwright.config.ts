import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../helpers/browser.js';

/**
 * End-to-end: the demo page (as `npm start` serves it) against the real local service, driven in
 * Chromium as a person would; and the packed package in consumers' apps (test/package), against the
 * same service. global-setup.ts starts the demo stack on free ports with test hooks.
 * A failing test keeps its trace in test-results/.
 */
export default defineConfig({
  testDir: '..',
  testMatch: /(e2e|package)\/[^/]+\.spec\.ts$/,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  workers: 1,
  retries: 0,
  // A committed test.only would narrow the run to one test and keep CI green: refused everywhere, not only on CI.
  forbidOnly: true,
  reporter: [['list'], ['json', { outputFile: '../../.test-results/e2e.json' }]],
  outputDir: '../../test-results',
  globalSetup: './global-setup.ts',
  use: {
    browserName: 'chromium',
    launchOptions: chromiumLaunchOptions(),
    // A failing test keeps its actions, DOM snapshots, console and network; not a screencast of every test, which
    // cost Chromium half again its CPU (upload and restrictions specs: 112 s of Chromium's CPU against 71, 109 s
    // against 94 to run).
    trace: { mode: 'retain-on-failure', screenshots: false },
    viewport: { width: 1100, height: 900 },
  },
});
