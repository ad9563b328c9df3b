import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { readUiStream } from '../../test/agent/ui-stream-reader.js';
import { ActorTool } from '../agent/actor-tool.js';
import type { ChatModel, ModelResponse } from '../agent/chat-model.js';
import { modelUpstreamError } from '../agent/model-errors.js';
import { createLogger, createMemorySink, type LogLevel, type LogRecord } from '../log/logger.js';
import { createTestActor } from '../testing/create-test-actor.js';
import type { ChatInput } from './chat-handler.js';
import { MemoryStore } from '../store/memory-store.js';
import type { Store } from '../store/store.js';

/** A store that counts every call by method name. */
function countingStore(): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const inner = new MemoryStore();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

/**
 * Waits for the turn's run row: it is written after the reply, by a flush of its own (see
 * features/runs), so a count taken at once would see it or not by timing.
 */
const runRowWritten = (calls: Map<string, number>) => vi.waitFor(() => expect(calls.get('writeRuns')).toBe(1));

const invoke = (message: string, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ user_identifier: 'u-1', session_id: 'owned', message }),
  });

describe('a turn owns its session', () => {
  it("reads the session's history once and writes the turn once; the agent never touches the store", async () => {
    const { store, calls } = countingStore();
    const app = await createTestActor({ store });
    expect((await app.request(invoke('first'))).status).toBe(200);
    await runRowWritten(calls);
    calls.clear();
    const response = await app.request(invoke('second'));
    expect(response.status).toBe(200);
    await runRowWritten(calls);
    expect(Object.fromEntries(calls)).toEqual({ loadHistory: 1, saveTurns: 1, writeRuns: 1 });
    expect((await store.loadHistory('default', 'owned', 10)).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('commits the reply of an Idempotency-Key with the turn, in the same write, and replays it', async () => {
    const { store, calls } = countingStore();
    const app = await createTestActor({ store });
    expect((await app.request(invoke('warm-up'))).status).toBe(200);
    await runRowWritten(calls);
    calls.clear();
    const first = await app.request(invoke('once', { 'Idempotency-Key': 'turn-key-1' }));
    expect(first.status).toBe(200);
    const body = await first.text();
    await runRowWritten(calls);
    expect(Object.fromEntries(calls)).toEqual({ claimIdempotencyKey: 1, loadHistory: 1, saveTurns: 1, writeRuns: 1 });
    const retry = await app.request(invoke('once', { 'Idempotency-Key': 'turn-key-1' }));
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(body);
    expect((await store.readStats()).invocations).toBe(2);
  });

  it('completes the key on its own, with the reply sent, when the turn could not be written with it', async () => {
    const { store } = countingStore();
    const app = await createTestActor({ store });
    (store as MemoryStore).failure = new Error('database down');
    const first = await app.request(invoke('deferred', { 'Idempotency-Key': 'turn-key-2' }));
    expect((await first.json()).metadata).toMatchObject({ idempotency_unavailable: true, stats_deferred: true });
    (store as MemoryStore).failure = null;
    // The buffer still waits out the outage: this turn's record is deferred, its key completed alone.
    const second = await app.request(invoke('deferred too', { 'Idempotency-Key': 'turn-key-3' }));
    const reply = await second.json();
    expect(reply.metadata).toEqual({ stats_deferred: true });
    expect(await store.claimIdempotencyKey('default/turn-key-3', 'other', 1_000)).toMatchObject({
      state: 'completed',
      body: JSON.stringify(reply),
    });
  });

  it('hands a chat handler of the actor’s own no history and reads none for it', async () => {
    const { store, calls } = countingStore();
    const inputs: ChatInput[] = [];
    const app = await createTestActor({
      store,
      chatHandler: async (input) => {
        inputs.push(input);
        return {
          content: 'mine',
          toolCalls: [],
          finishReason: 'stop',
          usage: { inputTokens: 0, outputTokens: 0 },
          model: 'own',
        };
      },
    });
    calls.clear();
    expect((await app.request(invoke('hello'))).status).toBe(200);
    expect(inputs[0]?.history).toEqual([]);
    expect(calls.get('loadHistory')).toBeUndefined();
  });
});

const MESSAGE = 'please greet Zebulon-the-confidential';
const SECRET_ARGUMENT = 'Quixotic-argument-value-7731';
const body = { user_identifier: 'u-1', session_id: 's-log', message: MESSAGE };
const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req-log-1', 'X-Tenant-Id': 'acme', ...headers },
    body: JSON.stringify(payload),
  });

const greet = new ActorTool({
  name: 'hello_greet',
  description: 'Greets a person',
  argsSchema: v.object({ name: v.string(), style: v.optional(v.string()) }),
  run: ({ name }) => `Hello, ${name}!`,
});

/** A model that asks for `hello_greet` once, then answers with text. */
function toolCallingModel(): ChatModel {
  const respond = (request: { messages: readonly { role: string }[] }): ModelResponse =>
    request.messages.some((message) => message.role === 'tool')
      ? { text: 'Done greeting.', toolCalls: [], usage: { inputTokens: 20, outputTokens: 3 }, finishReason: 'stop' }
      : {
          text: '',
          toolCalls: [
            { id: 'call_1', name: 'hello_greet', arguments: JSON.stringify({ name: SECRET_ARGUMENT, style: 'warm' }) },
          ],
          usage: { inputTokens: 10, outputTokens: 5 },
          finishReason: 'tool_calls',
        };
  return {
    name: 'scripted-tools',
    generate: async (request) => respond(request),
    async *stream(request) {
      yield { type: 'finish', response: respond(request) };
    },
  };
}

/** A model whose server always fails. */
const failingModel: ChatModel = {
  name: 'failing',
  generate: async () => {
    throw modelUpstreamError('upstream said 500');
  },
  // biome-ignore lint/correctness/useYield: a model whose stream fails before its first part
  async *stream() {
    throw modelUpstreamError('upstream said 500');
  },
};

async function actorLogging(level: LogLevel, extra: Parameters<typeof createTestActor>[0] = {}) {
  const sink = createMemorySink();
  const app = await createTestActor({ logger: createLogger({ level, sink }), ...extra });
  const turnLines = () => sink.records.filter((record) => record.event === 'invoke_finished');
  return { app, sink, turnLines };
}

function expectNoText(records: readonly LogRecord[], ...texts: string[]) {
  const written = JSON.stringify(records);
  for (const text of texts) expect(written).not.toContain(text);
}

describe('the log line of a turn', () => {
  it('writes one info line for a JSON turn, with the facts and without the message', async () => {
    const { app, sink, turnLines } = await actorLogging('info');
    const response = await app.request(post(body));
    expect(response.status).toBe(200);
    const reply = await response.json();
    expect(turnLines()).toHaveLength(1);
    expect(turnLines()[0]).toMatchObject({
      level: 'info',
      request_id: 'req-log-1',
      tenant_id: 'acme',
      session_id: 's-log',
      outcome: 'success',
      model: 'offline',
      stream: false,
      tool_calls: [],
      input_tokens: reply.usage.input_tokens,
      output_tokens: reply.usage.output_tokens,
      latency_ms: expect.any(Number),
    });
    expect(reply.message.content).toContain('Zebulon');
    expectNoText(sink.records, MESSAGE, 'Zebulon', reply.message.content);
  });

  it('writes one line for a streamed turn, once the stream has ended', async () => {
    const { app, sink, turnLines } = await actorLogging('info');
    const response = await app.request(post({ ...body, stream: true }));
    expect(response.status).toBe(200);
    const streamed = await readUiStream(response.body!);
    expect(streamed.text).toContain('Zebulon');
    expect(turnLines()).toHaveLength(1);
    expect(turnLines()[0]).toMatchObject({
      level: 'info',
      request_id: 'req-log-1',
      tenant_id: 'acme',
      session_id: 's-log',
      outcome: 'success',
      model: 'offline',
      stream: true,
    });
    expectNoText(sink.records, MESSAGE, 'Zebulon');
  });

  it('names the tool calls at info, adds their argument keys at debug, never their values', async () => {
    const { app, sink, turnLines } = await actorLogging('debug', { model: toolCallingModel(), tools: [greet] });
    const reply = await (await app.request(post(body))).json();
    expect(reply.tool_calls).toMatchObject([{ name: 'hello_greet', status: 'ok' }]);
    expect(turnLines()).toHaveLength(1);
    expect(turnLines()[0]).toMatchObject({
      outcome: 'success',
      model: 'scripted-tools',
      tool_calls: ['hello_greet'],
      input_tokens: 30,
      output_tokens: 8,
    });
    const argumentLines = sink.records.filter((record) => record.event === 'invoke_tool_arguments');
    expect(argumentLines).toEqual([
      expect.objectContaining({
        level: 'debug',
        request_id: 'req-log-1',
        tool_calls: [{ name: 'hello_greet', argument_keys: ['name', 'style'] }],
      }),
    ]);
    expectNoText(sink.records, MESSAGE, SECRET_ARGUMENT, 'warm', `Hello, ${SECRET_ARGUMENT}`);
  });

  it('leaves the argument keys out at info', async () => {
    const { app, sink } = await actorLogging('info', { model: toolCallingModel(), tools: [greet] });
    expect((await app.request(post(body))).status).toBe(200);
    expect(sink.records.filter((record) => record.event === 'invoke_tool_arguments')).toEqual([]);
    expectNoText(sink.records, 'argument_keys', SECRET_ARGUMENT);
  });

  it('writes one line for a failed turn, with the error code as its outcome', async () => {
    const { app, sink, turnLines } = await actorLogging('info', { model: failingModel });
    const response = await app.request(post(body));
    expect(response.status).toBe(502);
    expect(turnLines()).toHaveLength(1);
    expect(turnLines()[0]).toMatchObject({
      level: 'info',
      request_id: 'req-log-1',
      tenant_id: 'acme',
      session_id: 's-log',
      outcome: 'model_error',
      tool_calls: [],
      input_tokens: 0,
      output_tokens: 0,
    });
    expect(turnLines()[0]).not.toHaveProperty('model');
    expectNoText(sink.records, MESSAGE, 'Zebulon');
  });
});
