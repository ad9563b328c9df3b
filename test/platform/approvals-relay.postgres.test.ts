// Issue #38: the owner approves a pending tool call through the panel relay of the platform.
// The panel example actor, with the approvals panel and a tool that needs approval, runs as two
// replicas on PostgreSQL behind the gateway; a chat through the edge pauses (the owner's
// tenant); the owner sees the waiting calls at /relay/<ref>/panel/approvals/data, approves one
// and denies the other through /relay/<ref>/panel/approvals/action, and the run completes; then
// the same on the panel's page in chromium. Saves test-results/platform/approvals-panel-*.png.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import panelActor from '../../examples/panel-workflow-actor/src/actor.js';
import { createApp as createPanelActor } from '../../examples/panel-workflow-actor/src/app.js';
import panelConfig from '../../examples/panel-workflow-actor/src/platform/config.json' with { type: 'json' };
import { createPlatformGateway, type PlatformGateway } from '../../platform/gateway/index.js';
import type { PlatformConfig } from '../../src/config/platform-config.js';
import { approvalsPanel, statsPanel } from '../../src/index.js';
import { completion, fakeOpenAIForThisFile } from '../agent/fake-openai-server.js';
import { fakeModelEnv } from '../agent/fixtures/fake-model-env.js';
import { mailCall, sendEmail, sent } from '../agent/fixtures/mail-send-tool.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../surfaces/playground-in-chromium.js';
import { PANEL_REF } from './support/example-pools.js';
import { startInProcessPool, type InProcessPool } from './support/in-process-pool.js';
import { requirePostgres } from './support/postgres-required.js';
import { serveOnLoopbackPort } from './support/serve-gateway.js';

const schemas = requirePostgres('actorkit_approvals_relay');
const screenshots = fileURLToPath(new URL('../../test-results/platform/', import.meta.url));
const server = await fakeOpenAIForThisFile();
const approvals = approvalsPanel();
/** The panel example's configuration, declaring the approvals panel beside the stats panel. */
const config = {
  ...panelConfig,
  panels: [...panelConfig.panels, { slug: approvals.slug, title: approvals.title, description: approvals.description }],
} as unknown as PlatformConfig;

let pool: InProcessPool;
let gateway: PlatformGateway;
let front: { url: string; close(): Promise<void> };
const owner = { Authorization: 'Bearer ' };
const edgeKey = () => ({ 'X-API-Key': gateway.edgeKey(PANEL_REF) as string });
const relay = (path: string, init: RequestInit = {}) => fetch(`${front.url}/relay/${PANEL_REF}${path}`, init);
const decide = (payload: unknown, headers: Record<string, string> = owner) =>
  relay('/panel/approvals/action', {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ action: 'decide', payload }),
  });

/** A chat through the edge that the model answers with a mail_send call to each of `to`; the paused reply. */
async function pausedChat(session: string, to: readonly string[], answer: string) {
  const calls = to.map((address, index) => mailCall(`call_${session}_${index}`, address));
  server.reply(
    { kind: 'json', body: completion(null, { toolCalls: calls }) },
    { kind: 'json', body: completion(answer) },
  );
  const chat = await fetch(`${front.url}/api/v1/k/${PANEL_REF}/chat`, {
    method: 'POST',
    headers: { ...edgeKey(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_identifier: 'ann', session_id: session, message: `Mail ${to.join(' and ')}` }),
  });
  return (await chat.json()) as { id: string; status: string; approvals: [{ id: string }, { id: string }] };
}

/** Reads the run through the edge every 50 ms until it completed (or 10 s passed); the run as last read. */
async function runOnceCompleted(runId: string): Promise<{ state: string; reply?: unknown }> {
  let run = { state: 'running' } as { state: string; reply?: unknown };
  for (const deadline = Date.now() + 10_000; run.state !== 'completed' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    run = await (await fetch(`${front.url}/api/v1/k/${PANEL_REF}/status/${runId}`, { headers: edgeKey() })).json();
  }
  return run;
}

/** The content of the last message the model was sent: what the actor told it of the last tool call. */
const lastToolMessage = () => server.requests.at(-1)?.body.messages.at(-1);

beforeAll(async () => {
  const databaseUrl = await schemas.create();
  pool = await startInProcessPool({
    ref: PANEL_REF,
    config,
    replicas: 2,
    makeApp: (index, logger) =>
      createPanelActor(
        {
          ACTOR_PLATFORM: 'true',
          LOG_LEVEL: 'info',
          DATABASE_URL: databaseUrl,
          INSTANCE_ID: `${PANEL_REF}-${index}`,
          WORKFLOW_BASE_URL: 'http://127.0.0.1:9',
          ...fakeModelEnv(server.baseUrl),
        },
        { logger, definition: { ...panelActor, panels: [statsPanel(), approvals] }, tools: [sendEmail] },
      ),
  });
  gateway = createPlatformGateway({ pools: new Map([[PANEL_REF, pool]]) });
  front = await serveOnLoopbackPort(gateway.fetch);
  owner.Authorization = `Bearer ${gateway.ownerToken}`;
}, 60_000);
afterAll(async () => {
  await front?.close();
  await gateway?.close();
  await pool?.close();
  await schemas.dropAll();
});

describe('the approvals panel through the panel relay', () => {
  it('shows the owner the waiting calls; the owner approves one and denies the other, and the run completes', async () => {
    sent.length = 0;
    const paused = await pausedChat('relay-1', ['ada@x', 'bob@x'], 'Sent to Ada; Bob was refused.');
    expect(paused).toMatchObject({ status: 'awaiting_input' });
    const [ada, bob] = paused.approvals;

    const page = await relay('/panel/approvals', { headers: owner });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Approvals');
    const data = await (await relay('/panel/approvals/data', { headers: owner })).json();
    expect(data).toMatchObject({
      tenant_id: 'owner',
      waiting_runs: 1,
      pending: 2,
      approvals: {
        [ada.id]: {
          run_id: paused.id,
          session_id: 'relay-1',
          tool: 'mail_send',
          arguments: { to: 'ada@x', body: 'hi' },
        },
        [bob.id]: { run_id: paused.id, tool: 'mail_send', arguments: { to: 'bob@x', body: 'hi' } },
      },
    });

    // An edge key is no owner credential: 401, and nothing is decided.
    const withEdgeKey = await decide({ run_id: paused.id, approval_id: ada.id, approved: true }, edgeKey());
    expect(withEdgeKey.status).toBe(401);
    expect(await withEdgeKey.json()).toMatchObject({ code: 'missing_owner_credentials' });
    expect((await (await relay('/panel/approvals/data', { headers: owner })).json()).pending).toBe(2);
    const malformed = await decide({ run_id: paused.id, approval_id: ada.id });
    expect(malformed.status).toBe(422);
    expect(await malformed.json()).toMatchObject({ errors: [{ pointer: '/payload/approved' }] });

    const approved = await decide({ run_id: paused.id, approval_id: ada.id, approved: true });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ result: { decision: 'approved', state: 'awaiting_input' } });
    const denied = await decide({ run_id: paused.id, approval_id: bob.id, approved: false, reason: 'not Bob' });
    expect(await denied.json()).toMatchObject({ result: { decision: 'denied', state: 'running' } });

    expect(await runOnceCompleted(paused.id)).toMatchObject({
      state: 'completed',
      reply: { message: { content: 'Sent to Ada; Bob was refused.' } },
    });
    expect(sent).toEqual(['ada@x']);
    expect(lastToolMessage()).toMatchObject({
      tool_call_id: 'call_relay-1_1',
      content: JSON.stringify({ error: 'A person denied this tool call: not Bob', code: 'approval_denied' }),
    });
    expect(await (await relay('/panel/approvals/data', { headers: owner })).json()).toMatchObject({
      pending: 0,
      approvals: {},
    });
    // Decided once: a second answer is refused.
    const again = await decide({ run_id: paused.id, approval_id: ada.id, approved: false });
    expect(again.status).toBe(409);
  });

  it('in chromium: the owner sees each waiting call as a card, approves one and denies the other with a reason', async () => {
    sent.length = 0;
    const paused = await pausedChat('relay-2', ['cy@x', 'di@x'], 'Mailed Cy; Di was refused.');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, extraHTTPHeaders: owner });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${front.url}/relay/${PANEL_REF}/panel/approvals`);
      const cards = page.locator('#approvals article.approval');
      await expect.poll(() => cards.count()).toBe(2);
      expect(await cards.locator('h2').allTextContents()).toEqual(['mail_send', 'mail_send']);
      const cardTo = (to: string) => page.locator('#approvals article.approval', { hasText: `"to": "${to}"` });
      expect(await cardTo('cy@x').locator('.meta').textContent()).toContain(`run ${paused.id} · session relay-2`);
      mkdirSync(screenshots, { recursive: true });
      await page.screenshot({ path: `${screenshots}approvals-panel-waiting.png`, fullPage: true });

      await cardTo('cy@x').locator('button.approve').click();
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/^Approved apr_.*awaiting_input\.$/);
      await expect.poll(() => cards.count()).toBe(1);
      await cardTo('di@x').locator('.deny-reason').fill('Di is on leave');
      await cardTo('di@x').locator('button.deny').click();
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/^Denied apr_.*running\.$/);
      await page.locator('#approvals .empty').waitFor();
      await page.screenshot({ path: `${screenshots}approvals-panel-answered.png`, fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
    expect(await runOnceCompleted(paused.id)).toMatchObject({
      state: 'completed',
      reply: { message: { content: 'Mailed Cy; Di was refused.' } },
    });
    expect(sent).toEqual(['cy@x']);
    expect(lastToolMessage()).toMatchObject({
      content: JSON.stringify({ error: 'A person denied this tool call: Di is on leave', code: 'approval_denied' }),
    });
  });
});
