import { Validator } from '@cfworker/json-schema';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcpClient, rejectionOf } from '../../../test/contract/mcp-contract.js';
import { serveOnLoopback } from '../../../test/surfaces/loopback.js';
import { lookupTool, MCP_POST_HEADERS, mcpTestDefinition } from '../../../test/surfaces/mcp-test-actor.js';
import type { ServeHandle } from '../../adapter/serve-options.js';
import { ActorTool } from '../../agent/actor-tool.js';
import { createLogger } from '../../log/logger.js';
import { createActorApp } from '../../app/create-actor-app.js';
import { MemoryStore } from '../../store/memory-store.js';
import { silentLogger } from '../../log/logger.js';
import { createTestActor } from '../../testing/create-test-actor.js';

const failing = new ActorTool({
  name: 'test_broken',
  description: 'Always fails',
  readOnly: true,
  argsSchema: v.object({}),
  run: () => {
    throw new Error('upstream down');
  },
});
const writer = new ActorTool({
  name: 'test_write',
  description: 'Writes something',
  argsSchema: v.object({}),
  run: () => 'written',
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

let served: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(served.map((handle) => handle.close()));
  served = [];
});

async function serveMcpActor(env: Record<string, string> = {}, logger = createLogger({ sink: () => {} })) {
  const app = await createTestActor({
    definition: mcpTestDefinition,
    env,
    tools: [lookupTool, failing, writer],
    logger,
  });
  const handle = await serveOnLoopback(app);
  served.push(handle);
  return { app, url: handle.url, handle };
}

describe('/mcp', () => {
  it('offers chat and only the read-only tools; a tool that throws is a tool error, not a crash', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['chat', 'test_lookup', 'test_broken']);
    const unknown = await rejectionOf(client.callTool({ name: 'test_write', arguments: {} }));
    expect(unknown.code).toBe(-32602);
    const broken = await client.callTool({ name: 'test_broken', arguments: {} });
    expect(broken).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Tool test_broken failed: upstream down' }],
    });
    await client.close();
  });

  it('chats under the session_id and user the arguments name', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    const result = await client.callTool({
      name: 'chat',
      arguments: { message: 'hi', session_id: 'my-session', user_identifier: 'ada' },
    });
    expect(result.structuredContent).toMatchObject({ session_id: 'my-session' });
    expect(await (await fetch(`${url}/stats/default`)).json()).toMatchObject({ invocations: 1, sessions: 1, users: 1 });
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^actor_invocations_total\{outcome="success"\} 1$/m);
    await client.close();
  });

  it('sits behind the API key like /agent/invoke', async () => {
    const { url } = await serveMcpActor({ API_KEY_ENABLED: 'true', API_KEY: 'mcp-test-key-1' });
    const refused = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS, body: initialize });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('X-API-Key');
    expect(await refused.json()).toMatchObject({ error: { data: { code: 'missing_api_key' } } });
    const client = await connectMcpClient(url, { 'X-API-Key': 'mcp-test-key-1' });
    expect((await client.listResources()).resources).toHaveLength(3);
    await client.close();
  });

  it('answers its refusals to an MCP client (Accept: text/event-stream) as a JSON-RPC error the Python client shows, the problem in error.data; problem+json when asked for', async () => {
    const { url } = await serveMcpActor({ API_KEY_ENABLED: 'true', API_KEY: 'mcp-test-key-1' });
    const refused = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS, body: initialize });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.headers.get('www-authenticate')).toContain('X-API-Key');
    const requestId = refused.headers.get('x-request-id');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: 'Authentication required: Send your key in the X-API-Key header (missing_api_key)',
        data: {
          type: 'https://actorkit.dev/problems/missing-api-key',
          title: 'Authentication required',
          status: 401,
          detail: 'Send your key in the X-API-Key header',
          code: 'missing_api_key',
          request_id: requestId,
        },
      },
    });
    await expect(connectMcpClient(url, { 'X-API-Key': 'not-the-key' })).rejects.toThrow(
      /Authentication failed: The X-API-Key header does not hold a valid key \(invalid_api_key\)/,
    );
    const asked = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, Accept: 'application/problem+json, application/json, text/event-stream' },
      body: initialize,
    });
    expect(asked.headers.get('content-type')).toBe('application/problem+json');
    expect(await asked.json()).toMatchObject({ status: 401, code: 'missing_api_key' });
    const plain = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: initialize,
    });
    expect(plain.headers.get('content-type')).toBe('application/problem+json');
  });

  it("refuses a browser Origin that is not the actor's own on both its methods (403), in every mode; a method /mcp does not have is a 405 first; its own Origin and none pass", async () => {
    const modes: Record<string, string>[] = [
      {},
      { API_KEY_ENABLED: 'true', API_KEY: 'mcp-test-key-1' },
      { ACTOR_PLATFORM: 'true' },
    ];
    for (const env of modes) {
      const app = await createTestActor({
        definition: mcpTestDefinition,
        env,
        tools: [lookupTool],
        logger: createLogger({ sink: () => {} }),
      });
      const key: Record<string, string> = env.API_KEY === undefined ? {} : { 'X-API-Key': env.API_KEY };
      const send = (method: string, origin: string | undefined, headers: Record<string, string> = key) =>
        app.fetch(
          new Request('http://127.0.0.1:8080/mcp', {
            method,
            headers: {
              ...MCP_POST_HEADERS,
              ...headers,
              Host: '127.0.0.1:8080',
              ...(origin === undefined ? {} : { Origin: origin }),
            },
            ...(method === 'POST' ? { body: initialize } : {}),
          }),
        );
      // The JSON-RPC error an MCP client reads carries the problem in error.data.
      const codeOf = async (response: Response) => {
        const body = (await response.json()) as { code?: string; error?: { data?: { code?: string } } };
        return body.error?.data?.code ?? body.code;
      };
      for (const method of ['POST', 'DELETE']) {
        const refused = await send(method, 'http://attacker.example');
        expect(refused.status, `${method} ${JSON.stringify(env)}`).toBe(403);
        expect(await codeOf(refused), `${method} ${JSON.stringify(env)}`).toBe('origin_not_allowed');
      }
      // No GET stream: a method /mcp does not have is refused before the key and the Origin are looked at.
      for (const method of ['GET', 'OPTIONS']) {
        for (const headers of [key, {}]) {
          const refused = await send(method, 'http://attacker.example', headers);
          const label = `${method} ${JSON.stringify(env)} ${JSON.stringify(headers)}`;
          expect(refused.status, label).toBe(405);
          expect(refused.headers.get('allow'), label).toBe('POST, DELETE');
          expect(await codeOf(refused), label).toBe('method_not_allowed');
        }
      }
      expect((await send('POST', 'http://127.0.0.1:8080')).status).toBe(200);
      expect((await send('POST', undefined)).status).toBe(200);
      await app.actor.shutdown();
    }
  });

  it('answers 400 invalid_header for a malformed X-Tenant-Id, as invoke does', async () => {
    const { url } = await serveMcpActor();
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, 'X-Tenant-Id': 'no spaces allowed' },
      body: initialize,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { data: { code: 'invalid_header' } } });
  });

  it('answers malformed JSON with JSON-RPC -32700 and a GET with 405 (no server-sent stream)', async () => {
    const { url } = await serveMcpActor();
    const malformed = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_POST_HEADERS, body: '{"jsonrpc":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const get = await fetch(`${url}/mcp`, { headers: { Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
    const noSession = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    expect(await noSession.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('answers DELETE with 200 (nothing to end), and 404 for an Mcp-Session-Id the actor never issues', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    const transport = client.transport as StreamableHTTPClientTransport;
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const foreign = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': 'no spaces allowed' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    await client.close();
    const again = await connectMcpClient(url);
    expect((await again.listTools()).tools[0]?.name).toBe('chat');
    await again.close();
  });

  it('answers 503 draining while the actor drains, like /agent/invoke', async () => {
    const { url, app } = await serveMcpActor();
    const client = await connectMcpClient(url);
    app.actor.lifecycle.beginDraining();
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_POST_HEADERS,
        'Mcp-Session-Id': (client.transport as StreamableHTTPClientTransport).sessionId ?? '',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { data: { code: 'draining' } } });
  });

  it('answers tool arguments that are not an object with -32602 invalid params', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    for (const name of ['chat', 'test_lookup']) {
      for (const args of [[], ['hi'], 'hi', 7, null]) {
        const refused = await rejectionOf(
          client.callTool({ name, arguments: args as unknown as Record<string, unknown> }),
        );
        expect([name, args, refused.code]).toEqual([name, args, -32602]);
        expect(refused.message).toContain('arguments must be a JSON object');
      }
    }
    await client.close();
  });

  it('answers params the SDK schemas refuse with -32602 invalid params, not -32603', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    const noName = await rejectionOf(client.callTool({ arguments: {} } as unknown as { name: string }));
    expect(noName.code).toBe(-32602);
    expect(noName.message).toContain('Invalid params for tools/call: /params/name');
    const numericUri = await rejectionOf(client.readResource({ uri: 5 as unknown as string }));
    expect(numericUri.code).toBe(-32602);
    expect(numericUri.message).toContain('Invalid params for resources/read: /params/uri');
    await client.close();
  });

  it('refuses __proto__, constructor and prototype keys in tool arguments, at any depth, with -32602', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      for (const [name, json] of [
        ['chat', `{"message":"hi","${key}":{"polluted":true}}`],
        ['test_lookup', `{"topic":"tides","${key}":{"polluted":true}}`],
        ['test_lookup', `{"topic":"tides","nested":{"${key}":{"polluted":true}}}`],
      ] as const) {
        const refused = await rejectionOf(
          client.callTool({ name, arguments: JSON.parse(json) as Record<string, unknown> }),
        );
        expect([json, refused.code]).toEqual([json, -32602]);
        expect(refused.message).toContain(key);
      }
    }
    expect(await (await fetch(`${url}/stats/default`)).json()).toMatchObject({ invocations: 0 });
    await client.close();
  });

  it('refuses a JSON-RPC batch of more than MCP_MAX_BATCH messages whole, before any of it runs', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    const headers = {
      ...MCP_POST_HEADERS,
      'Mcp-Session-Id': (client.transport as StreamableHTTPClientTransport).sessionId ?? '',
      'Mcp-Protocol-Version': '2025-06-18',
    };
    const chats = (count: number) =>
      Array.from({ length: count }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'chat', arguments: { message: `turn ${id}` } },
      }));
    const refused = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(chats(100)) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('MCP_MAX_BATCH=10') },
    });
    expect(await (await fetch(`${url}/stats/default`)).json()).toMatchObject({ invocations: 0 });
    const atTheCap = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(chats(10)) });
    expect(atTheCap.status).toBe(200);
    expect(await atTheCap.json()).toHaveLength(10);
    expect(await (await fetch(`${url}/stats/default`)).json()).toMatchObject({ invocations: 10 });
    await client.close();
  });

  it('refuses an empty batch and an initialize in a batch with 400 -32600, before any of it runs', async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    const headers = {
      ...MCP_POST_HEADERS,
      'Mcp-Session-Id': (client.transport as StreamableHTTPClientTransport).sessionId ?? '',
    };
    const chat = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'chat', arguments: { message: 'hi' } },
    };
    for (const [batch, message] of [
      [[], 'Invalid Request: an empty batch'],
      [[JSON.parse(initialize)], 'Invalid Request: initialize must be sent alone, not in a batch'],
      [[chat, JSON.parse(initialize)], 'Invalid Request: initialize must be sent alone, not in a batch'],
    ] as const) {
      for (const sent of [headers, MCP_POST_HEADERS]) {
        const refused = await fetch(`${url}/mcp`, { method: 'POST', headers: sent, body: JSON.stringify(batch) });
        expect([batch, refused.status]).toEqual([batch, 400]);
        expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });
      }
    }
    expect(await (await fetch(`${url}/stats/default`)).json()).toMatchObject({ invocations: 0 });
    await client.close();
  });

  it("documents the body the SDK's transport takes, from the SDK's own schema, and takes exactly it: a body the schema admits is answered 2xx, one it refuses 400", async () => {
    const { url } = await serveMcpActor();
    const client = await connectMcpClient(url);
    const headers = {
      ...MCP_POST_HEADERS,
      'Mcp-Session-Id': (client.transport as StreamableHTTPClientTransport).sessionId ?? '',
    };
    const document = await (await fetch(`${url}/openapi.json`)).json();
    const operation = document.paths['/mcp'].post;
    const body = new Validator(operation.requestBody.content['application/json'].schema, '2020-12');
    const answer = new Validator(operation.responses['200'].content['application/json'].schema, '2020-12');
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const bodies: unknown[] = [
      ping,
      { ...ping, id: 'a', params: { _meta: { progressToken: 7 }, more: true } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 9, result: {} },
      { jsonrpc: '2.0', error: { code: 1, message: 'no id', data: null } },
      [ping, { ...ping, id: 2, method: 'tools/list' }],
      Array.from({ length: 10 }, (_, id) => ({ ...ping, id })),
      Array.from({ length: 11 }, (_, id) => ({ ...ping, id })),
      [],
      [{ ...ping, method: 'initialize' }],
      null,
      7,
      'ping',
      {},
      [null],
      { ...ping, jsonrpc: '1.0' },
      { ...ping, id: null },
      { ...ping, id: 1.5 },
      { ...ping, id: 2 ** 53 },
      { ...ping, params: [] },
      { ...ping, params: { _meta: { progressToken: true } } },
      { ...ping, extra: 1 },
      { jsonrpc: '2.0', id: null, error: { code: 1, message: 'null id' } },
      { jsonrpc: '2.0', id: 9, result: {}, error: { code: 1, message: 'both' } },
    ];
    for (const sent of bodies) {
      const response = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(sent) });
      const admitted = body.validate(sent).valid;
      expect([sent, response.status < 300]).toEqual([sent, admitted]);
      if (!admitted) expect([sent, response.status]).toEqual([sent, 400]);
      if (response.status === 200) expect(answer.validate(await response.json()).valid).toBe(true);
    }
    await client.close();
  });

  it('documents the JSON-RPC 401 an MCP client gets when the key is missing, beside the problem', async () => {
    const { url } = await serveMcpActor({ API_KEY_ENABLED: 'true', API_KEY: 'mcp-test-key-1' });
    const document = await (await fetch(`${url}/openapi.json`, { headers: { 'X-API-Key': 'mcp-test-key-1' } })).json();
    for (const method of ['POST', 'DELETE']) {
      const refused = await fetch(`${url}/mcp`, {
        method,
        headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': crypto.randomUUID() },
        body: method === 'POST' ? initialize : null,
      });
      expect([method, refused.status, refused.headers.get('content-type')]).toEqual([method, 401, 'application/json']);
      const documented = document.paths['/mcp'][method.toLowerCase()].responses['401'].content;
      expect(Object.keys(documented).sort()).toEqual(['application/json', 'application/problem+json']);
      const schema = new Validator(documented['application/json'].schema, '2020-12');
      expect(schema.validate(await refused.json()).valid).toBe(true);
    }
  });

  it('documents the body in words until the actor has started (the SDK is loaded at start), and from the SDK after', async () => {
    const app = createActorApp({
      definition: mcpTestDefinition,
      env: {},
      logger: silentLogger,
      store: new MemoryStore(),
    });
    const bodySchema = async () =>
      (await (await app.request('/openapi.json')).json()).paths['/mcp'].post.requestBody.content['application/json']
        .schema;
    expect(await bodySchema()).toEqual({ description: expect.stringContaining('One JSON-RPC 2.0 message') });
    await app.actor.start();
    expect(await bodySchema()).toMatchObject({
      anyOf: [{ anyOf: expect.any(Array) }, { type: 'array', maxItems: 10 }],
    });
    await app.actor.shutdown({ graceMs: 10 });
  });

  it('is not mounted when exposeMcp is off', async () => {
    const app = await createTestActor({ tools: [lookupTool] });
    expect((await app.request('/mcp', { method: 'POST', headers: MCP_POST_HEADERS, body: initialize })).status).toBe(
      404,
    );
  });
});
