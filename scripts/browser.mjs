// Launches the system's Chromium (Debian's `chromium` or
// `chromium-headless-shell`) through playwright-core. Playwright's own browser
// download cannot run on an offline machine, so the executable is always given.
import * as fs from 'node:fs';
import { chromium } from 'playwright-core';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  const found = CANDIDATES.find((file) => fs.existsSync(file));
  if (!found) {
    throw new Error(
      'No Chromium found. Install Debian’s: apt-get install -y --no-install-recommends chromium ' +
        '(or set CHROMIUM_PATH to a Chromium or Chrome executable).',
    );
  }
  return found;
}

// No sandbox and no GPU: CI runs as root in a container. The rest keeps the
// browser from reaching for the network (updates, sync, QUIC probes).
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  // Resolve no name but the loopback: the workbench asks for remote assets
  // (the extension gallery, product icons) that this machine cannot reach.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export const VIEWPORT = { width: 1400, height: 900 };

/** Resolves with { browser, page }; close the browser with browser.close(). */
export async function launchBrowser({ viewport = VIEWPORT } = {}) {
  const browser = await chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: ARGS,
    timeout: 60_000,
  });
  try {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    return { browser, page };
  } catch (error) {
    await browser.close().catch(() => {});
    throw error;
  }
}
