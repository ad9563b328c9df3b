import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { ActorTool } from '../../src/agent/actor-tool.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { completion, fakeOpenAIForThisFile, textChunks, toolCallChunks } from './fake-openai-server.js';
import { startHttpMcpServer } from './fixtures/http-mcp-server.js';
import { readUiStream } from './ui-stream-reader.js';

const greet = new ActorTool({
  name: 'hello_greet',
  description: 'Greets a person by name',
  argsSchema: v.object({ name: v.string() }),
  run: ({ name }) => `Hello, ${name}!`,
});

const server = await fakeOpenAIForThisFile();

const llmEnv = (extra: Record<string, string> = {}) => ({
  LLM_BASE_URL: server.baseUrl,
  LLM_MODEL: 'fake-model',
  LLM_API_KEY: 'sk-test',
  LLM_MAX_RETRIES: '0',
  LLM_TIMEOUT_MS: '2000',
  ...extra,
});
const turn = { user_identifier: 'u-1', session_id: 'chat-1' };
const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ ...turn, ...payload }),
  });

describe('the agent behind POST /agent/invoke, with an OpenAI-compatible server', () => {
  it('sends turn one back to the model as history on turn two; another tenant does not see it', async () => {
    const app = await createTestActor({ env: llmEnv(), instructions: 'You are the hello actor.' });
    server.reply(
      { kind: 'json', body: completion('Nice to meet you, Ada.') },
      { kind: 'json', body: completion('Your name is Ada.') },
      { kind: 'json', body: completion('I do not know.') },
    );
    const first = await app.request(post({ message: 'My name is Ada.' }, { 'X-Tenant-Id': 'acme' }));
    expect(await first.json()).toMatchObject({
      message: { content: 'Nice to meet you, Ada.' },
      model: 'fake-model-1',
      usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 },
    });
    await app.request(post({ message: 'What is my name?' }, { 'X-Tenant-Id': 'acme' }));
    await app.request(post({ message: 'What is my name?' }, { 'X-Tenant-Id': 'globex' }));
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'system', content: 'You are the hello actor.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(server.requests[2]!.body.messages).toEqual([
      { role: 'system', content: 'You are the hello actor.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('sends at most HISTORY_LIMIT earlier messages, and none with 0', async () => {
    const app = await createTestActor({ env: llmEnv({ HISTORY_LIMIT: '2' }) });
    for (const message of ['one', 'two', 'three']) await app.request(post({ message }));
    expect(server.requests[2]!.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'two',
      'fake reply',
      'three',
    ]);
    const none = await createTestActor({ env: llmEnv({ HISTORY_LIMIT: '0' }) });
    await none.request(post({ message: 'one' }));
    await none.request(post({ message: 'two' }));
    expect(server.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'two' }]);
  });

  it('runs a tool the model asks for, sends back the result, and keeps the exchange in the history', async () => {
    const app = await createTestActor({ env: llmEnv(), tools: [greet] });
    server.reply(
      {
        kind: 'json',
        body: completion(null, {
          toolCalls: [{ id: 'call_1', name: 'hello_greet', arguments: '{"name":"Ada"}' }],
          usage: [20, 5],
        }),
      },
      { kind: 'json', body: completion('I greeted Ada.', { usage: [30, 4] }) },
    );
    const reply = await (await app.request(post({ message: 'Greet Ada' }))).json();
    expect(reply).toMatchObject({
      message: { content: 'I greeted Ada.' },
      finish_reason: 'stop',
      usage: { input_tokens: 50, output_tokens: 9, total_tokens: 59 },
      tool_calls: [
        { id: 'call_1', name: 'hello_greet', arguments: { name: 'Ada' }, output: 'Hello, Ada!', status: 'ok' },
      ],
    });
    expect(server.requests[0]!.body.tools[0].function).toEqual({
      name: 'hello_greet',
      description: 'Greets a person by name',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    expect(server.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'Hello, Ada!',
    });
    await app.request(post({ message: 'Thanks' }));
    expect(server.requests[2]!.body.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(await (await app.request('/stats')).json()).toMatchObject({
      invocations: 2,
      tool_calls: 1,
      input_tokens: 57,
      output_tokens: 12,
    });
  });

  it('streams tool-call deltas split across chunks into the same answer as JSON', async () => {
    const app = await createTestActor({ env: llmEnv(), tools: [greet] });
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [{ id: 'call_1', name: 'hello_greet', arguments: '{"name":"Ada"}' }] }),
      },
      { kind: 'json', body: completion('Greeted: Hello, Ada!') },
    );
    const json = await (await app.request(post({ message: 'Greet Ada', session_id: 'json' }))).json();
    server.reply(
      { kind: 'stream', chunks: toolCallChunks('call_1', 'hello_greet', ['{"na', 'me":"A', 'da"}']) },
      { kind: 'stream', chunks: textChunks(['Greeted: ', 'Hello, ', 'Ada!']) },
    );
    const response = await app.request(post({ message: 'Greet Ada', session_id: 'streamed', stream: true }));
    const read = await readUiStream(response.body!);
    expect(read.text).toBe(json.message.content);
    expect(read.message!.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      toolCallId: 'call_1',
      input: { name: 'Ada' },
      output: 'Hello, Ada!',
    });
    expect(server.requests.at(-1)!.body.stream).toBe(true);
  });

  it.each([
    ['a 500', { kind: 'json', status: 500, body: { error: { message: 'down' } } }, 502, 'model_error'],
    [
      'malformed JSON',
      { kind: 'raw', status: 200, contentType: 'application/json', body: '{"choices": [' },
      502,
      'model_error',
    ],
    ['a hang', { kind: 'hang' }, 504, 'model_timeout'],
  ] as const)('answers %s with a %i problem and counts an error', async (_case, fake, status, code) => {
    const app = await createTestActor({ env: llmEnv({ LLM_TIMEOUT_MS: '150' }) });
    server.reply(fake);
    const response = await app.request(post({ message: 'hello' }));
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status, code });
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1, errors: 1 });
    expect((await app.request('/health')).status).toBe(200);
  });

  it("gives the reply's message the id the session history stores it under, JSON and streamed", async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ env: llmEnv(), tools: [greet], store });
    server.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [{ id: 'call_1', name: 'hello_greet', arguments: '{"name":"Ada"}' }] }),
      },
      { kind: 'json', body: completion('I greeted Ada.') },
    );
    const json = await (await app.request(post({ message: 'Greet Ada', session_id: 'ids-json' }))).json();
    const storedJson = await store.loadHistory('default', 'ids-json', 10);
    expect(storedJson.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(storedJson.at(-1)).toMatchObject({ id: json.message.id, content: 'I greeted Ada.' });
    expect(new Set(storedJson.map((message) => message.id)).size).toBe(4);
    server.reply({ kind: 'stream', chunks: textChunks(['Hi ', 'there']) });
    const streamed = await readUiStream(
      (await app.request(post({ message: 'hello', session_id: 'ids-stream', stream: true }))).body!,
    );
    const storedStream = await store.loadHistory('default', 'ids-stream', 10);
    expect(storedStream.at(-1)).toMatchObject({ role: 'assistant', id: streamed.message!.id, content: 'Hi there' });
  });

  it('streams the answer of a model server that ignores stream: true and stores it, not an empty reply', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ env: llmEnv(), store });
    server.reply({ kind: 'json', body: completion('A plain JSON answer.') });
    const streamed = await readUiStream(
      (await app.request(post({ message: 'hello', session_id: 'ignores-stream', stream: true }))).body!,
    );
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(streamed.text).toBe('A plain JSON answer.');
    expect((await store.loadHistory('default', 'ignores-stream', 10)).at(-1)).toMatchObject({
      role: 'assistant',
      content: 'A plain JSON answer.',
    });
  });

  it('refuses to start with a malformed agent setting in the environment', async () => {
    await expect(createTestActor({ env: { LLM_TIMEOUT_MS: 'soon' } })).rejects.toThrow(/LLM_TIMEOUT_MS/);
    await expect(createTestActor({ env: { MCP_SERVERS: '{"x": 1}' } })).rejects.toThrow(/MCP_SERVERS/);
  });
});

describe('over real HTTP', () => {
  it('with on_disconnect: "cancel", aborts the model call when the client disconnects from a stream', async () => {
    const app = await createTestActor({ env: llmEnv({ LLM_TIMEOUT_MS: '10000' }) });
    const http = serve({ fetch: (request) => app.fetch(request), port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => http.once('listening', resolve));
    try {
      server.reply({ kind: 'stream', chunks: textChunks(['first ']).slice(0, 2), hangAfter: true });
      const client = new AbortController();
      const response = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/agent/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify({ ...turn, message: 'hello', on_disconnect: 'cancel' }),
        signal: client.signal,
      });
      const reader = response.body!.getReader();
      let seen = '';
      while (!seen.includes('first')) seen += new TextDecoder().decode((await reader.read()).value);
      client.abort();
      await server.waitForDisconnects(1);
      await vi.waitFor(() => expect(app.actor.lifecycle.inFlight).toBe(0));
      expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1, errors: 1 });
    } finally {
      await app.actor.shutdown({ graceMs: 1_000 });
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('MCP tools in an actor', () => {
  it('offers the tools of MCP_SERVERS after the domain tools and calls them', async () => {
    const mcp = await startHttpMcpServer();
    const sink = createMemorySink();
    const app = await createTestActor({
      env: { MCP_SERVERS: JSON.stringify({ docs: { url: mcp.url }, down: { url: 'http://127.0.0.1:9/mcp' } }) },
      tools: [greet],
      logger: createLogger({ sink }),
    });
    try {
      expect(sink.records.find((record) => record.event === 'tool_registry_built')).toMatchObject({
        total: 4,
        sources: { domain: 1, mcp: 3 },
      });
      expect(sink.records.find((record) => record.event === 'tool_source_failed')).toMatchObject({
        source: 'mcp:down',
      });
      const reply = await (
        await app.request(post({ message: 'use tool docs_search_docs with {"topic": "deploy"}' }))
      ).json();
      expect(reply.tool_calls).toEqual([
        {
          id: expect.any(String),
          name: 'docs_search_docs',
          arguments: { topic: 'deploy' },
          output: 'Run actorkit publish.',
          status: 'ok',
        },
      ]);
      const failed = await (await app.request(post({ message: 'use tool docs_fail' }))).json();
      expect(failed.tool_calls[0]).toMatchObject({ status: 'error', error: 'the index is offline' });
      expect(failed.message.content).toContain('the index is offline');
    } finally {
      await app.actor.shutdown({ graceMs: 100 });
      await mcp.close();
    }
  });
});
