// Issue #38: the owner approves a pending tool call through the panel relay of the platform.
// The panel example actor, with the approvals panel and a tool that needs approval, runs as two
// replicas on PostgreSQL behind the gateway; a chat through the edge pauses (the owner's
// tenant); the owner sees the waiting calls at /relay/<ref>/panel/approvals/data, approves one
// and denies the other through /relay/<ref>/panel/approvals/action, and the run completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import panelActor from '../../examples/panel-workflow-actor/src/actor.js';
import { createApp as createPanelActor } from '../../examples/panel-workflow-actor/src/app.js';
import panelConfig from '../../examples/panel-workflow-actor/src/platform/config.json' with { type: 'json' };
import { createPlatformGateway, type PlatformGateway } from '../../platform/gateway/index.js';
import type { PlatformConfig } from '../../src/config/platform-config.js';
import { approvalsPanel, statsPanel } from '../../src/index.js';
import { completion, fakeOpenAIForThisFile } from '../agent/fake-openai-server.js';
import { fakeModelEnv, mailCall, mailSendTool } from '../agent/mail-send-tool.js';
import { PANEL_REF } from './support/example-pools.js';
import { startInProcessPool, type InProcessPool } from './support/in-process-pool.js';
import { requirePostgres } from './support/postgres-required.js';
import { serveOnLoopbackPort } from './support/serve-gateway.js';

const schemas = requirePostgres('actorkit_approvals_relay');
const server = await fakeOpenAIForThisFile();
const mail = mailSendTool();
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
const relay = (path: string, init: RequestInit = {}) => fetch(`${front.url}/relay/${PANEL_REF}${path}`, init);
const decide = (payload: unknown, headers: Record<string, string> = owner) =>
  relay('/panel/approvals/action', {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ action: 'decide', payload }),
  });

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
        { logger, definition: { ...panelActor, panels: [statsPanel(), approvals] }, tools: [mail.tool] },
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
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [mailCall('call_a', 'ada@x'), mailCall('call_b', 'bob@x')] }),
      },
      { kind: 'json', body: completion('Sent to Ada; Bob was refused.') },
    );
    const edgeKey = { 'X-API-Key': gateway.edgeKey(PANEL_REF) as string };
    const chat = await fetch(`${front.url}/api/v1/k/${PANEL_REF}/chat`, {
      method: 'POST',
      headers: { ...edgeKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'ann', session_id: 'relay-1', message: 'Mail Ada and Bob' }),
    });
    const paused = (await chat.json()) as { id: string; status: string; approvals: { id: string }[] };
    expect(paused).toMatchObject({ status: 'awaiting_input' });
    const [ada, bob] = paused.approvals as [{ id: string }, { id: string }];

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
    const withEdgeKey = await decide({ run_id: paused.id, approval_id: ada.id, approved: true }, edgeKey);
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

    let run = { state: 'running' } as { state: string; reply?: unknown };
    for (const deadline = Date.now() + 10_000; run.state !== 'completed' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await (await fetch(`${front.url}/api/v1/k/${PANEL_REF}/status/${paused.id}`, { headers: edgeKey })).json();
    }
    expect(run).toMatchObject({ state: 'completed', reply: { message: { content: 'Sent to Ada; Bob was refused.' } } });
    expect(mail.sent).toEqual(['ada@x']);
    expect(server.requests.at(-1)?.body.messages.at(-1)).toMatchObject({
      tool_call_id: 'call_b',
      content: JSON.stringify({ error: 'A person denied this tool call: not Bob', code: 'approval_denied' }),
    });
    expect(await (await relay('/panel/approvals/data', { headers: owner })).json()).toMatchObject({
      pending: 0,
      approvals: {},
    });
    // Decided once: a second answer is refused with its reason.
    const again = await decide({ run_id: paused.id, approval_id: ada.id, approved: false });
    expect(again.status).toBe(409);
  });
});
