/**
 * Headless Chromium for UI tests: Debian's `chromium` package (installed by `.ci/run`), driven by
 * playwright-core. No `npx playwright install`: the browser comes from the system, and a missing
 * browser is an error with the command that installs it, never a silent skip.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.TILLER_TEST_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile in a temp dir; `close()` removes the profile. */
export async function launchChromium(
  opts: { viewport?: { width: number; height: number } } = {},
): Promise<HeadlessBrowser> {
  try {
    fs.accessSync(CHROMIUM, fs.constants.X_OK);
  } catch {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: the UI test needs it. Install it with ` +
        '`apt-get update && apt-get install -y chromium` (.ci/run does this), or set TILLER_TEST_CHROMIUM.',
    );
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-chromium-'));
  // launchPersistentContext is how playwright passes --user-data-dir (it refuses it in `args`).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: opts.viewport ?? { width: 1400, height: 1000 },
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
