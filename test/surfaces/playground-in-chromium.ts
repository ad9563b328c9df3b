import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import type { ActorApp } from '../../src/app/create-actor-app.js';
import { serveOnLoopback } from './loopback.js';

/** The Debian chromium the browser tests drive (`CHROMIUM_PATH` overrides it); never a downloaded one. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags every browser test launches chromium with. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Whether chromium is absent here (then the playground browser tests skip; CI refuses to). */
export const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI === 'true')
  throw new Error(`The playground browser tests need chromium at ${CHROMIUM}; CI must not skip it`);

/** A served actor with its playground open in headless chromium. */
export interface OpenPlayground {
  readonly page: Page;
  /** Closes the browser, then the server. */
  close(): Promise<void>;
}

/**
 * Serves `app` on loopback and opens its `/playground` in chromium, waiting for `ready`.
 * @param app an actor app with `PLAYGROUND_ENABLED` on
 * @param ready a selector that appears once the page has done what the test waits for
 */
export async function openPlayground(app: ActorApp, ready: string): Promise<OpenPlayground> {
  const server = await serveOnLoopback(app);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${server.url}/playground`);
  await page.locator(ready).waitFor();
  return {
    page,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}
