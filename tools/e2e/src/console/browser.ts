import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package; CHROMIUM_PATH names another build. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Headless Chromium driven by playwright-core; fails, saying how to install it, when the binary is missing. `extraArgs` go after the usual switches. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `the browser tests need Chromium at ${CHROMIUM_PATH}: install it (Debian/Ubuntu: apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...ARGS, ...extraArgs] });
}
