import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { deferred } from '../../test/agent/deferred.js';
import { readUiStream } from '../../test/agent/ui-stream-reader.js';
import { ActorTool } from '../agent/actor-tool.js';
import type { ChatModel, ModelRequest, ModelStreamPart } from '../agent/chat-model.js';
import { modelUpstreamError } from '../agent/model-errors.js';
import { createTestActor } from '../testing/create-test-actor.js';

const greet = new ActorTool({
  name: 'hello_greet',
  description: 'Greets a person',
  argsSchema: v.object({ name: v.string() }),
  run: ({ name }) => `Hello, ${name}!`,
});
const body = { user_identifier: 'u-1', session_id: 's-1', message: 'hello there' };
const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
const sse = { Accept: 'text/event-stream' };

/** A model that streams one piece, then waits until its call is aborted. */
function stalledModel() {
  const started = deferred<void>();
  const aborted = deferred<unknown>();
  const waitForAbort = (request: ModelRequest) =>
    new Promise<never>((_, reject) => {
      started.resolve();
      request.signal.addEventListener(
        'abort',
        () => {
          aborted.resolve(request.signal.reason);
          reject(request.signal.reason);
        },
        { once: true },
      );
    });
  const model: ChatModel = {
    name: 'stalled',
    generate: waitForAbort,
    async *stream(request): AsyncGenerator<ModelStreamPart> {
      yield { type: 'text-delta', delta: 'thinking ' };
      await waitForAbort(request);
    },
  };
  return { model, started: started.promise, aborted: aborted.promise };
}

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** A model that streams `first`, waits for `gate`, then streams `rest` and finishes. */
function gatedModel(first: string, rest: string) {
  const gate = deferred<void>();
  const model: ChatModel = {
    name: 'gated',
    generate: async () => {
      throw new Error('unused');
    },
    async *stream() {
      yield { type: 'text-delta', delta: first };
      await gate.promise;
      yield { type: 'text-delta', delta: rest };
      yield {
        type: 'finish',
        response: {
          text: `${first}${rest}`,
          toolCalls: [],
          usage: { inputTokens: 1, outputTokens: 2 },
          finishReason: 'stop',
        },
      };
    },
  };
  return { gate, model };
}

describe('POST /agent/invoke as a UI message stream', () => {
  it('streams what the AI SDK reader turns into the same text as the JSON reply', async () => {
    const app = await createTestActor({ tools: [greet] });
    const json = await (await app.request(post(body))).json();
    const response = await app.request(post({ ...body, session_id: 's-2' }, sse));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    for (const hopByHop of ['connection', 'keep-alive', 'transfer-encoding', 'upgrade'])
      expect(response.headers.get(hopByHop), hopByHop).toBeNull();
    const read = await readUiStream(response.body!);
    expect(read.text).toBe(json.message.content);
    expect(read.raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(read.chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      ...read.chunks.filter((c) => c.type === 'text-delta').map(() => 'text-delta'),
      'text-end',
      'finish-step',
      'data-usage',
      'data-session',
      'finish',
    ]);
    expect(read.chunks.find((chunk) => chunk.type === 'data-session')).toMatchObject({
      data: { session_id: 's-2', model: 'offline', invocation_id: expect.stringMatching(/^inv_/) },
    });
    expect(read.chunks.find((chunk) => chunk.type === 'data-usage')).toMatchObject({
      data: { input_tokens: json.usage.input_tokens, total_tokens: json.usage.total_tokens },
    });
    expect(read.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(read.errors).toEqual([]);
  });

  it('streams a tool call and its output, and counts the invoke once', async () => {
    const app = await createTestActor({ tools: [greet] });
    const response = await app.request(
      post({ ...body, message: 'use tool hello_greet with {"name": "Ada"}', stream: true }),
    );
    const read = await readUiStream(response.body!);
    const tool = read.message!.parts.find((part) => part.type === 'dynamic-tool');
    expect(tool).toMatchObject({
      toolName: 'hello_greet',
      state: 'output-available',
      input: { name: 'Ada' },
      output: 'Hello, Ada!',
    });
    expect(read.text).toBe('[offline model] I used a tool. hello_greet answered: Hello, Ada!');
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1, errors: 0, tool_calls: 1 });
    const metrics = await (await app.request('/metrics')).text();
    expect(metrics).toContain('actor_invocations_total{outcome="success"} 1');
    expect(metrics).toContain('actor_tool_calls_total{tool="hello_greet",outcome="ok"} 1');
  });

  it('streams a failed tool call as tool-output-error', async () => {
    const app = await createTestActor({ tools: [greet] });
    const read = await readUiStream(
      (await app.request(post({ ...body, message: 'use tool hello_greet with {"nom": 1}' }, sse))).body!,
    );
    expect(read.chunks.find((chunk) => chunk.type === 'tool-output-error')).toMatchObject({
      errorText: expect.stringMatching(/^Invalid arguments: name/),
    });
    expect(read.message!.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({ state: 'output-error' });
  });

  it('answers JSON when the body says "stream": false, even when SSE is accepted', async () => {
    const app = await createTestActor();
    const response = await app.request(post({ ...body, stream: false }, sse));
    expect(response.headers.get('content-type')).toContain('application/json');
  });

  it('streams the reply of a handler that does not stream, in one piece', async () => {
    const app = await createTestActor({
      chatHandler: async () => ({
        content: 'whole answer',
        toolCalls: [],
        finishReason: 'length',
        usage: { inputTokens: 1, outputTokens: 2 },
        model: 'custom',
      }),
    });
    const read = await readUiStream((await app.request(post(body, sse))).body!);
    expect(read.text).toBe('whole answer');
    expect(read.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'length' });
  });

  it('ends with an error frame when the model fails mid-stream, and counts an error', async () => {
    const model: ChatModel = {
      name: 'flaky',
      generate: async () => {
        throw modelUpstreamError('boom');
      },
      async *stream() {
        yield { type: 'text-delta', delta: 'partial ' };
        throw modelUpstreamError('The model server answered 500');
      },
    };
    const app = await createTestActor({ model });
    const read = await readUiStream((await app.request(post(body, sse))).body!);
    expect(read.chunks.at(-1)).toEqual({ type: 'error', errorText: 'model_error: The model server answered 500' });
    expect(read.raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(read.errors).toHaveLength(1);
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1, errors: 1 });
    expect(await (await app.request('/metrics')).text()).toContain('actor_invocations_total{outcome="model_error"} 1');
  });

  it('aborts the model call when the client disconnects, and counts it once', async () => {
    const stalled = stalledModel();
    const app = await createTestActor({ model: stalled.model });
    const response = await app.request(post(body, sse));
    const reader = response.body!.getReader();
    expect(await readUntil(reader, 'thinking')).toContain('"delta":"thinking "');
    await stalled.started;
    expect(app.actor.lifecycle.inFlight).toBe(1);
    await reader.cancel();
    await stalled.aborted;
    await vi.waitFor(() => expect(app.actor.lifecycle.inFlight).toBe(0));
    expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1, errors: 1 });
    expect(await (await app.request('/metrics')).text()).toContain(
      'actor_invocations_total{outcome="client_closed_request"} 1',
    );
  });

  it('keeps a stream in flight, so a graceful shutdown waits for it to finish', async () => {
    const { gate, model } = gatedModel('slow ', 'answer');
    const app = await createTestActor({ model });
    const response = await app.request(post(body, sse));
    const reader = response.body!.getReader();
    await readUntil(reader, 'slow');
    let stopped = false;
    const shutdown = app.actor.shutdown({ graceMs: 10_000 }).then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    expect(app.actor.lifecycle.phase).toBe('draining');
    gate.resolve();
    const rest = await readUntil(reader, '[DONE]');
    expect(rest).toContain('"type":"finish"');
    await shutdown;
    expect(stopped).toBe(true);
  });

  it('counts a streamed request in flight once, from its arrival to the end of its stream', async () => {
    const { gate, model } = gatedModel('first ', 'last');
    const app = await createTestActor({ model });
    const enter = vi.spyOn(app.actor.lifecycle, 'enter');
    const reader = (await app.request(post(body, sse))).body!.getReader();
    await readUntil(reader, 'first');
    expect(enter).toHaveBeenCalledTimes(1);
    expect(app.actor.lifecycle.inFlight).toBe(1);
    gate.resolve();
    await readUntil(reader, '[DONE]');
    await vi.waitFor(() => expect(app.actor.lifecycle.inFlight).toBe(0));
    expect(enter).toHaveBeenCalledTimes(1);
  });

  it('ends an open stream with an abort frame when the shutdown stops waiting', async () => {
    const stalled = stalledModel();
    const app = await createTestActor({ model: stalled.model });
    const response = await app.request(post(body, sse));
    const reader = response.body!.getReader();
    await readUntil(reader, 'thinking');
    const shutdown = app.actor.shutdown({ graceMs: 20 });
    const rest = await readUntil(reader, '[DONE]');
    expect(rest).toContain('data: {"type":"abort"}\n\ndata: [DONE]\n\n');
    expect(await stalled.aborted).toMatchObject({ status: 503, code: 'draining' });
    await shutdown;
    expect(app.actor.lifecycle.inFlight).toBe(0);
  });
});
