import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatHandler } from '../../invoke/chat-handler.js';
import { offlineChatHandler } from '../../agent/agent-chat-handler.js';
import { createActorApp } from '../../app/create-actor-app.js';
import { createLogger, createMemorySink } from '../../log/logger.js';
import { MemoryStore } from '../../store/memory-store.js';
import { testActorDefinition } from '../../testing/create-test-actor.js';
import type { ServeHandle } from '../serve-options.js';
import { serve } from './index.js';
import { exchange } from '../../../test/reliability/support/raw-http.js';

/** A promise with its resolve function, to hold a step of the actor until the test releases it. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

function buildActor(options: { migrate?: Promise<void>; chatHandler?: ChatHandler } = {}) {
  const sink = createMemorySink();
  const store = new MemoryStore();
  if (options.migrate) {
    const gated = options.migrate;
    store.migrate = () => gated;
  }
  const app = createActorApp({
    definition: testActorDefinition,
    env: {},
    store,
    logger: createLogger({ sink }),
    chatHandler: options.chatHandler ?? offlineChatHandler,
  });
  return { app, sink };
}

const invokeBody = JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' });
const invoke = (url: string) =>
  fetch(`${url}/agent/invoke`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: invokeBody });

async function listeningUrl(sink: ReturnType<typeof createMemorySink>): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const record = sink.records.find((candidate) => candidate.event === 'actor_listening');
    if (record) return String(record.url);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no actor_listening record');
}

describe('serve on Node', () => {
  const handles: ServeHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
  });

  it('listens on a free port, logs it, and serves the actor once started', async () => {
    const { app, sink } = buildActor();
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false });
    handles.push(handle);
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}`);
    expect(sink.records.find((record) => record.event === 'actor_listening')).toMatchObject({
      runtime: 'node',
      port: handle.port,
    });
    expect((await fetch(`${handle.url}/ready`)).status).toBe(200);
    expect((await invoke(handle.url)).status).toBe(200);
  });

  it('answers /health and says starting on /ready before the actor has started', async () => {
    const migrate = gate();
    const { app, sink } = buildActor({ migrate: migrate.opened });
    const serving = serve(app, { port: 0, hostname: '127.0.0.1', signals: false });
    const url = await listeningUrl(sink);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', reason: 'starting' });
    migrate.open();
    handles.push(await serving);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
  });

  it('close(): drains with /ready 503, lets the in-flight invoke finish, then stops listening', async () => {
    const entered = gate();
    const release = gate();
    const slowHandler: ChatHandler = async (input) => {
      entered.open();
      await release.opened;
      return offlineChatHandler(input);
    };
    const { app } = buildActor({ chatHandler: slowHandler });
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false, graceMs: 10_000 });
    const inFlight = invoke(handle.url);
    await entered.opened;
    const closing = handle.close();
    const ready = await fetch(`${handle.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ reason: 'draining' });
    const refused = await invoke(handle.url);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'draining' });
    release.open();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    await closing;
    await expect(fetch(`${handle.url}/health`)).rejects.toThrow();
  });

  it('close() cuts a request still running when the grace period ends', async () => {
    const entered = gate();
    const { app, sink } = buildActor({
      chatHandler: async () => {
        entered.open();
        return new Promise(() => {});
      },
    });
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false, graceMs: 100 });
    const stuck = invoke(handle.url);
    await entered.opened;
    await handle.close();
    await expect(stuck).rejects.toThrow();
    expect(sink.records.at(-1)).toMatchObject({ event: 'actor_server_closed', reason: 'close' });
  });

  it('rejects and logs actor_listen_failed when the port is taken', async () => {
    const first = await serve(buildActor().app, { port: 0, hostname: '127.0.0.1', signals: false });
    handles.push(first);
    const { app, sink } = buildActor();
    await expect(serve(app, { port: first.port, hostname: '127.0.0.1', signals: false })).rejects.toThrow(/EADDRINUSE/);
    expect(sink.records.find((record) => record.event === 'actor_listen_failed')).toMatchObject({ port: first.port });
  });
  it('a keep-alive client whose body was refused (413) before it was read can send its next request', async () => {
    const { app } = buildActor();
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false });
    handles.push(handle);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
        const request = httpRequest(
          `${handle.url}${path}`,
          {
            method,
            agent,
            headers: body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': body.length },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    try {
      for (let round = 0; round < 3; round += 1) {
        const refused = await send('POST', '/agent/invoke', Buffer.alloc(3 * 1024 * 1024, 0x20));
        expect(refused.status).toBe(413);
        expect(refused.connection).toBe('close');
        expect(JSON.parse(refused.text)).toMatchObject({ code: 'payload_too_large' });
        const next = await send('GET', '/health');
        expect(next.status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
  });
  it('a streamed reply to a request that says Connection: close closes the connection', async () => {
    const { app } = buildActor();
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false });
    handles.push(handle);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: handle.port }, () => {
        socket.end(
          `POST /agent/invoke HTTP/1.1\r\nHost: actor.localhost\r\nConnection: close\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(invokeBody)}\r\n\r\n${invokeBody}`,
        );
      });
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    const head = raw.slice(0, raw.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toContain('content-type: text/event-stream');
    expect(head).not.toContain('keep-alive');
    expect(head).toContain('connection: close');
  });

  it('answers a request target that is no URL path with a 400 problem, and a request without Host on its path', async () => {
    const { app } = buildActor();
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false });
    handles.push(handle);
    const backslash = await exchange(handle.url, [
      'GET /health\\..\\stats HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    ]);
    expect(backslash.response?.status, backslash.raw).toBe(400);
    expect(backslash.response?.header('content-type')).toBe('application/problem+json');
    expect(JSON.parse(backslash.response!.body)).toMatchObject({
      status: 400,
      code: 'bad_request',
      request_id: backslash.response?.header('x-request-id'),
    });
    const noHost = await exchange(handle.url, ['GET /health HTTP/1.0\r\n\r\n']);
    expect(noHost.response?.status, noHost.raw).toBe(200);
    expect(JSON.parse(noHost.response!.body)).toHaveProperty('instance_id');
  });

  it('with on_disconnect: "cancel", aborts the turn of a JSON invoke whose client goes away: an error in /stats, a 499 in /metrics, nothing left in flight', async () => {
    const entered = gate();
    const aborted = gate();
    const { app } = buildActor({
      chatHandler: async (input) => {
        entered.open();
        await new Promise((resolve) => input.signal.addEventListener('abort', resolve, { once: true }));
        aborted.open();
        throw input.signal.reason;
      },
    });
    const handle = await serve(app, { port: 0, hostname: '127.0.0.1', signals: false });
    handles.push(handle);
    const client = new AbortController();
    const request = fetch(`${handle.url}/agent/invoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...JSON.parse(invokeBody), on_disconnect: 'cancel' }),
      signal: client.signal,
    });
    await entered.opened;
    client.abort();
    await expect(request).rejects.toThrow();
    await aborted.opened;
    await vi.waitFor(() => expect(app.actor.lifecycle.inFlight).toBe(0));
    expect(await (await fetch(`${handle.url}/stats`)).json()).toMatchObject({ invocations: 1, errors: 1 });
    expect(await (await fetch(`${handle.url}/metrics`)).text()).toContain(
      'http_requests_total{method="POST",route="/agent/invoke",status="499",ok="false"} 1',
    );
  });
});
