// Runs through the edge of the served gateway, two replicas per instance on one PostgreSQL (one
// schema per instance, as `actorkit platform --database-url` does): a background run is polled
// through the edge whichever replica answers, and a run id of the other instance is 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_REF, PANEL_REF } from './support/example-pools.js';
import { startHostedGateway, type HostedGateway } from './support/hosted-gateway.js';
import { requirePostgres } from './support/postgres-required.js';

const schemas = requirePostgres('actorkit_edge_runs');
let front: HostedGateway;

interface Run {
  id: string;
  state: string;
  reply?: { message: { content: string } };
}

const keyOf = (ref: string) => ({ 'X-API-Key': front.gateway.edgeKey(ref) as string });

/** Starts a background chat through the edge; answers the run and the absolute URL of its Location. */
async function startBackground(ref: string, session: string): Promise<{ run: Run; url: string }> {
  const answer = await fetch(`${front.url}/api/v1/k/${ref}/chat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...keyOf(ref) },
    body: JSON.stringify({ user_identifier: 'u1', session_id: session, message: 'hello', background: true }),
  });
  expect(answer.status).toBe(202);
  const location = answer.headers.get('location') as string;
  const run = (await answer.json()) as Run;
  expect(location).toBe(`/api/v1/k/${ref}/status/${encodeURIComponent(run.id)}`);
  return { run, url: new URL(location, front.url).href };
}

beforeAll(async () => {
  front = await startHostedGateway(schemas, { reconcileIntervalMs: 0, runPollIntervalMs: 10 });
});
afterAll(() => front?.close());

describe('runs through the edge, two replicas on PostgreSQL', () => {
  it('polls a background run through the edge, whichever replica answers, until completed; counted once', async () => {
    const { url } = await startBackground(PANEL_REF, 's-pg-1');
    let run: Run | undefined;
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const answer = await fetch(url, { headers: keyOf(PANEL_REF) });
      expect(answer.status).toBe(200);
      run = (await answer.json()) as Run;
      if (run.state === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(run?.state).toBe('completed');
    expect(run?.reply?.message.content).toBeTruthy();
    // Both replicas serve it: the pool round-robins, so two reads in a row reach both.
    for (const _replica of [0, 1]) expect((await fetch(url, { headers: keyOf(PANEL_REF) })).status).toBe(200);
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const actor = (await front.gateway.reconcile()).actors.find((candidate) => candidate.ref === PANEL_REF);
      if (actor?.answered === 1 && actor.in_flight === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await front.gateway.reconcile()).actors.find((actor) => actor.ref === PANEL_REF)).toMatchObject({
      answered: 1,
      counted: 1,
      in_flight: 0,
      drift: [],
    });
  });

  it("answers 404 run_not_found for the other instance's run on the same PostgreSQL", async () => {
    const { run } = await startBackground(MCP_REF, 's-pg-2');
    for (const path of [`status/${run.id}`, `status/${run.id}/stream`]) {
      const answer = await fetch(`${front.url}/api/v1/k/${PANEL_REF}/${path}`, { headers: keyOf(PANEL_REF) });
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ code: 'run_not_found' });
    }
    expect((await fetch(`${front.url}/api/v1/k/${MCP_REF}/status/${run.id}`, { headers: keyOf(MCP_REF) })).status).toBe(
      200,
    );
  });
});
