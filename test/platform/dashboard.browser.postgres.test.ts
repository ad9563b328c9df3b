// The owner's dashboard and panel relay in Debian's chromium (playwright-core): log in with the
// printed link, see the actors, replicas, edges (masked keys, reveal), totals and log lines,
// open the panel through the relay and run an action there. Saves test-results/platform/dashboard.png
// (docs/images/platform-dashboard.png is a copy of it; the suite never writes into the tree).
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_REF, PANEL_REF } from './support/example-pools.js';
import { chatThroughEdge, startHostedGateway, type HostedGateway } from './support/hosted-gateway.js';
import { requirePostgres } from './support/postgres-required.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM))
  throw new Error(`The dashboard test needs chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const SCREENSHOT = fileURLToPath(new URL('../../test-results/platform/dashboard.png', import.meta.url));

const schemas = requirePostgres('actorkit_dashboard');
let front: HostedGateway;
let browser: Browser;

const relay = (path: string, init: RequestInit = {}) => fetch(`${front.url}/relay/${PANEL_REF}${path}`, init);
const owner = { Authorization: 'Bearer ' };

beforeAll(async () => {
  front = await startHostedGateway(schemas, { reconcileIntervalMs: 500 });
  owner.Authorization = `Bearer ${front.gateway.ownerToken}`;
  for (const [ref, count] of [
    [PANEL_REF, 3],
    [MCP_REF, 2],
  ] as const) {
    for (let turn = 0; turn < count; turn += 1)
      expect((await chatThroughEdge(front, ref, `hello ${turn}`, 's1')).status).toBe(200);
  }
  await front.gateway.reconcile();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  await front?.close();
});

describe('the panel relay', () => {
  it('serves the panel, its data and its actions with the owner token', async () => {
    const page = await relay('/panel/stats', { headers: owner });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    const data = (await (await relay('/panel/stats/data', { headers: owner })).json()) as Record<string, unknown>;
    expect(JSON.stringify(data)).toContain('invocations');
    const action = await relay('/panel/stats/action', {
      method: 'POST',
      headers: { ...owner, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'tenant_stats', payload: { tenant_id: 'owner' } }),
    });
    expect(action.status).toBe(200);
    expect(await action.json()).toMatchObject({
      action: 'tenant_stats',
      result: { tenant_id: 'owner', invocations: 3 },
    });
  });

  it('refuses an edge key, no credentials and a wrong token with 401', async () => {
    const withEdgeKey = await relay('/panel/stats/data', {
      headers: { 'X-API-Key': front.gateway.edgeKey(PANEL_REF) as string },
    });
    expect(withEdgeKey.status).toBe(401);
    expect(await withEdgeKey.json()).toMatchObject({
      code: 'missing_owner_credentials',
      detail: expect.stringContaining('edge key'),
    });
    expect(await (await relay('/panel/stats')).json()).toMatchObject({ code: 'missing_owner_credentials' });
    const wrong = await relay('/panel/stats', {
      headers: { Authorization: `Bearer ${front.gateway.edgeKey(PANEL_REF)}` },
    });
    expect(await wrong.json()).toMatchObject({ code: 'invalid_owner_credentials', status: 401 });
  });

  it('serves panels only: unknown panels, other routes and other methods are refused', async () => {
    expect(await (await relay('/panel/nope', { headers: owner })).json()).toMatchObject({
      status: 404,
      code: 'unknown_panel',
    });
    for (const path of ['/settings', '/agent/invoke', '/panel/stats/../../settings', '/panel/stats/other']) {
      const answer = await relay(path, { headers: owner });
      expect(answer.status).toBe(404);
    }
    const mcpPanels = await fetch(`${front.url}/relay/${MCP_REF}/panel/stats`, { headers: owner });
    expect(await mcpPanels.json()).toMatchObject({ code: 'unknown_panel' });
    const put = await relay('/panel/stats/data', { method: 'POST', headers: owner });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET');
  });

  it('refuses an action posted from another site', async () => {
    const answer = await relay('/panel/stats/action', {
      method: 'POST',
      headers: { ...owner, 'Content-Type': 'application/json', Origin: 'https://evil.example' },
      body: '{"action":"flush","payload":{}}',
    });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toMatchObject({ code: 'origin_not_allowed' });
  });
});

describe('the dashboard in chromium', () => {
  it('asks for the owner token, then shows actors, replicas, edges, totals and log lines', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const login = await page.goto(`${front.url}/`);
    expect(login?.status()).toBe(401);
    await page.locator('input[name="token"]').fill('not-the-token-at-all');
    await page.locator('button[type="submit"]').click();
    await page.locator('#login-failed').waitFor();
    await page.locator('input[name="token"]').fill(front.gateway.ownerToken);
    await page.locator('button[type="submit"]').click();
    await page.locator(`section.actor[data-ref="${PANEL_REF}"]`).waitFor();
    expect(problems.every((problem) => problem.includes('401'))).toBe(true); // the login page answers 401, twice
    problems.length = 0;

    const panelActor = page.locator(`section.actor[data-ref="${PANEL_REF}"]`);
    expect(await panelActor.locator('.readiness').textContent()).toBe('2 of 2 replicas ready');
    expect(await panelActor.locator('tr[data-state="ready"]').count()).toBe(2);
    expect(await panelActor.locator('.edge-url').textContent()).toBe(`${front.url}/api/v1/k/${PANEL_REF}`);
    await expect.poll(() => panelActor.locator('.answered').textContent()).toBe('3');
    expect(await panelActor.locator('.counted').textContent()).toBe('3');
    expect((await panelActor.locator('.log').allTextContents()).join('\n')).toContain('invoke_finished');
    const key = panelActor.locator('code.key');
    expect(await key.textContent()).toMatch(/^akedge_….{4}$/);
    expect(await page.content()).not.toContain(front.gateway.edgeKey(PANEL_REF) as string);
    await panelActor.locator('button.reveal').click();
    await expect.poll(() => key.textContent()).toBe(front.gateway.edgeKey(PANEL_REF));
    await panelActor.locator('button.reveal').click();
    await expect.poll(() => key.textContent()).toMatch(/^akedge_…/);
    expect(await page.locator(`section.actor[data-ref="${MCP_REF}"] .panel-link`).count()).toBe(0);
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    const [panelPage] = await Promise.all([context.waitForEvent('page'), panelActor.locator('a.panel-link').click()]);
    await panelPage.waitForLoadState();
    expect(new URL(panelPage.url()).pathname).toBe(`/relay/${PANEL_REF}/panel/stats`);
    await expect.poll(() => panelPage.locator('#data tr[data-key="invocations"] td').textContent()).toBe('3');
    const lookup = panelPage.locator('form[data-action="tenant_stats"]');
    await lookup.locator('input[name="tenant_id"]').fill('owner');
    await lookup.locator('button[type="submit"]').click();
    await expect.poll(() => panelPage.locator('#result').getAttribute('data-state')).toBe('done');
    expect(JSON.parse((await panelPage.locator('#result').textContent()) ?? '{}')).toMatchObject({
      tenant_id: 'owner',
      invocations: 3,
    });
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('rotates a key from the dashboard: the old key stops working', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${front.url}/?token=${encodeURIComponent(front.gateway.ownerToken)}`);
    expect(new URL(page.url()).search).toBe('');
    const old = front.gateway.edgeKey(MCP_REF) as string;
    const section = page.locator(`section.actor[data-ref="${MCP_REF}"]`);
    await section.locator('button.rotate').click();
    await expect.poll(() => front.gateway.edgeKey(MCP_REF)).not.toBe(old);
    await expect.poll(() => section.locator('code.key').textContent()).toBe(front.gateway.edgeKey(MCP_REF));
    const refused = await fetch(`${front.url}/api/v1/k/${MCP_REF}/health`, { headers: { 'X-API-Key': old } });
    expect(refused.status).toBe(401);
    await context.close();
  });
});
