// The external API edge of the local platform, over the examples hosted in-process (one replica
// each, in-memory store): what it exposes, what it never does, the key and its rotation.
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformGateway, type PlatformGateway } from '../../platform/gateway/index.js';
import { REGISTER_ACTOR_PATH } from '../../cli/publish/registration-steps.js';
import type { PlatformConfig } from '../../src/config/platform-config.js';
import { MCP_REF, PANEL_REF, startExamplePools, type ExamplePools } from './support/example-pools.js';

const ORIGIN = 'http://127.0.0.1:8700';
const OWNER_TOKEN = 'owner-token-of-the-edge-tests';
let hosted: ExamplePools;
let gateway: PlatformGateway;

const edge = (ref: string, rest: string, init: RequestInit & { key?: string | null } = {}) => {
  const { key, ...rest2 } = init;
  const headers = new Headers(rest2.headers);
  const given = key === undefined ? gateway.edgeKey(ref) : key;
  if (given !== null && given !== undefined) headers.set('X-API-Key', given);
  return gateway.fetch(new Request(`${ORIGIN}/api/v1/k/${ref}/${rest}`, { ...rest2, headers }));
};
const chatBody = (message: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ user_identifier: 'u1', session_id: 's1', message, ...extra });
const json = { 'Content-Type': 'application/json' };

beforeAll(async () => {
  hosted = await startExamplePools({ panel: 'memory://', mcp: 'memory://' }, 1);
  gateway = createPlatformGateway({ pools: hosted.pools, ownerToken: OWNER_TOKEN, reconcileIntervalMs: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await hosted?.close();
});

describe('the external edge', () => {
  it("answers a REST chat as JSON, for the key owner's tenant whatever tenant the caller sends", async () => {
    const answer = await edge(PANEL_REF, 'chat', {
      method: 'POST',
      headers: { ...json, 'X-Tenant-Id': 'someone-else' },
      body: chatBody('hello'),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { message: { content: string } }).message.content).toBeTruthy();
    const owner = (await (await edge(PANEL_REF, 'status')).json()) as {
      scope: string;
      tenant_id: string;
      invocations: number;
    };
    expect(owner).toMatchObject({ scope: 'tenant', tenant_id: 'owner', invocations: 1 });
    const stranger = (await (await hosted.panel.forwardTo(0, new Request('http://x/stats/someone-else'))).json()) as {
      invocations: number;
    };
    expect(stranger.invocations).toBe(0);
  });

  it('counts a chat for the key owner even when its body names another tenant', async () => {
    const before = (await (await edge(PANEL_REF, 'status')).json()) as { invocations: number };
    const answer = await edge(PANEL_REF, 'chat', {
      method: 'POST',
      headers: json,
      body: chatBody('hi', { metadata: { tenant_id: 'body-tenant' } }),
    });
    expect(answer.status).toBe(200);
    expect(((await (await edge(PANEL_REF, 'status')).json()) as { invocations: number }).invocations).toBe(
      before.invocations + 1,
    );
    expect(
      (
        (await (await hosted.panel.forwardTo(0, new Request('http://x/stats/body-tenant'))).json()) as {
          invocations: number;
        }
      ).invocations,
    ).toBe(0);
  });

  it('passes an SSE chat through as the replica streams it', async () => {
    const answer = await edge(PANEL_REF, 'chat', {
      method: 'POST',
      headers: { ...json, Accept: 'text/event-stream' },
      body: chatBody('stream please', { session_id: 's-stream' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    expect(answer.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const text = await answer.text();
    expect(text).toContain('"type":"text-delta"');
    expect(text).toContain('"type":"finish"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it("runs @ag-ui/client's HttpAgent through chat/ag-ui with the instance key (expose_ag_ui), counted as a chat", async () => {
    const before = (await (await edge(MCP_REF, 'status')).json()) as { invocations: number };
    const agent = new HttpAgent({
      url: `${ORIGIN}/api/v1/k/${MCP_REF}/chat/ag-ui`,
      headers: { 'X-API-Key': gateway.edgeKey(MCP_REF) as string },
      threadId: 'ag-ui-thread',
      initialMessages: [{ id: 'm1', role: 'user', content: 'use tool weather_lookup with {"topic": "rain"}' }],
      // The gateway is in-process here: its fetch stands in for the network.
      fetch: (url, init) => gateway.fetch(new Request(url, init)),
    });
    const events: BaseEvent[] = [];
    await agent.runAgent({ runId: 'edge-run-1' }, { onEvent: ({ event }) => void events.push(event) });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types).toEqual(expect.arrayContaining(['TOOL_CALL_START', 'TOOL_CALL_RESULT', 'TEXT_MESSAGE_CONTENT']));
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', runId: 'edge-run-1', outcome: { type: 'success' } });
    expect(((await (await edge(MCP_REF, 'status')).json()) as { invocations: number }).invocations).toBe(
      before.invocations + 1,
    );
    const notServed = await edge(PANEL_REF, 'chat/ag-ui', { method: 'POST', headers: json, body: '{}' });
    expect(notServed.status).toBe(404);
    expect((await edge(MCP_REF, 'chat/other', { method: 'POST', headers: json, body: '{}' })).status).toBe(404);
  });

  it('counts a turn once for reconciliation when a retried Idempotency-Key replays it', async () => {
    const before = (await gateway.reconcile()).actors.find((actor) => actor.ref === PANEL_REF)?.answered ?? 0;
    for (const _attempt of [1, 2]) {
      const answer = await edge(PANEL_REF, 'chat', {
        method: 'POST',
        headers: { ...json, 'Idempotency-Key': 'retry-me-1' },
        body: chatBody('once', { session_id: 's-idem' }),
      });
      expect(answer.status).toBe(200);
      await answer.body?.cancel();
    }
    const report = await gateway.reconcile();
    expect(report.actors.find((actor) => actor.ref === PANEL_REF)).toMatchObject({ answered: before + 1, drift: [] });
  });

  it('answers health and status', async () => {
    const health = await edge(MCP_REF, 'health');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: expect.stringMatching(/ok|degraded/) });
    const status = await edge(MCP_REF, 'status');
    expect(await status.json()).toMatchObject({ scope: 'tenant', tenant_id: 'owner' });
  });

  it.each([
    ['settings', 'GET'],
    ['settings', 'PUT'],
    ['settings/schema', 'GET'],
    ['SETTINGS', 'GET'],
    ['oauth/authorize?provider=github', 'GET'],
    ['oauth/callback', 'GET'],
    ['%73ettings', 'GET'],
  ])('never reaches %s (%s), key or not: 403 never_exposed', async (path, method) => {
    for (const key of [undefined, null]) {
      const answer = await edge(PANEL_REF, path, {
        method,
        key,
        ...(method === 'PUT' ? { headers: json, body: '{}' } : {}),
      });
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(await answer.json()).toMatchObject({ code: 'never_exposed', status: 403 });
    }
  });

  it.each([
    'agent/invoke',
    'stats',
    'metrics',
    'panel/stats',
    'api/weather/_peer_check',
    'chat/../settings',
    'chat/extra',
    '',
  ])('has no route %s: 404', async (path) => {
    const answer = await edge(MCP_REF, path);
    expect([403, 404]).toContain(answer.status);
    const body = (await answer.json()) as { code: string };
    expect(answer.status === 403 ? body.code : 'not_found').toBe(answer.status === 403 ? 'never_exposed' : body.code);
  });

  it('offers mcp only where external_api.operations lists it', async () => {
    const answer = await edge(PANEL_REF, 'mcp', {
      method: 'POST',
      headers: { ...json, Accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ code: 'operation_not_exposed' });
  });

  it('refuses a wrong method with 405 and Allow', async () => {
    const answer = await edge(PANEL_REF, 'chat');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });

  it("refuses a missing key, a wrong key and another instance's key with 401", async () => {
    const missing = await edge(PANEL_REF, 'health', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('ApiKey header="X-API-Key"');
    expect(await missing.json()).toMatchObject({ code: 'missing_edge_key' });
    for (const key of ['wrong', gateway.edgeKey(MCP_REF) as string, OWNER_TOKEN]) {
      const wrong = await edge(PANEL_REF, 'health', { key });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ code: 'invalid_edge_key' });
    }
  });

  it('answers 404 for an instance it does not host', async () => {
    const answer = await edge('nobody', 'health', { key: 'whatever' });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ code: 'unknown_actor' });
  });

  it('rotates a key for the owner: the old key is refused at once, the new one works', async () => {
    const old = gateway.edgeKey(PANEL_REF) as string;
    const byEdgeKey = await gateway.fetch(
      new Request(`${ORIGIN}/platform/actors/${PANEL_REF}/edge-key`, { method: 'POST', headers: { 'X-API-Key': old } }),
    );
    expect(byEdgeKey.status).toBe(401);
    const rotated = await gateway.fetch(
      new Request(`${ORIGIN}/platform/actors/${PANEL_REF}/edge-key`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${OWNER_TOKEN}` },
      }),
    );
    expect(rotated.status).toBe(200);
    const { edge_key: fresh, rotated_at } = (await rotated.json()) as { edge_key: string; rotated_at: string };
    expect(fresh).not.toBe(old);
    expect(rotated_at).toBeTruthy();
    expect((await edge(PANEL_REF, 'health', { key: old })).status).toBe(401);
    expect((await edge(PANEL_REF, 'health', { key: fresh })).status).toBe(200);
  });

  it('answers the creator-hub link the platform prints with the dashboard, where every registered actor is', async () => {
    const answer = await gateway.fetch(new Request(`${ORIGIN}${REGISTER_ACTOR_PATH}`));
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
  });

  it('lists the edges with masked keys for the owner only', async () => {
    expect((await gateway.fetch(new Request(`${ORIGIN}/platform/actors`))).status).toBe(401);
    const listed = await gateway.fetch(
      new Request(`${ORIGIN}/platform/actors`, { headers: { Authorization: `Bearer ${OWNER_TOKEN}` } }),
    );
    const actors = (await listed.json()) as {
      ref: string;
      edge: { url: string; key_masked: string; operations: string[] };
    }[];
    const text = JSON.stringify(actors);
    for (const ref of [PANEL_REF, MCP_REF]) expect(text).not.toContain(gateway.edgeKey(ref) as string);
    expect(actors.find((actor) => actor.ref === MCP_REF)?.edge).toMatchObject({
      url: `${ORIGIN}/api/v1/k/${MCP_REF}`,
      operations: ['chat', 'status', 'health', 'mcp'],
      key_masked: expect.stringMatching(/^akedge_….{4}$/),
    });
  });
});

describe('an instance without an edge', () => {
  it('has none: 404 external_api_disabled on every operation, even with a key', async () => {
    const closed = {
      ...hosted.panel,
      config: {
        ...hosted.panel.config,
        features: { ...hosted.panel.config.features, platform_expose_external_api: false },
        external_api: { enabled: false, operations: [] },
      } as PlatformConfig,
    };
    const dark = createPlatformGateway({ pools: new Map([[PANEL_REF, closed]]), reconcileIntervalMs: 0 });
    for (const operation of ['chat', 'status', 'health', 'settings']) {
      const answer = await dark.fetch(
        new Request(`${ORIGIN}/api/v1/k/${PANEL_REF}/${operation}`, {
          headers: { 'X-API-Key': dark.edgeKey(PANEL_REF) as string },
        }),
      );
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ code: 'external_api_disabled' });
    }
    await dark.close();
  });
});
