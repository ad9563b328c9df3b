import { freeLocalPort } from '../cli/library.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformConfig } from '../src/sdk/index.js';
import type { ReplicaSlot } from './replica-slot.js';
import { SupervisedPool } from './supervised-pool.js';

const servers: Server[] = [];

/** A stand-in replica that answers its name and what it received. */
function replica(name: string): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () =>
      response.end(JSON.stringify({ name, method: request.method, url: request.url, body, headers: request.headers })),
    );
  });
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** A slot as the pool reads it: an address and whether it is ready. */
function slot(url: string, ready: boolean): ReplicaSlot {
  return {
    url,
    ready,
    view: () => ({
      index: 0,
      url,
      state: ready ? 'ready' : 'not_ready',
      pid: undefined,
      restarts: 0,
      startedAt: '',
      lastLines: [],
    }),
  } as unknown as ReplicaSlot;
}

function pool(slots: ReplicaSlot[], platformSecret?: string): SupervisedPool {
  return new SupervisedPool({
    ref: 'weather',
    dir: '/actors/weather',
    config: { actor: { slug: 'weather' } } as PlatformConfig,
    meshGroup: undefined,
    slots,
    ...(platformSecret === undefined ? {} : { platformSecret }),
  });
}

async function answeredBy(target: SupervisedPool, init?: RequestInit): Promise<string> {
  const answer = await target.forward(new Request('http://platform.invalid/agent/invoke?x=1', init));
  return ((await answer.json()) as { name: string }).name;
}

let first: string;
let second: string;
let third: string;
beforeAll(async () => {
  [first, second, third] = await Promise.all([replica('first'), replica('second'), replica('third')]);
});
afterAll(() => servers.forEach((server) => server.close()));

describe('SupervisedPool.forward', () => {
  it('sends requests round-robin to the ready replicas only, path, query and body kept', async () => {
    const target = pool([slot(first, true), slot(second, false), slot(third, true)]);
    const names = [];
    for (let turn = 0; turn < 4; turn++) names.push(await answeredBy(target));
    expect(names).toEqual(['first', 'third', 'first', 'third']);
    const answer = await target.forward(
      new Request('http://platform.invalid/agent/invoke?x=1', { method: 'POST', body: '{"message":"hi"}' }),
    );
    expect(await answer.json()).toMatchObject({ method: 'POST', url: '/agent/invoke?x=1', body: '{"message":"hi"}' });
  });

  it('sends a request whose replica refuses the connection to the next ready one', async () => {
    const gone = `http://127.0.0.1:${await freeLocalPort()}`;
    const target = pool([slot(gone, true), slot(second, true)]);
    expect(await answeredBy(target, { method: 'POST', body: 'x' })).toBe('second');
    expect(await answeredBy(target, { method: 'POST', body: 'x' })).toBe('second');
  });

  it('answers 503 no_ready_replica problem+json with Retry-After when no replica is ready', async () => {
    const answer = await pool([slot(first, false)]).forward(
      new Request('http://platform.invalid/health', { headers: { 'x-request-id': 'req-1' } }),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toMatchObject({ code: 'no_ready_replica', request_id: 'req-1' });
  });

  it('drops Expect and the other hop-by-hop headers (and those Connection names), and adds the run secret', async () => {
    const answer = await pool([slot(first, true)], 'run-secret').forward(
      new Request('http://platform.invalid/agent/invoke', {
        method: 'POST',
        headers: {
          Expect: '100-continue',
          Connection: 'x-hop',
          'X-Hop': 'one hop only',
          'Keep-Alive': 'timeout=5',
          'Proxy-Authorization': 'Basic eA==',
          Trailer: 'x-checksum',
          'X-Platform-Secret': 'a caller guess',
          'X-Kept': 'kept',
        },
        body: '{"message":"hi"}',
      }),
    );
    expect(answer.status).toBe(200);
    const { headers, body } = (await answer.json()) as { headers: Record<string, string>; body: string };
    expect(body).toBe('{"message":"hi"}');
    for (const name of ['expect', 'x-hop', 'keep-alive', 'proxy-authorization', 'trailer'])
      expect(headers[name], name).toBeUndefined();
    expect(headers['x-kept']).toBe('kept');
    expect(headers['x-platform-secret']).toBe('run-secret');
  });

  it('streams a body of unknown length or over 1 MiB to one replica as it comes', async () => {
    const chunks = ['{"message":', '"streamed"}'];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const answer = await pool([slot(first, true)]).forward(
      new Request('http://platform.invalid/agent/invoke', {
        method: 'POST',
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(await answer.json()).toMatchObject({ body: '{"message":"streamed"}' });
  });

  it("answers the replicas' 413 for a body declared over their limit, and passes on a replica's 413 for a streamed one", async () => {
    const limited = (body: BodyInit, headers: Record<string, string> = {}) =>
      new SupervisedPool({
        ref: 'weather',
        dir: '/actors/weather',
        config: { actor: { slug: 'weather' } } as PlatformConfig,
        meshGroup: undefined,
        slots: [slot(strict, true)],
        bodyLimitBytes: 1_000,
      }).forward(
        new Request('http://platform.invalid/agent/invoke', {
          method: 'POST',
          headers,
          body,
          duplex: 'half',
        } as RequestInit),
      );
    const declared = await limited('x'.repeat(5_000), { 'content-length': '5000' });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({
      code: 'payload_too_large',
      detail: 'The body must be at most 1000 bytes',
    });
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const streamed = await limited(endless);
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(1024 * 1024 * 4);
  });
});

let strict: string;
beforeAll(async () => {
  // A replica that answers 413 and closes the connection once a body passes 1 000 bytes, as an actor does.
  const server = createServer((request, response) => {
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > 1_000 && !response.headersSent) {
        response.writeHead(413, { connection: 'close', 'content-type': 'application/problem+json' });
        response.end('{"code":"payload_too_large"}');
      }
    });
    request.on('end', () => response.headersSent || response.end('{}'));
  });
  servers.push(server);
  strict = await new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
});
