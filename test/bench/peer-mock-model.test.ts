import { afterAll, describe, expect, it } from 'vitest';
import type { ThroughputCell } from '../../bench/bench-results.js';
import { execFileSync } from 'node:child_process';
import { ACTOR_ON_MOCK_MODEL, ACTOR_ON_OFFLINE_MODEL, type PeerComparison } from '../../bench/peers/peer-comparison.js';
import { renderPeerComparison } from '../../bench/report/render-tables.js';
import { RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { type SpawnedActor, spawnActor, waitUntilReady } from '../contract/spawn-actor.js';

const MOCK_MODEL_ENTRY = new URL('../../bench/peers/mock-model-server.mjs', import.meta.url).pathname;
const PLAIN_MODEL_CALL_ENTRY = new URL('../../bench/peers/plain-model-call.mjs', import.meta.url).pathname;
const started: SpawnedActor[] = [];
afterAll(async () => {
  for (const server of started) await server.dispose();
});

async function start(...args: Parameters<typeof spawnActor>): Promise<SpawnedActor> {
  const server = await spawnActor(...args);
  started.push(server);
  await waitUntilReady(server);
  return server;
}

describe("the peer comparison's mock model (bench/peers/mock-model-server.mjs)", () => {
  it('answers the actor as its OpenAI-compatible model, whole and streamed', async () => {
    const model = await start({ name: 'mock-model', command: process.execPath, args: [MOCK_MODEL_ENTRY] });
    const streamed = await fetch(`${model.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'mock-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const events = (await streamed.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events[0]!.slice('data: '.length)).choices[0].delta.content).toBe('Hello from the mock model.');

    const node = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node-system')!;
    const actor = await start(node, { LLM_MODEL: 'mock-model', LLM_BASE_URL: `${model.baseUrl}/v1` });
    const response = await fetch(`${actor.baseUrl}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        user_identifier: 'bench-user-1',
        session_id: 'bench-session-1',
        message: 'Hello from the bench, turn 1',
      }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).toContain('Hello from the mock model.');
    const stats = (await (await fetch(`${actor.baseUrl}/stats`)).json()) as { invocations: number; errors: number };
    expect(stats).toMatchObject({ invocations: 1, errors: 0 });
    const told = (await (await fetch(`${model.baseUrl}/ready`)).json()) as {
      lastRequestBytes: Record<string, number>;
    };
    expect(told.lastRequestBytes['mock-model']).toBeGreaterThan(100);
  });

  it('is called by the plain fetch the model call is held to, with a body of exactly the size asked', async () => {
    const model = await start({ name: 'mock-model', command: process.execPath, args: [MOCK_MODEL_ENTRY] });
    const printed = execFileSync(process.execPath, [PLAIN_MODEL_CALL_ENTRY, `${model.baseUrl}/v1`, '2345', '40', '4'], {
      encoding: 'utf8',
    });
    const measured = JSON.parse(printed) as { cpuUsPerCall: number; calls: number };
    expect(measured.calls).toBe(40);
    expect(measured.cpuUsPerCall).toBeGreaterThan(0);
    const told = (await (await fetch(`${model.baseUrl}/ready`)).json()) as {
      calls: number;
      lastRequestBytes: Record<string, number>;
    };
    expect(told).toMatchObject({ calls: 50, lastRequestBytes: { 'mock-model': 2345 } });
  });

  it('refuses a request size it cannot make, in one line', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [PLAIN_MODEL_CALL_ENTRY, 'http://127.0.0.1:9/v1', '10'], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr.trim().split('\n')).toHaveLength(1);
  });
});

function cell(
  label: string,
  stack: ThroughputCell['stack'],
  requestsPerSecond: number,
  cpuUsPerRequest: number,
): ThroughputCell {
  const latencyMs = { mean: 1, p50: 1, p90: 1, p99: 1, max: 1 };
  return {
    runtime: 'node',
    stack,
    store: stack === 'actor' ? 'sqlite' : null,
    label,
    route: 'invoke',
    connections: 32,
    durationS: 3,
    rounds: 3,
    loadAverage: 1,
    cpuUsPerRequest,
    figures: { requests: requestsPerSecond * 9, requestsPerSecond, latencyMs, non2xx: 0, socketErrors: 0 },
  };
}

describe('renderPeerComparison', () => {
  it("prints the issue's table, the actor-over-peer ratios against 40×, the model call against a plain fetch, and whether each stored what it answered", () => {
    const peer: PeerComparison = {
      runtime: 'Node 24.21.0',
      model: 'mock',
      cells: [
        cell('node24 bare Hono', 'bare', 20_000, 20),
        cell(ACTOR_ON_OFFLINE_MODEL, 'actor', 600, 500),
        cell(ACTOR_ON_MOCK_MODEL, 'actor', 400, 800),
        cell('node24 Mastra', 'peer', 10, 16_000),
      ],
      persistence: [
        {
          server: ACTOR_ON_MOCK_MODEL,
          answered: 3600,
          storedTurns: 3610,
          storedMessages: 7220,
          inFlightAtMost: 128,
          consistent: true,
        },
        {
          server: 'node24 Mastra',
          answered: 90,
          storedTurns: 80,
          storedMessages: 170,
          inFlightAtMost: 128,
          consistent: false,
        },
      ],
      plainModelCall: { requestBytes: 2900, cpuUsPerCall: 250 },
    };
    const text = renderPeerComparison(peer);
    expect(text).toContain(`| ${ACTOR_ON_MOCK_MODEL} | 400 | 2% | 800 | 3% |`);
    expect(text).toContain('| invoke req/s, actor over Mastra (both on the mock model) >= 40× | 40× | met |');
    expect(text).toContain('| CPU per invoke, Mastra over actor >= 40× | 20× | **not met** |');
    expect(text).toContain(
      '| the model call (CPU per invoke on the mock model less offline: 800 − 500 µs) over one plain `fetch` of 2900 bytes to the same mock (250 µs) <= 1.5× | 1.20× | met |',
    );
    expect(renderPeerComparison({ ...peer, plainModelCall: { requestBytes: 2900, cpuUsPerCall: 100 } })).toContain(
      '(100 µs) <= 1.5× | 3.00× | **not met** |',
    );
    expect(renderPeerComparison({ ...peer, plainModelCall: null })).not.toContain('the model call');
    expect(text).toContain('| node24 Mastra | 90 | 80 | 170 | 128 | **no** |');
  });
});
