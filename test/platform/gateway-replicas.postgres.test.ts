// The gateway in front of two replicas per instance on PostgreSQL: the official MCP client calls a
// tool through the edge with the edge key; chats under load while a replica is killed and
// restarted; reconciliation then finds /stats equal to the turns the gateway answered, and shows
// the restart and a count nobody answered as drift.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationReport } from '../../platform/gateway/reconciliation-report.js';
import { MCP_REF, PANEL_REF } from './support/example-pools.js';
import {
  chatAroundGateway,
  chatThroughEdge,
  startHostedGateway,
  type HostedGateway,
} from './support/hosted-gateway.js';
import { requirePostgres } from './support/postgres-required.js';

const schemas = requirePostgres('actorkit_gateway');
const OWNER_TOKEN = 'owner-token-of-the-replica-tests';
let front: HostedGateway;

const chat = (ref: string, message: string, session: string) => chatThroughEdge(front, ref, message, session);
const actorOf = (report: ReconciliationReport, ref: string) => report.actors.find((actor) => actor.ref === ref);

beforeAll(async () => {
  front = await startHostedGateway(schemas, { ownerToken: OWNER_TOKEN, reconcileIntervalMs: 0 }, async (hosted) => {
    // A turn from an earlier run of the platform: the database outlives it, reconciliation must not count it.
    expect((await chatAroundGateway(hosted.panel, 'before')).status).toBe(200);
  });
});
afterAll(() => front?.close());

describe('the edge over MCP, with the official client', () => {
  it('lists the tools and calls chat twice in one session with the edge key; reconciliation counts both', async () => {
    const client = new Client({ name: 'edge-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${front.url}/api/v1/k/${MCP_REF}/mcp`), {
        requestInit: { headers: { 'X-API-Key': front.gateway.edgeKey(MCP_REF) as string } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('chat');
    const first = (await client.callTool({ name: 'chat', arguments: { message: 'Remember heliotrope' } }))
      .structuredContent as { session_id: string };
    const second = (await client.callTool({ name: 'chat', arguments: { message: 'What was it?' } }))
      .structuredContent as { session_id: string; message: { content: string } };
    expect(second.session_id).toBe(first.session_id);
    const stats = JSON.parse(
      String(((await client.readResource({ uri: 'actor://stats' })).contents[0] as { text: string }).text),
    ) as { invocations: number };
    expect(stats.invocations).toBeGreaterThanOrEqual(2);
    await client.close();
    const report = await front.gateway.reconcile();
    expect(actorOf(report, MCP_REF)).toMatchObject({ answered: 2, counted: 2, drift: [] });
    expect(actorOf(report, MCP_REF)?.tenants).toEqual([{ tenant_id: 'owner', answered: 2, counted: 2, drift: [] }]);
  });

  it('refuses the MCP client without the edge key', async () => {
    const client = new Client({ name: 'edge-test', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${front.url}/api/v1/k/${MCP_REF}/mcp`))),
    ).rejects.toThrow(/401|edge key/i);
  });
});

describe('reconciliation of two replicas on PostgreSQL', () => {
  it('finds /stats equal to the answered turns after a replica is killed mid-load and restarted, and shows the restart', async () => {
    await front.gateway.reconcile();
    let answered = 0;
    let refused = 0;
    const load = async (worker: number, turns: number) => {
      for (let turn = 0; turn < turns; turn += 1) {
        const answer = await chat(PANEL_REF, `turn ${turn}`, `load-${worker}`);
        await answer.body?.cancel();
        if (answer.status === 200) answered += 1;
        else refused += 1;
      }
    };
    const running = Promise.all([0, 1, 2, 3].map((worker) => load(worker, 15)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await front.hosted.panel.kill(1);
    expect(front.hosted.panel.replicas()[1]?.state).toBe('exited');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await front.hosted.panel.restart(1);
    await running;
    await Promise.all([0, 1].map((worker) => load(worker, 5)));
    expect(refused).toBe(0);

    const report = await front.gateway.reconcile();
    const panel = actorOf(report, PANEL_REF);
    expect(panel).toMatchObject({ answered, counted: answered, in_flight: 0 });
    expect(panel?.replicas.map((replica) => replica.restarts)).toEqual([0, 1]);
    expect(panel?.replicas.map((replica) => replica.invocations)).toEqual([answered + 1, answered + 1]);
    expect(panel?.drift).toEqual([expect.objectContaining({ kind: 'replica_restarted', replica: 1 })]);
    expect(panel?.tenants).toEqual([{ tenant_id: 'owner', answered, counted: answered, drift: [] }]);
    expect(report.tenants).toEqual([{ tenant_id: 'owner', answered: answered + 2, counted: answered + 2 }]);

    const quiet = actorOf(await front.gateway.reconcile(), PANEL_REF);
    expect(quiet?.drift).toEqual([]);
  });

  it('shows a turn the gateway did not answer as drift', async () => {
    expect((await chatAroundGateway(front.hosted.panel, 'around')).status).toBe(200);
    const report = await front.gateway.reconcile();
    const panel = actorOf(report, PANEL_REF);
    expect(panel?.counted).toBe((panel?.answered ?? 0) + 1);
    expect(panel?.drift).toEqual([expect.objectContaining({ kind: 'count_mismatch' })]);
    expect(report.drift).toBe(true);
    expect(report.events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(['replica_restarted', 'count_mismatch']),
    );
  });

  it('serves the report to the owner only', async () => {
    expect((await fetch(`${front.url}/platform/reconciliation`)).status).toBe(401);
    const answer = await fetch(`${front.url}/platform/reconciliation`, {
      headers: { Authorization: `Bearer ${OWNER_TOKEN}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(((await answer.json()) as ReconciliationReport).actors.map((actor) => actor.ref)).toEqual([
      PANEL_REF,
      MCP_REF,
    ]);
  });
});
