// Runs through the external edge (issue #37): a background chat answers 202 with the edge's own
// Location, `status/<run id>` and its `/stream` serve the run of the instance's owner tenant,
// and the gateway counts the turn for reconciliation only once the run has completed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciledAt } from './support/hosted-gateway.js';
import { createPlatformGateway, type PlatformGateway } from '../../platform/gateway/index.js';
import type { PlatformConfig } from '../../src/config/platform-config.js';
import { MCP_REF, PANEL_REF, startExamplePools, type ExamplePools } from './support/example-pools.js';

const ORIGIN = 'http://127.0.0.1:8700';
let hosted: ExamplePools;
let gateway: PlatformGateway;

interface Run {
  id: string;
  session_id: string;
  state: string;
  background: boolean;
  reply?: { message: { content: string } };
}

const edge = (ref: string, rest: string, init: RequestInit & { key?: string } = {}) => {
  const { key, ...others } = init;
  const headers = new Headers(others.headers);
  headers.set('X-API-Key', key ?? (gateway.edgeKey(ref) as string));
  return gateway.fetch(new Request(`${ORIGIN}/api/v1/k/${ref}/${rest}`, { ...others, headers }));
};
const chatInit = (message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify({ user_identifier: 'u1', session_id: 's-runs', message, ...extra }),
});

/** Starts a background chat through the edge and answers the 202's run and Location. */
async function startBackground(ref: string, message: string): Promise<{ run: Run; location: string }> {
  const answer = await edge(ref, 'chat', chatInit(message, { background: true }));
  expect(answer.status).toBe(202);
  return { run: (await answer.json()) as Run, location: answer.headers.get('location') ?? '' };
}

/** Polls a run through the edge path `location` until it is no longer in progress. */
async function pollUntilEnded(ref: string, location: string): Promise<Run> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const answer = await gateway.fetch(
      new Request(ORIGIN + location, { headers: { 'X-API-Key': gateway.edgeKey(ref) as string } }),
    );
    expect(answer.status).toBe(200);
    const run = (await answer.json()) as Run;
    if (!['queued', 'running', 'awaiting_input'].includes(run.state)) return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`The run at ${location} did not end`);
}

beforeAll(async () => {
  hosted = await startExamplePools({ panel: 'memory://', mcp: 'memory://' }, 1);
  gateway = createPlatformGateway({ pools: hosted.pools, reconcileIntervalMs: 0, runPollIntervalMs: 10 });
});
afterAll(async () => {
  await gateway?.close();
  await hosted?.close();
});

describe('runs through the external edge', () => {
  it('answers a background chat 202 with the edge Location, polled through status until completed, counted once', async () => {
    const before = (await gateway.reconcile()).actors.find((actor) => actor.ref === PANEL_REF)?.answered ?? 0;
    const { run, location } = await startBackground(PANEL_REF, 'hello in the background');
    expect(run).toMatchObject({ id: expect.stringMatching(/^inv_/), background: true, session_id: 's-runs' });
    expect(location).toBe(`/api/v1/k/${PANEL_REF}/status/${encodeURIComponent(run.id)}`);
    const ended = await pollUntilEnded(PANEL_REF, location);
    expect(ended).toMatchObject({ id: run.id, state: 'completed' });
    expect(ended.reply?.message.content).toBeTruthy();
    expect(await reconciledAt(gateway, PANEL_REF, before + 1)).toMatchObject({ answered: before + 1, drift: [] });
  });

  it('keeps a 202 under way, not counted, until the watch sees its run end', async () => {
    const slow = createPlatformGateway({ pools: hosted.pools, reconcileIntervalMs: 0, runPollIntervalMs: 60_000 });
    try {
      const answer = await slow.fetch(
        new Request(`${ORIGIN}/api/v1/k/${PANEL_REF}/chat`, {
          ...chatInit('counted later', { background: true }),
          headers: { 'Content-Type': 'application/json', 'X-API-Key': slow.edgeKey(PANEL_REF) as string },
        }),
      );
      expect(answer.status).toBe(202);
      await pollUntilEnded(PANEL_REF, answer.headers.get('location') as string);
      const actor = (await slow.reconcile()).actors.find((candidate) => candidate.ref === PANEL_REF);
      expect(actor).toMatchObject({ answered: 0, in_flight: 1, counted: 1, drift: [] });
    } finally {
      await slow.close();
    }
  });

  it('takes Prefer: respond-async as background too', async () => {
    const answer = await edge(PANEL_REF, 'chat', chatInit('async please', {}, { Prefer: 'respond-async' }));
    expect(answer.status).toBe(202);
    const run = (await answer.json()) as Run;
    expect(answer.headers.get('location')).toBe(`/api/v1/k/${PANEL_REF}/status/${encodeURIComponent(run.id)}`);
    expect((await pollUntilEnded(PANEL_REF, answer.headers.get('location') as string)).state).toBe('completed');
  });

  it('streams a run through status/<id>/stream, from the start or after a part', async () => {
    const { location } = await startBackground(PANEL_REF, 'stream me later');
    await pollUntilEnded(PANEL_REF, location);
    const whole = await gateway.fetch(
      new Request(`${ORIGIN}${location}/stream`, { headers: { 'X-API-Key': gateway.edgeKey(PANEL_REF) as string } }),
    );
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toContain('text/event-stream');
    const text = await whole.text();
    expect(text).toContain('"type":"finish"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids.length).toBeGreaterThan(1);
    const rest = await gateway.fetch(
      new Request(`${ORIGIN}${location}/stream?after=${ids[0]}`, {
        headers: { 'X-API-Key': gateway.edgeKey(PANEL_REF) as string },
      }),
    );
    const restIds = [...(await rest.text()).matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(restIds).toEqual(ids.slice(1));
  });

  it("serves the owner's run whatever X-Tenant-Id the caller sends", async () => {
    const { run, location } = await startBackground(PANEL_REF, 'mine');
    await pollUntilEnded(PANEL_REF, location);
    const answer = await edge(PANEL_REF, `status/${run.id}`, { headers: { 'X-Tenant-Id': 'someone-else' } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Run).id).toBe(run.id);
  });

  it("answers 404 run_not_found for another tenant's run, on status and its stream", async () => {
    const direct = await hosted.panel.forwardTo(
      0,
      new Request('http://x/agent/invoke', {
        ...chatInit('not the owner', { background: true }, { 'X-Tenant-Id': 'someone-else' }),
      }),
    );
    expect(direct.status).toBe(202);
    const { id } = (await direct.json()) as Run;
    for (const path of [`status/${id}`, `status/${id}/stream`]) {
      const answer = await edge(PANEL_REF, path);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(await answer.json()).toMatchObject({ code: 'run_not_found', status: 404 });
    }
  });

  it('answers 404 run_not_found for an unknown run id', async () => {
    const answer = await edge(PANEL_REF, 'status/inv_00000000-0000-4000-8000-000000000000');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(await answer.json()).toMatchObject({ code: 'run_not_found', status: 404 });
  });

  it("answers 404 for another instance's run, even with that instance's key", async () => {
    const { run, location } = await startBackground(MCP_REF, 'a run of the mcp instance');
    expect(location).toBe(`/api/v1/k/${MCP_REF}/status/${encodeURIComponent(run.id)}`);
    expect((await pollUntilEnded(MCP_REF, location)).state).toBe('completed');
    const elsewhere = await edge(PANEL_REF, `status/${run.id}`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ code: 'run_not_found' });
    const wrongKey = await edge(PANEL_REF, `status/${run.id}`, { key: gateway.edgeKey(MCP_REF) as string });
    expect(wrongKey.status).toBe(401);
  });

  it.each([
    ['status/inv_1/cancel', 'GET', 404],
    ['status/inv_1/stream/more', 'GET', 404],
    ['status/inv_1', 'POST', 405],
    ['status/%E0%A4%A', 'GET', 404],
  ])('has no route %s (%s): %i', async (path, method, status) => {
    const answer = await edge(PANEL_REF, path, { method });
    expect(answer.status).toBe(status);
  });

  it('still answers plain status with the owner tenant stats', async () => {
    const answer = await edge(PANEL_REF, 'status');
    expect(await answer.json()).toMatchObject({ scope: 'tenant', tenant_id: 'owner' });
  });
});

describe('an edge without status', () => {
  it('answers a background chat 202 without a Location it could not follow', async () => {
    const chatOnly = {
      ...hosted.panel,
      config: {
        ...hosted.panel.config,
        external_api: { enabled: true, operations: ['chat', 'health'] },
      } as PlatformConfig,
    };
    const narrow = createPlatformGateway({
      pools: new Map([[PANEL_REF, chatOnly]]),
      reconcileIntervalMs: 0,
      runPollIntervalMs: 10,
    });
    const answer = await narrow.fetch(
      new Request(`${ORIGIN}/api/v1/k/${PANEL_REF}/chat`, {
        ...chatInit('no status here', { background: true }),
        headers: { 'Content-Type': 'application/json', 'X-API-Key': narrow.edgeKey(PANEL_REF) as string },
      }),
    );
    expect(answer.status).toBe(202);
    expect(answer.headers.get('location')).toBeNull();
    await narrow.close();
  });
});
