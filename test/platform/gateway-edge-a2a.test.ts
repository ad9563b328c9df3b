// A2A through the external edge of the local platform (issue #39): the official @a2a-js/sdk
// client, used as its README shows (the card resolved from a URL, the key added by an
// authenticating fetch), against the edge of support/a2a-edge.ts (the mesh example on a slow
// model, so a run is still going when it is cancelled or resubscribed to).
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, userMessage } from '../support/a2a-messages.js';
import { reconciledAt } from './support/hosted-gateway.js';
import { startA2aEdge, type A2aEdge } from './support/a2a-edge.js';
import { MCP_REF, PANEL_REF } from './support/example-pools.js';

/** The slow model answers `word1 … word8`, one word every 150 ms. */
const WORDS = 8;
let edge: A2aEdge;

/** A fetch that adds the instance's edge key to every request, as the SDK's README says to add credentials. */
const fetchWithEdgeKey = (ref: string): typeof fetch =>
  createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ 'X-API-Key': edge.gateway.edgeKey(ref) as string }),
    shouldRetryWithHeaders: async () => undefined,
  });

/** The SDK's client for an instance, from the edge's card URL. */
async function edgeClient(ref: string): Promise<Client> {
  const fetchImpl = fetchWithEdgeKey(ref);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  // The card's full URL and an empty path, as the SDK documents for a card not at the origin's root.
  return factory.createFromUrl(`${edge.url}/api/v1/k/${ref}/.well-known/agent-card.json`, '');
}

/** The text of a stream's artifact updates. */
const textOf = (events: readonly StreamResponse[]) =>
  events
    .flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? (event.payload.value.artifact?.parts ?? []) : []))
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');

beforeAll(async () => {
  edge = await startA2aEdge(WORDS, 150);
});
afterAll(async () => {
  await edge?.close();
});

describe('A2A through the external edge', () => {
  it("serves the instance's card with the edge's own interface and key scheme", async () => {
    const client = await edgeClient(MCP_REF);
    const card = await client.getAgentCard();
    expect(card.name).toBe('Mesh Actor');
    expect(card.skills.map((skill) => skill.id)).toContain('chat');
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: `${edge.url}/api/v1/k/${MCP_REF}/chat/a2a`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      }),
    ]);
    const raw = (await (
      await fetchWithEdgeKey(MCP_REF)(`${edge.url}/api/v1/k/${MCP_REF}/.well-known/agent-card.json`)
    ).json()) as Record<string, unknown>;
    expect(raw.securitySchemes).toEqual({
      edgeKey: {
        apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: `The edge key of ${MCP_REF}` },
      },
    });
    expect(raw.securityRequirements).toEqual([{ schemes: { edgeKey: { list: [] } } }]);
  });

  it('sends a message and gets its task; the turn is counted once for reconciliation', async () => {
    const before = (await edge.gateway.reconcile()).actors.find((actor) => actor.ref === MCP_REF)?.answered ?? 0;
    const client = await edgeClient(MCP_REF);
    const result = await client.sendMessage(send(userMessage('hello through the edge', { contextId: 'edge-ctx' })));
    const task = result as Extract<typeof result, { id: string }>;
    expect(task.contextId).toBe('edge-ctx');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.id).toBe(task.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const actor = await reconciledAt(edge.gateway, MCP_REF, before + 1);
    expect(actor).toMatchObject({ answered: before + 1, in_flight: 0 });
    expect(actor?.drift.filter((drift) => drift.kind === 'count_mismatch')).toEqual([]);
  });

  it('streams a message: the task, its text, then completed, counted once', async () => {
    const before = (await edge.gateway.reconcile()).actors.find((actor) => actor.ref === MCP_REF)?.answered ?? 0;
    const client = await edgeClient(MCP_REF);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send(userMessage('stream through the edge'))))
      events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    expect(textOf(events)).toContain(`word${WORDS}`);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await reconciledAt(edge.gateway, MCP_REF, before + 1)).toMatchObject({ answered: before + 1, in_flight: 0 });
  });

  it('cancels a task in progress, which is not counted; an unknown task is not found', async () => {
    const before = (await edge.gateway.reconcile()).actors.find((actor) => actor.ref === MCP_REF)?.answered ?? 0;
    const client = await edgeClient(MCP_REF);
    const started = (await client.sendMessage(send(userMessage('slow one'), true))) as { id: string };
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: '', id: 'no-such-task', metadata: undefined })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
    const actor = await reconciledAt(edge.gateway, MCP_REF, before);
    expect(actor).toMatchObject({ answered: before, in_flight: 0 });
  });

  it('subscribes to a streamed run: the task with its text so far, then the remaining updates, each word once', async () => {
    const client = await edgeClient(MCP_REF);
    const stream = client.sendMessageStream(send(userMessage('follow me')));
    const first: StreamResponse[] = [];
    for await (const event of stream) {
      first.push(event);
      if (event.payload?.$case === 'artifactUpdate') break;
    }
    const taskId = first[0]?.payload?.$case === 'task' ? first[0].payload.value.id : '';
    expect(taskId).not.toBe('');
    const rest: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) rest.push(event);
    // A2A 1.0 (3.1.6): the task as it is at the subscription first, its `reply` artifact holding
    // the text so far; the updates after it append to that artifact, so the artifact a client
    // builds holds each word exactly once.
    const opening = rest[0]?.payload;
    expect(opening?.$case).toBe('task');
    const task = opening?.$case === 'task' ? opening.value : undefined;
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const soFar = (task?.artifacts[0]?.parts ?? [])
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('');
    expect(soFar).toContain('word1');
    const updates = rest.flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : []));
    expect(updates.every((update) => update.append)).toBe(true);
    const words = (soFar + textOf(rest)).split(/\s+/).filter(Boolean);
    expect(words).toEqual(Array.from({ length: WORDS }, (_, index) => `word${index + 1}`));
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('answers 404 problem+json for the card of an instance without expose_a2a, and 401 without the key', async () => {
    const card = await fetchWithEdgeKey(PANEL_REF)(`${edge.url}/api/v1/k/${PANEL_REF}/.well-known/agent-card.json`);
    expect(card.status).toBe(404);
    expect(card.headers.get('content-type')).toContain('application/problem+json');
    const rpc = await fetchWithEdgeKey(PANEL_REF)(`${edge.url}/api/v1/k/${PANEL_REF}/chat/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(rpc.status).toBe(404);
    const keyless = await fetch(`${edge.url}/api/v1/k/${MCP_REF}/.well-known/agent-card.json`);
    expect(keyless.status).toBe(401);
    expect(keyless.headers.get('content-type')).toContain('application/problem+json');
    const post = await fetchWithEdgeKey(MCP_REF)(`${edge.url}/api/v1/k/${MCP_REF}/.well-known/agent-card.json`, {
      method: 'POST',
    });
    expect(post.status).toBe(405);
  });
});
