// `/docs` in chromium (issue #29 item 8): with swagger-ui-dist installed the actor serves an
// interactive reference of its own /openapi.json; behind an API key, the key the user enters in
// "Authorize" is sent as X-API-Key by "Try it out", a wrong one shows the actor's 401, and no
// request leaves loopback (the page, its files and the calls all come from the actor).
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { serveOnLoopback } from './loopback.js';
import { chromiumMissing } from './playground-in-chromium.js';

const API_KEY = 'k-docs-123';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe.skipIf(chromiumMissing)('/docs in chromium, behind an API key', () => {
  let server: ServeHandle;
  let browser: Browser;
  let page: Page;
  const requests: { url: string; apiKey: string | undefined }[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    server = await serveOnLoopback(await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY } }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (request) => requests.push({ url: request.url(), apiKey: request.headers()['x-api-key'] }));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('401')) problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${server.url}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens "Authorize", logs out of any key, enters `key` and closes the dialog. */
  async function authorize(key: string) {
    await page.locator('.scheme-container .btn.authorize').click();
    const dialog = page.locator('.modal-ux');
    const logout = dialog.locator('button:has-text("Logout")');
    if ((await logout.count()) > 0) await logout.click();
    await dialog.locator('input').fill(key);
    await dialog.locator('button.modal-btn.auth.authorize').click();
    await dialog.locator('button:has-text("Close")').click();
  }

  /** Runs GET /stats from its operation and returns the status Swagger UI shows. */
  async function tryStats(): Promise<string> {
    const operation = page.locator('#operations-default-stats');
    if ((await operation.locator('.opblock-body').count()) === 0) await operation.locator('.opblock-summary').click();
    const before = requests.filter((request) => request.url.endsWith('/stats')).length;
    await operation.locator('button.execute').click();
    await expect.poll(() => requests.filter((request) => request.url.endsWith('/stats')).length).toBe(before + 1);
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.waitFor();
    return (await status.textContent())?.trim() ?? '';
  }

  it('shows the actor’s own operations, read from its /openapi.json', async () => {
    expect(await page.locator('.swagger-ui .info .title').textContent()).toContain('Test Actor');
    expect(await page.locator('#operations-default-invoke').count()).toBe(1);
    expect(await page.locator('#operations-default-stats').count()).toBe(1);
  });

  it('sends the entered key as X-API-Key: GET /stats answers 200', async () => {
    await authorize(API_KEY);
    expect(await tryStats()).toBe('200');
    expect(requests.filter((request) => request.url.endsWith('/stats')).at(-1)?.apiKey).toBe(API_KEY);
    expect(await page.locator('#operations-default-stats .live-responses-table').textContent()).toContain(
      'invocations',
    );
  });

  it('shows the 401 of a wrong key', async () => {
    await authorize('not-the-key');
    expect(await tryStats()).toBe('401');
    expect(await page.locator('#operations-default-stats .live-responses-table').textContent()).toContain(
      'invalid_api_key',
    );
  });

  it('loaded nothing from outside loopback, and broke no rule of its Content-Security-Policy', () => {
    expect(requests.length).toBeGreaterThan(3);
    expect(requests.map((request) => new URL(request.url).origin).filter((origin) => origin !== server.url)).toEqual(
      [],
    );
    expect(requests.map((request) => new URL(request.url).pathname + new URL(request.url).search)).toEqual(
      expect.arrayContaining([
        '/docs',
        '/docs?asset=swagger-ui.css',
        '/docs?asset=swagger-ui-bundle.js',
        '/openapi.json',
      ]),
    );
    expect(problems).toEqual([]);
  });
});
