// Tools that call an OAuth provider, end to end over real HTTP on loopback: an actor whose
// definition declares the provider `mock` (oauth2-mock-server, configured by the environment)
// and a tool that reads `context.oauthToken('mock')` and calls the provider's API with it. The
// tenant connects through the real flow (authorize → provider → callback), then invokes: the
// offline model calls the tool, the API sees the stored token; an expired token is refreshed
// through the flow; a tenant that never connected gets `oauth_not_connected` as the tool's
// error (reply 200, the model explains it), streamed as `tool-output-error` to the AI SDK's
// reader, and the same through `/mcp` with the MCP SDK client.
// No token ever reaches a log line, the history, a reply or /metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { ActorTool, type ToolRunContext } from '../../src/agent/actor-tool.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import type { Store } from '../../src/store/store.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { readUiStream } from '../agent/ui-stream-reader.js';
import { connectMcpClient } from '../contract/mcp-contract.js';
import { listenOnLoopback, serveOnLoopback, type LoopbackServer } from './loopback.js';
import { location, startMockOAuthProvider, type MockOAuthProvider } from './oauth-mock-provider.js';

const definition: ActorDefinition = {
  ...testActorDefinition,
  features: { ...defaultActorFeatures, exposeMcp: true },
  oauth: [{ provider: 'mock', title: 'Mock ID', scopes: ['openid', 'profile'] }],
};
const sink = createMemorySink();
/** Every access and refresh token the provider issued, and the access tokens its API no longer takes. */
const issued: string[] = [];
const refreshTokens: string[] = [];
const revoked = new Set<string>();
/** The bearer tokens the provider's API was called with, in order. */
const apiCalls: string[] = [];
const seen: string[] = [];
let mock: MockOAuthProvider;
let api: LoopbackServer;
let actor: ServeHandle;
let store: Store;

/** The provider's API: `GET /user` with a bearer token it issued and has not revoked → who and which token. */
function providerApi(request: IncomingMessage, response: ServerResponse): void {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  apiCalls.push(token);
  const number = issued.indexOf(token);
  const ok = number >= 0 && !revoked.has(token);
  response.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(ok ? { login: 'johndoe', token_number: number + 1 } : { message: 'Bad credentials' }));
}

/** A read-only tool without arguments (so `/mcp` offers it too). */
const readOnlyTool = (
  name: string,
  description: string,
  runAsync: (args: object, context: ToolRunContext) => Promise<unknown>,
) => new ActorTool({ name, description, readOnly: true, argsSchema: v.object({}), runAsync });

/** Calls the provider's API as the calling tenant. */
const whoami = readOnlyTool('mock_whoami', 'Tells who the tenant is at the mock provider', async (_args, context) => {
  const token = await context.oauthToken('mock');
  const response = await fetch(`${api.url}/user`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: context.signal,
  });
  if (!response.ok) throw new Error(`The mock API answered ${response.status}`);
  return (await response.json()) as { login: string; token_number: number };
});

/** A careless tool that writes its token into its error. */
const leaky = readOnlyTool('mock_leaky', 'Fails, naming its token', async (_args, context) => {
  throw new Error(`the API refused Authorization: Bearer ${await context.oauthToken('mock')}`);
});

async function get(url: string): Promise<Response> {
  const response = await fetch(url, { redirect: 'manual' });
  seen.push(await response.clone().text());
  return response;
}

/** Runs the whole flow as the tenant's browser would, from an authorize path. */
async function connect(authorizePath: string): Promise<void> {
  const start = await get(`${actor.url}${authorizePath}`);
  expect(start.status, await start.clone().text()).toBe(302);
  const atProvider = await get(location(start));
  expect(atProvider.status).toBe(302);
  const done = await get(location(atProvider));
  expect(done.status, await done.clone().text()).toBe(200);
}

async function invoke(tenant: string, message: string, sessionId = `s-${tenant}`) {
  const response = await fetch(`${actor.url}/agent/invoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': tenant },
    body: JSON.stringify({ user_identifier: 'ann', session_id: sessionId, message }),
  });
  const text = await response.text();
  seen.push(text);
  expect(response.status, text).toBe(200);
  return JSON.parse(text);
}

beforeAll(async () => {
  mock = await startMockOAuthProvider();
  mock.server.service.on(
    'beforeResponse',
    (response: { statusCode: number; body: { access_token?: string; refresh_token?: string } }) => {
      if (response.body.access_token) issued.push(response.body.access_token);
      if (response.body.refresh_token) refreshTokens.push(response.body.refresh_token);
    },
  );
  api = await listenOnLoopback(providerApi);
  const app = createActorApp({
    definition,
    env: {
      DATABASE_URL: 'memory://',
      OAUTH_MOCK_ISSUER: mock.issuer,
      OAUTH_MOCK_CLIENT_ID: 'actorclient',
      OAUTH_MOCK_CLIENT_SECRET: 'actor-secret',
      OAUTH_MOCK_ALLOW_INSECURE: 'true',
    },
    logger: createLogger({ sink }),
    tools: [whoami, leaky],
  });
  actor = await serveOnLoopback(app);
  store = app.actor.context.store;
});

afterAll(async () => {
  await actor?.close();
  await api?.close();
  await mock?.stop();
});

describe('a tool that calls an OAuth provider with the tenant token', () => {
  it('gets the token the flow stored, and a refreshed one once it expired', async () => {
    await connect('/oauth/authorize?provider=mock&tenant_id=acme');
    const stored = await store.loadOAuthToken('acme', 'mock');
    expect(stored?.accessToken).toBe(issued[0]);

    const first = await invoke('acme', 'use tool mock_whoami with {}');
    expect(first.tool_calls).toEqual([
      expect.objectContaining({ name: 'mock_whoami', status: 'ok', output: { login: 'johndoe', token_number: 1 } }),
    ]);
    expect(first.message.content).toContain('mock_whoami answered: {"login":"johndoe","token_number":1}');
    expect(apiCalls).toEqual([stored!.accessToken]);
    expect(mock.grants).toEqual(['authorization_code']);

    // The token expires: the provider's API refuses it, the store says so.
    revoked.add(stored!.accessToken);
    await store.saveOAuthToken({ ...stored!, expiresAt: new Date(Date.now() - 1_000).toISOString() });
    const second = await invoke('acme', 'use tool mock_whoami with {}');
    expect(second.tool_calls[0]).toMatchObject({ status: 'ok', output: { login: 'johndoe', token_number: 2 } });
    expect(mock.grants).toEqual(['authorization_code', 'refresh_token']);
    const renewed = await store.loadOAuthToken('acme', 'mock');
    expect(renewed?.accessToken).toBe(issued[1]);
    expect(Date.parse(renewed!.expiresAt!)).toBeGreaterThan(Date.now());
    expect(apiCalls.at(-1)).toBe(renewed!.accessToken);
    expect(sink.records.map((record) => record.event)).toEqual(
      expect.arrayContaining(['oauth_connected', 'oauth_token_refreshed']),
    );
  });

  it('tells a tenant that never connected, through the model, where to connect — and the link works', async () => {
    const reply = await invoke('beta', 'use tool mock_whoami with {}');
    const hint = '/oauth/authorize?provider=mock&tenant_id=beta';
    expect(reply.tool_calls).toEqual([
      expect.objectContaining({
        name: 'mock_whoami',
        status: 'error',
        output: null,
        error: expect.stringContaining(hint),
      }),
    ]);
    expect(reply.tool_calls[0].error).toBe(`Tenant beta has not connected mock; start at ${hint}`);
    // The model is told the error and its code, and explains it.
    expect(reply.message.content).toContain(
      `mock_whoami answered: {"error":"Tenant beta has not connected mock; start at ${hint}","code":"oauth_not_connected"}`,
    );
    expect(apiCalls).not.toContain('');

    await connect(hint);
    const after = await invoke('beta', 'use tool mock_whoami with {}');
    expect(after.tool_calls[0]).toMatchObject({ status: 'ok', output: { login: 'johndoe' } });
  });

  it('streams the same tool error to a useChat client (tool-output-error), and the token of a connected tenant stays out of the stream', async () => {
    const stream = (tenant: string) =>
      fetch(`${actor.url}/agent/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Tenant-Id': tenant },
        body: JSON.stringify({
          user_identifier: 'ann',
          session_id: `stream-${tenant}`,
          message: 'use tool mock_whoami with {}',
        }),
      });
    const refused = await readUiStream((await stream('delta')).body!);
    expect(refused.chunks).toContainEqual(
      expect.objectContaining({
        type: 'tool-output-error',
        errorText: 'Tenant delta has not connected mock; start at /oauth/authorize?provider=mock&tenant_id=delta',
      }),
    );
    expect(refused.text).toContain('"code":"oauth_not_connected"');
    const answered = await readUiStream((await stream('acme')).body!);
    expect(answered.chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-output-available', output: expect.objectContaining({ login: 'johndoe' }) }),
    );
    seen.push(refused.raw, answered.raw);
  });

  it('cuts the token out of a failing tool error before the model, the reply, the history and the log see it', async () => {
    const reply = await invoke('acme', 'use tool mock_leaky with {}', 'leaky');
    expect(reply.tool_calls[0]).toMatchObject({
      status: 'error',
      error: 'the API refused Authorization: Bearer [redacted]',
    });
    expect(sink.records).toContainEqual(
      expect.objectContaining({
        event: 'tool_call_failed',
        tool: 'mock_leaky',
        error: 'the API refused Authorization: Bearer [redacted]',
      }),
    );
  });

  it('gives tools run through /mcp the token of the calling tenant', async () => {
    const acme = await connectMcpClient(actor.url, { 'X-Tenant-Id': 'acme' });
    const ok = await acme.callTool({ name: 'mock_whoami', arguments: {} });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ login: 'johndoe' });
    expect(apiCalls.at(-1)).toBe((await store.loadOAuthToken('acme', 'mock'))!.accessToken);
    const leak = await acme.callTool({ name: 'mock_leaky', arguments: {} });
    expect(leak).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Tool mock_leaky failed: the API refused Authorization: Bearer [redacted]' }],
    });
    seen.push(JSON.stringify([ok, leak]));
    await acme.close();

    const stranger = await connectMcpClient(actor.url, { 'X-Tenant-Id': 'gamma' });
    const refused = await stranger.callTool({ name: 'mock_whoami', arguments: {} });
    expect(refused).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Tool mock_whoami failed: Tenant gamma has not connected mock; start at /oauth/authorize?provider=mock&tenant_id=gamma (oauth_not_connected)',
        },
      ],
    });
    await stranger.close();
  });

  it('never lets a token reach a log line, a reply, the history or /metrics', async () => {
    const metrics = await (await fetch(`${actor.url}/metrics`)).text();
    const history = await Promise.all(['s-acme', 'leaky'].map((session) => store.loadHistory('acme', session, 100)));
    const everything = [JSON.stringify(sink.records), seen.join('\n'), metrics, JSON.stringify(history)].join('\n');
    expect(history.flat().length).toBeGreaterThan(0);
    expect(issued.length).toBeGreaterThanOrEqual(3);
    for (const token of [...issued, ...refreshTokens]) expect(everything).not.toContain(token);
  });
});
