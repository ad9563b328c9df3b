import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ActorTool, MemoryStore, silentLogger } from 'actorkit';
import { approvals, assertNoForbiddenVerbs, assertPinnedPhrases, makeConfigConsistencyTests, makeContractTests } from 'actorkit/testing';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import platformConfig from '../src/platform/config.json' with { type: 'json' };
import { PINNED_RULES, SYSTEM_PROMPT } from '../src/prompts/system-prompt.js';

const sourceRoot = fileURLToPath(new URL('../src', import.meta.url));
/** The tests pin the offline model, whatever model the settings or the environment name. */
const testEnv = { LLM_PROVIDER: 'offline', MESH_KEY: 'test-mesh-key', };

async function startedApp() {
  const app = createApp(testEnv, { store: new MemoryStore(), logger: silentLogger });
  await app.actor.start();
  return app;
}

const invoke = (message: string, sessionId = 'test-session') => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ user_identifier: 'tester', session_id: sessionId, message }),
});

makeContractTests(async () => (await (await startedApp()).request('/openapi.json')).json());
makeConfigConsistencyTests(startedApp, platformConfig);

describe('Mesh Actor', () => {
  it('answers with the offline model out of the box', async () => {
    const app = await startedApp();
    const response = await app.request('/agent/invoke', invoke('hello'));
    expect(response.status).toBe(200);
    const reply = await response.json();
    expect(reply.model).toBe('offline');
    expect(reply.message.content).toContain('offline model');
  });

  it('calls its domain tool', async () => {
    const app = await startedApp();
    const response = await app.request('/agent/invoke', invoke('use tool weather_lookup with {"topic": "testing"}'));
    const reply = await response.json();
    expect(reply.tool_calls).toMatchObject([{ name: 'weather_lookup', status: 'ok' }]);
    expect(reply.message.content).toContain('testing');
  });

  it('serves MCP clients at /mcp: chat, and weather_lookup as a read-only tool', async () => {
    const app = await startedApp();
    const client = new Client({ name: 'actor-test', version: '1.0.0' });
    // The SDK client's requests go straight to app.request: no server needed.
    await client.connect(new StreamableHTTPClientTransport(new URL('http://actor.test/mcp'), { fetch: async (url, init) => app.request(String(url), init) }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([['chat', false], ['weather_lookup', true]]);
    const chat = await client.callTool({ name: 'chat', arguments: { message: 'hello' } });
    expect(chat.structuredContent).toMatchObject({ model: 'offline' });
    const lookup = await client.callTool({ name: 'weather_lookup', arguments: { topic: 'testing' } });
    expect(lookup.structuredContent).toMatchObject({ topic: 'testing' });
    await client.close();
  });

  it('waits for a person before a tool that needs approval, and goes on as they decide', async () => {
    // A tool that writes, sends or pays says `needsApproval: true`: each call waits for a person
    // (docs/agent.md). This one stands in for such a tool; the actor's own tools only read.
    const published: string[] = [];
    const publish = new ActorTool({
      name: 'weather_publish',
      description: 'Publishes a note about a topic',
      argsSchema: v.object({ topic: v.string() }),
      needsApproval: true,
      run: ({ topic }) => {
        published.push(topic);
        return { published: topic };
      },
    });
    const app = createApp(testEnv, { store: new MemoryStore(), logger: silentLogger, tools: [publish] });
    await app.actor.start();
    const ask = async (sessionId: string) =>
      (await app.request('/agent/invoke', invoke('use tool weather_publish with {"topic": "testing"}', sessionId))).json();

    const paused = await ask('approved-session');
    expect(paused).toMatchObject({ status: 'awaiting_input', approvals: [{ tool: 'weather_publish', arguments: { topic: 'testing' } }] });
    expect(await approvals.approveAll(app, paused)).toMatchObject({ status: 'completed', tool_calls: [{ name: 'weather_publish', status: 'ok' }] });

    expect(published).toEqual(['testing']);

    // A denial's reason is told to the model; the tool does not run.
    const denied = await approvals.denyNext(app, await ask('denied-session'), 'not today');
    expect(denied.status).toBe('completed');
    expect(denied.message.content).toContain('not today');
    expect(published).toEqual(['testing']);
  });

  it('uses a setting changed by PUT /settings on the very next tool call', async () => {
    const app = await startedApp();
    const lookup = async () => {
      const response = await app.request('/agent/invoke', invoke('use tool weather_lookup with {"topic": "settings"}'));
      return JSON.stringify((await response.json()).tool_calls);
    };
    expect(await lookup()).toContain('Hello!');
    const changed = await app.request('/settings', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ weather_greeting: 'Howdy' }),
    });
    expect(await changed.json()).toMatchObject({ applied: ['weather_greeting'], restart_required: [] });
    expect(await lookup()).toContain('Howdy!');
  });

  it('is ready and healthy', async () => {
    const app = await startedApp();
    expect((await app.request('/ready')).status).toBe(200);
    expect(await (await app.request('/health')).json()).toMatchObject({ status: 'ok', checks: { weather: { status: 'pass' } } });
  });

  it('states in its prompt every rule the code enforces', () => {
    assertPinnedPhrases(SYSTEM_PROMPT, PINNED_RULES);
  });

  it('offers no writing or destructive capability', () => {
    assertNoForbiddenVerbs(sourceRoot, ['delete', 'remove', 'send', 'pay', 'transfer', 'purge'], { scannedDirs: ['weather', 'agent/tools'] });
  });
});
