// The edge does not buffer a streamed chat: each part reaches the client while the replica is
// still writing the next, and the turn counts for reconciliation only once the stream finished.
import { describe, expect, it } from 'vitest';
import type { ActorPool } from '../../platform/actor-pool.js';
import { createPlatformGateway } from '../../platform/gateway/index.js';
import type { PlatformConfig } from '../../src/config/platform-config.js';
import meshConfig from '../../examples/mesh-actor/src/platform/config.json' with { type: 'json' };

const encoder = new TextEncoder();
const frame = (part: Record<string, unknown>) => encoder.encode(`data: ${JSON.stringify(part)}\n\n`);
const STATS = { instance_id: 'x', invocations: 0, errors: 0 };

/** A pool whose one replica streams a chat one part at a time, each after `release()`. */
function streamingPool(): { pool: ActorPool; release: () => void; requests: Request[] } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const parts = [
    frame({ type: 'start' }),
    frame({ type: 'text-delta', id: 't', delta: 'Hel' }),
    frame({ type: 'text-delta', id: 't', delta: 'lo' }),
    frame({ type: 'finish' }),
    encoder.encode('data: [DONE]\n\n'),
  ];
  let sent = 0;
  const requests: Request[] = [];
  const pool: ActorPool = {
    ref: 'streamer',
    slug: 'streamer',
    dir: '/nowhere',
    config: meshConfig as unknown as PlatformConfig,
    meshGroup: undefined,
    replicas: () => [
      {
        index: 0,
        url: 'http://127.0.0.1:1',
        state: 'ready',
        pid: 1,
        restarts: 0,
        startedAt: new Date(0).toISOString(),
        lastLines: [],
      },
    ],
    async forward(request) {
      requests.push(request);
      if (new URL(request.url).pathname.startsWith('/stats')) return Response.json(STATS);
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      return new Response(body, {
        headers: { 'Content-Type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
      });
    },
    forwardTo: async () => Response.json(STATS),
  };
  const release = () => {
    const part = parts[sent];
    sent += 1;
    if (part !== undefined) controller.enqueue(part);
    if (sent === parts.length) controller.close();
  };
  return { pool, release, requests };
}

describe('a streamed chat through the edge', () => {
  it('reaches the client part by part and counts once finished', async () => {
    const { pool, release, requests } = streamingPool();
    const gateway = createPlatformGateway({ pools: new Map([['streamer', pool]]), reconcileIntervalMs: 0 });
    const answer = await gateway.fetch(
      new Request('http://127.0.0.1:8700/api/v1/k/streamer/chat', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          'X-API-Key': gateway.edgeKey('streamer') as string,
          'X-Tenant-Id': 'forged',
          'X-Mesh-Key': 'forged',
          Cookie: 'a=b',
        },
        body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
      }),
    );
    const sentToReplica = requests.find((request) => request.url.endsWith('/agent/invoke')) as Request;
    expect(sentToReplica.headers.get('x-tenant-id')).toBe('owner');
    for (const name of ['x-api-key', 'x-mesh-key', 'cookie']) expect(sentToReplica.headers.get(name)).toBeNull();
    expect(sentToReplica.headers.get('x-forwarded-prefix')).toBe('/api/v1/k/streamer');
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const seen: string[] = [];
    for (let part = 0; part < 5; part += 1) {
      release();
      const { value } = await reader.read();
      seen.push(decoder.decode(value));
      if (part < 3) expect((await gateway.reconcile()).actors[0]?.answered).toBe(0);
    }
    expect(seen[1]).toContain('"delta":"Hel"');
    expect((await reader.read()).done).toBe(true);
    expect((await gateway.reconcile()).actors[0]?.answered).toBe(1);
    await gateway.close();
  });

  it('does not count a stream the client abandoned', async () => {
    const { pool, release } = streamingPool();
    const gateway = createPlatformGateway({ pools: new Map([['streamer', pool]]), reconcileIntervalMs: 0 });
    const answer = await gateway.fetch(
      new Request('http://127.0.0.1:8700/api/v1/k/streamer/chat', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          'X-API-Key': gateway.edgeKey('streamer') as string,
        },
        body: '{}',
      }),
    );
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    release();
    await reader.read();
    await reader.cancel();
    expect((await gateway.reconcile()).actors[0]).toMatchObject({ answered: 0, in_flight: 0 });
    await gateway.close();
  });

  it('answers 502 replica_unavailable when the replica drops the connection', async () => {
    const { pool } = streamingPool();
    const broken: ActorPool = {
      ...pool,
      forward: async (request) =>
        new URL(request.url).pathname.startsWith('/stats')
          ? Response.json(STATS)
          : Promise.reject(new TypeError('fetch failed')),
    };
    const gateway = createPlatformGateway({ pools: new Map([['streamer', broken]]), reconcileIntervalMs: 0 });
    const answer = await gateway.fetch(
      new Request('http://127.0.0.1:8700/api/v1/k/streamer/health', {
        headers: { 'X-API-Key': gateway.edgeKey('streamer') as string },
      }),
    );
    expect(answer.status).toBe(502);
    expect(await answer.json()).toMatchObject({ code: 'replica_unavailable' });
    await gateway.close();
  });
});
