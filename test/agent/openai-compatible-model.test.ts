import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamPart } from '../../src/agent/chat-model.js';
import { createOpenAICompatibleModel } from '../../src/agent/providers/openai-compatible.js';
import { ActorError } from '../../src/core/actor-error.js';
import { createLogger, createMemorySink, type Logger } from '../../src/log/logger.js';
import { completion, fakeOpenAIForThisFile, textChunks, toolCallChunks } from './fake-openai-server.js';

const server = await fakeOpenAIForThisFile();

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hello' }],
  tools: [],
  signal: new AbortController().signal,
  ...overrides,
});

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of parts) seen.push(part);
  return seen;
}

async function failure(promise: Promise<unknown>): Promise<ActorError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ActorError);
  return error as ActorError;
}

/** The transports a whole answer may take: the runtime's own (`node:http` under vitest on Node) and a given `fetch`. */
const TRANSPORTS = [
  { transport: 'the runtime default (node:http)', fetch: undefined },
  { transport: 'a given fetch', fetch: ((input, init) => fetch(input, init)) satisfies typeof fetch },
];

describe.each(TRANSPORTS)(
  'the OpenAI-compatible model against a real HTTP server, over $transport',
  ({ fetch: givenFetch }) => {
    const model = (options: { timeoutMs?: number; maxRetries?: number; apiKey?: string; logger?: Logger } = {}) =>
      createOpenAICompatibleModel({
        baseUrl: server.baseUrl,
        model: 'fake-model',
        apiKey: options.apiKey ?? 'sk-test',
        timeoutMs: options.timeoutMs ?? 2_000,
        maxRetries: options.maxRetries ?? 0,
        ...(givenFetch ? { fetch: givenFetch } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
      });

    it('sends the conversation and tools, and reads a JSON answer with usage', async () => {
      server.reply({ kind: 'json', body: completion('Hi there', { usage: [11, 2] }) });
      const response = await model().generate(
        ask({
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hello' },
            {
              role: 'assistant',
              content: '',
              toolCalls: [{ id: 'c1', name: 'hello_greet', arguments: '{"name":"Ada"}' }],
            },
            { role: 'tool', toolCallId: 'c1', name: 'hello_greet', content: 'Hello, Ada!' },
          ],
          tools: [
            {
              name: 'hello_greet',
              description: 'Greets',
              parameters: { type: 'object', properties: { name: { type: 'string' } } },
            },
          ],
        }),
      );
      expect(response).toEqual({
        text: 'Hi there',
        toolCalls: [],
        usage: { inputTokens: 11, outputTokens: 2 },
        finishReason: 'stop',
        model: 'fake-model-1',
      });
      const [seen] = server.requests;
      expect(seen!.path).toBe('/v1/chat/completions');
      expect(seen!.headers.authorization).toBe('Bearer sk-test');
      expect(seen!.body.model).toBe('fake-model');
      expect(seen!.body.tool_choice).toBe('auto');
      expect(seen!.body.tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'hello_greet',
            description: 'Greets',
            parameters: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      ]);
      expect(seen!.body.messages).toEqual([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'hello_greet', arguments: '{"name":"Ada"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'Hello, Ada!' },
      ]);
    });

    it('omits tools when there are none and reads tool calls from a JSON answer', async () => {
      server.reply({
        kind: 'json',
        body: completion(null, { toolCalls: [{ id: 'c9', name: 'hello_greet', arguments: '{"name":' }] }),
      });
      const response = await model().generate(ask());
      expect(server.requests[0]!.body).not.toHaveProperty('tools');
      expect(response.toolCalls).toEqual([{ id: 'c9', name: 'hello_greet', arguments: '{"name":' }]);
      expect(response.finishReason).toBe('tool_calls');
      expect(response.text).toBe('');
    });

    it('streams text chunks and ends with one finish carrying the usage', async () => {
      server.reply({ kind: 'stream', chunks: textChunks(['Hel', 'lo', ' world'], [5, 4]) });
      const parts = await collect(model().stream(ask()));
      expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta)).toEqual([
        'Hel',
        'lo',
        ' world',
      ]);
      expect(parts.at(-1)).toEqual({
        type: 'finish',
        response: {
          text: 'Hello world',
          toolCalls: [],
          usage: { inputTokens: 5, outputTokens: 4 },
          finishReason: 'stop',
          model: 'fake-model-1',
        },
      });
      expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    });

    it('uses a plain JSON answer to a streamed call (a server that ignores stream: true), and logs that it did', async () => {
      const sink = createMemorySink();
      server.reply({
        kind: 'json',
        body: completion('Whole answer', {
          usage: [6, 2],
          toolCalls: [{ id: 'c3', name: 'hello_greet', arguments: '{}' }],
        }),
      });
      const parts = await collect(model({ timeoutMs: 60_000, logger: createLogger({ sink }) }).stream(ask()));
      expect(server.requests[0]!.body.stream).toBe(true);
      expect(parts).toEqual([
        { type: 'text-delta', delta: 'Whole answer' },
        {
          type: 'finish',
          response: {
            text: 'Whole answer',
            toolCalls: [{ id: 'c3', name: 'hello_greet', arguments: '{}' }],
            usage: { inputTokens: 6, outputTokens: 2 },
            finishReason: 'tool_calls',
            model: 'fake-model-1',
          },
        },
      ]);
      expect(sink.records.filter((record) => record.event === 'model_stream_ignored')).toEqual([
        expect.objectContaining({ level: 'warn', model: 'fake-model', content_type: 'application/json' }),
      ]);
    });

    it('fails a streamed call whose stream ends without any answer (502, logged), rather than answering nothing', async () => {
      const sink = createMemorySink();
      server.reply({ kind: 'stream', chunks: [] });
      const error = await failure(collect(model({ timeoutMs: 60_000, logger: createLogger({ sink }) }).stream(ask())));
      expect(error).toMatchObject({
        status: 502,
        code: 'model_error',
        detail: 'The model server sent an answer that could not be used',
      });
      expect(sink.records.find((record) => record.event === 'model_call_failed')).toMatchObject({
        error: expect.stringContaining('no answer'),
      });
    });

    it('assembles a tool call whose name and arguments are split across chunks', async () => {
      server.reply({ kind: 'stream', chunks: toolCallChunks('call_7', 'hello_greet', ['{"na', 'me": "A', 'da"}']) });
      const parts = await collect(model().stream(ask()));
      expect(parts).toEqual([
        {
          type: 'finish',
          response: {
            text: '',
            toolCalls: [{ id: 'call_7', name: 'hello_greet', arguments: '{"name": "Ada"}' }],
            usage: { inputTokens: 0, outputTokens: 0 },
            finishReason: 'tool_calls',
            model: 'fake-model-1',
          },
        },
      ]);
    });

    it('turns a 500 into 502 model_error naming the status', async () => {
      server.reply({ kind: 'json', status: 500, body: { error: { message: 'upstream exploded' } } });
      const error = await failure(model().generate(ask()));
      expect(error).toMatchObject({ status: 502, code: 'model_error' });
      expect(error.detail).toContain('500');
    });

    it('retries a 500 when retries are allowed', async () => {
      server.reply(
        { kind: 'json', status: 500, body: { error: { message: 'flaky' } }, headers: { 'retry-after-ms': '1' } },
        { kind: 'json', body: completion('second try') },
      );
      const response = await model({ maxRetries: 1 }).generate(ask());
      expect(response.text).toBe('second try');
      expect(server.requests).toHaveLength(2);
    });

    it('retries a 429 after the wait its Retry-After asks for, and honours x-should-retry: false', async () => {
      server.reply(
        { kind: 'json', status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0.2' } },
        { kind: 'json', body: completion('after the wait') },
      );
      const started = performance.now();
      expect((await model({ maxRetries: 1 }).generate(ask())).text).toBe('after the wait');
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      server.reply({
        kind: 'json',
        status: 503,
        body: { error: { message: 'do not' } },
        headers: { 'x-should-retry': 'false', 'retry-after-ms': '1' },
      });
      expect(await failure(model({ maxRetries: 2 }).generate(ask()))).toMatchObject({ status: 502 });
      expect(server.requests).toHaveLength(3);
    });

    it('gives up a Retry-After wait longer than the time-out when the time-out comes: 504 then, not after the wait', async () => {
      server.reply({
        kind: 'json',
        status: 429,
        body: { error: { message: 'come back in a minute' } },
        headers: { 'retry-after': '60' },
      });
      const started = performance.now();
      expect(await failure(model({ maxRetries: 1, timeoutMs: 200 }).generate(ask()))).toMatchObject({
        status: 504,
        code: 'model_timeout',
      });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(server.requests).toHaveLength(1);
    });

    it('turns a server that never answers into 504 model_timeout', async () => {
      server.reply({ kind: 'hang' });
      const error = await failure(model({ timeoutMs: 150 }).generate(ask()));
      expect(error).toMatchObject({ status: 504, code: 'model_timeout' });
    });

    it('turns headers without a body into 504 too', async () => {
      server.reply({ kind: 'hang-body' });
      expect(await failure(model({ timeoutMs: 150 }).generate(ask()))).toMatchObject({ status: 504 });
    });

    it('turns a stream that stops sending into 504', async () => {
      server.reply({ kind: 'stream', chunks: textChunks(['partial']).slice(0, 2), hangAfter: true });
      const error = await failure(collect(model({ timeoutMs: 150 }).stream(ask())));
      expect(error.code).toBe('model_timeout');
    });

    it('turns malformed JSON into 502, answered or streamed', async () => {
      server.reply({ kind: 'raw', status: 200, contentType: 'application/json', body: '{"choices": [' });
      expect(await failure(model().generate(ask()))).toMatchObject({ status: 502, code: 'model_error' });
      server.reply({ kind: 'stream', chunks: ['{"choices": [{"delta": '] });
      expect(await failure(collect(model().stream(ask())))).toMatchObject({ status: 502, code: 'model_error' });
    });

    it('turns an answer without choices into 502', async () => {
      server.reply({ kind: 'json', body: { id: 'x', object: 'chat.completion', choices: [] } });
      const error = await failure(model().generate(ask()));
      expect(error.detail).toBe('The model server sent an answer that could not be used');
      expect((error.cause as Error).message).toContain('no choices');
    });

    it('turns an unreachable server into 502', async () => {
      const nowhere = createOpenAICompatibleModel({
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'm',
        maxRetries: 0,
        timeoutMs: 2_000,
        ...(givenFetch ? { fetch: givenFetch } : {}),
      });
      const error = await failure(nowhere.generate(ask()));
      expect(error).toMatchObject({ status: 502, code: 'model_error' });
      expect(error.detail).toContain('could not be reached');
    });

    it('stops when the caller aborts, with the abort rather than a model error', async () => {
      server.reply({ kind: 'hang' });
      const controller = new AbortController();
      const pending = model({ timeoutMs: 5_000 }).generate(ask({ signal: controller.signal }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort(new Error('client left'));
      await expect(pending).rejects.toThrow('client left');
      await server.waitForDisconnects(1);
    });

    it('refuses to be built without a model name', () => {
      expect(() => createOpenAICompatibleModel({ model: ' ' })).toThrow(/LLM_MODEL/);
    });
  },
);
