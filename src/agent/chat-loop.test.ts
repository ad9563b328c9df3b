import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ActorError } from '../core/actor-error.js';
import { ActorMetrics } from '../context/actor-metrics.js';
import { createLogger, createMemorySink } from '../log/logger.js';
import { ActorTool } from './actor-tool.js';
import type { ChatEvent } from '../invoke/chat-handler.js';
import { runChatLoop, type ChatLoopOptions } from './chat-loop.js';
import type { ActorTracer } from '../telemetry/actor-tracer.js';
import type { ChatModel, ModelRequest, ModelResponse } from './chat-model.js';

type Step = Partial<ModelResponse> | Error;

/** A ChatModel that answers from a script and remembers what it was asked. */
function scripted(steps: Step[]) {
  const requests: ModelRequest[] = [];
  const next = (request: ModelRequest): ModelResponse => {
    requests.push({ ...request, messages: [...request.messages] });
    const step = steps.shift() ?? { text: 'done' };
    if (step instanceof Error) throw step;
    return {
      text: '',
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: 2 },
      finishReason: step.toolCalls?.length ? 'tool_calls' : 'stop',
      ...step,
    };
  };
  const model: ChatModel = {
    name: 'scripted',
    generate: async (request) => next(request),
    async *stream(request) {
      const response = next(request);
      for (const word of response.text.split(/(?<= )/)) if (word) yield { type: 'text-delta', delta: word };
      yield { type: 'finish', response };
    },
  };
  return { model, requests };
}

const greet = new ActorTool({
  name: 'hello_greet',
  description: 'Greets',
  argsSchema: v.object({ name: v.pipe(v.string(), v.minLength(1)) }),
  run: ({ name }) => ({ greeting: `Hello, ${name}!` }),
});
const broken = new ActorTool({
  name: 'hello_broken',
  description: 'Always fails',
  argsSchema: v.object({}),
  runAsync: async () => {
    throw new Error('disk on fire');
  },
});
const weird = new ActorTool({
  name: 'hello_weird',
  description: 'Returns a BigInt',
  argsSchema: v.object({}),
  run: () => 10n,
});
const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });

function options(model: ChatModel, overrides: Partial<ChatLoopOptions> = {}): ChatLoopOptions {
  return {
    model,
    tools: [greet, broken, weird],
    maxToolSteps: 5,
    messages: [{ role: 'user', content: 'hi' }],
    context: {
      signal: new AbortController().signal,
      tenantId: 't',
      sessionId: 's',
      userIdentifier: 'u',
      requestId: 'r',
      settings: {},
      oauthToken: async () => 'token',
    },
    ...overrides,
  };
}

describe('runChatLoop', () => {
  it('runs the tool the model asks for, feeds the result back and returns the answer', async () => {
    const { model, requests } = scripted([
      { toolCalls: [call('c1', 'hello_greet', '{"name":"Ada"}')] },
      { text: 'Ada was greeted.' },
    ]);
    const result = await runChatLoop(options(model));
    expect(result).toMatchObject({
      content: 'Ada was greeted.',
      finishReason: 'stop',
      usage: { inputTokens: 20, outputTokens: 4 },
      model: 'scripted',
      toolCalls: [
        {
          id: 'c1',
          name: 'hello_greet',
          arguments: { name: 'Ada' },
          output: { greeting: 'Hello, Ada!' },
          status: 'ok',
        },
      ],
    });
    expect(requests[0]!.tools.map((tool) => tool.name)).toEqual(['hello_greet', 'hello_broken', 'hello_weird']);
    expect(requests[1]!.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', toolCalls: [call('c1', 'hello_greet', '{"name":"Ada"}')] },
      { role: 'tool', toolCallId: 'c1', name: 'hello_greet', content: '{"greeting":"Hello, Ada!"}' },
    ]);
    expect(result.added).toHaveLength(3);
  });

  it('feeds malformed JSON, invalid arguments, unknown tools and tool errors back to the model', async () => {
    const sink = createMemorySink();
    const { model, requests } = scripted([
      {
        toolCalls: [
          call('a', 'hello_greet', '{"name":'),
          call('b', 'hello_greet', '{"name":""}'),
          call('c', 'made_up', '{}'),
          call('d', 'hello_broken', ''),
          call('e', 'hello_weird', '{}'),
        ],
      },
      { text: 'Sorry.' },
    ]);
    const metrics = new ActorMetrics();
    const result = await runChatLoop(options(model, { metrics, logger: createLogger({ sink }) }));
    expect(result.toolCalls.map((record) => [record.id, record.status])).toEqual([
      ['a', 'error'],
      ['b', 'error'],
      ['c', 'error'],
      ['d', 'error'],
      ['e', 'error'],
    ]);
    expect(result.toolCalls[0]).toMatchObject({
      arguments: '{"name":',
      output: null,
      error: expect.stringContaining('not valid JSON'),
    });
    expect(result.toolCalls[1]!.error).toMatch(/^Invalid arguments: name: /);
    expect(result.toolCalls[2]!.error).toBe(
      'There is no tool named made_up; the tools are: hello_greet, hello_broken, hello_weird',
    );
    expect(result.toolCalls[3]!.error).toBe('disk on fire');
    expect(result.toolCalls[4]!.error).toMatch(/BigInt/);
    const fedBack = requests[1]!.messages
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.parse(message.content).error);
    expect(fedBack).toEqual(result.toolCalls.map((record) => record.error));
    expect(sink.records.filter((record) => record.event === 'tool_call_failed').map((record) => record.tool)).toEqual([
      'hello_broken',
      'hello_weird',
    ]);
    const text = await metrics.render();
    expect(text).toContain('actor_tool_calls_total{tool="hello_greet",outcome="invalid_arguments"} 2');
    expect(text).toContain('actor_tool_calls_total{tool="unknown",outcome="unknown_tool"} 1');
    expect(text).toContain('actor_tool_calls_total{tool="hello_broken",outcome="error"} 1');
    expect(text).not.toContain('made_up');
    // A model that names no provider is `_OTHER`, as the OpenTelemetry GenAI conventions say.
    expect(text).toContain(
      'gen_ai_client_token_usage_sum{gen_ai_operation_name="chat",gen_ai_provider_name="_OTHER",gen_ai_request_model="scripted",gen_ai_token_type="input"} 20',
    );
    expect(text).toContain(
      'gen_ai_client_token_usage_count{gen_ai_operation_name="chat",gen_ai_provider_name="_OTHER",gen_ai_request_model="scripted",gen_ai_token_type="output"} 2',
    );
  });

  it("gives a tool the context's OAuth tokens, tells the model an ActorError's code, and cuts handed-out tokens out of failures", async () => {
    const sink = createMemorySink();
    const github = new ActorTool({
      name: 'github_whoami',
      description: 'Calls GitHub',
      argsSchema: v.object({ connected: v.boolean() }),
      runAsync: async ({ connected }, context) => {
        if (!connected) throw new ActorError('oauth_not_connected', { detail: 'Tenant t has not connected github' });
        throw new Error(
          `GitHub refused Bearer ${await context.oauthToken('github')} (Bearer ${await context.oauthToken('github')})`,
        );
      },
    });
    const asked: string[] = [];
    const { model, requests } = scripted([
      {
        toolCalls: [
          call('n', 'github_whoami', '{"connected":false}'),
          call('l', 'github_whoami', '{"connected":true}'),
        ],
      },
      { text: 'Connect GitHub first.' },
    ]);
    const context = {
      ...options(model).context,
      oauthToken: async (provider: string) => {
        asked.push(provider);
        return 'gho_secret123';
      },
    };
    const result = await runChatLoop(options(model, { tools: [github], context, logger: createLogger({ sink }) }));
    expect(asked).toEqual(['github', 'github']);
    const fedBack = requests[1]!.messages
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.parse(message.content));
    expect(fedBack).toEqual([
      { error: 'Tenant t has not connected github', code: 'oauth_not_connected' },
      { error: 'GitHub refused Bearer [redacted] (Bearer [redacted])' },
    ]);
    expect(result.toolCalls.map((record) => record.error)).toEqual([
      'Tenant t has not connected github',
      'GitHub refused Bearer [redacted] (Bearer [redacted])',
    ]);
    expect(JSON.stringify(sink.records)).not.toContain('gho_secret123');
    expect(JSON.stringify(result)).not.toContain('gho_secret123');
  });

  it('stops running tools after maxToolSteps and asks for a text answer', async () => {
    const again = { toolCalls: [call('x', 'hello_greet', '{"name":"Bo"}')] };
    const { model, requests } = scripted([again, again, { text: 'Enough.' }]);
    const result = await runChatLoop(options(model, { maxToolSteps: 2 }));
    expect(requests.map((request) => request.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(result).toMatchObject({ content: 'Enough.', finishReason: 'stop' });
    expect(result.toolCalls).toHaveLength(2);
  });

  it('reports tool_calls when the model insists after the last step, without running them', async () => {
    const again = { toolCalls: [call('x', 'hello_greet', '{"name":"Bo"}')] };
    const { model } = scripted([again, again]);
    const result = await runChatLoop(options(model, { maxToolSteps: 1 }));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toHaveLength(1);
  });

  it('streams text, tool calls and results as events when asked', async () => {
    const events: ChatEvent[] = [];
    const { model } = scripted([
      { text: 'Let me check. ', toolCalls: [call('c1', 'hello_greet', '{"name":"Ada"}')] },
      { text: 'All done.' },
    ]);
    const result = await runChatLoop(options(model, { onEvent: (event) => events.push(event) }));
    expect(events.map((event) => event.type)).toEqual([
      'step-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'tool-call',
      'tool-result',
      'step-start',
      'text-delta',
      'text-delta',
    ]);
    expect(events[4]).toEqual({
      type: 'tool-call',
      id: 'c1',
      name: 'hello_greet',
      arguments: { name: 'Ada' },
      readOnly: false,
    });
    expect(result.content).toBe('Let me check. \n\nAll done.');
  });

  it('turns a model crash into 502 model_error and passes a model problem through', async () => {
    const crash = await runChatLoop(options(scripted([new TypeError('bad state')]).model)).catch(
      (error: unknown) => error,
    );
    expect(crash).toMatchObject({ status: 502, code: 'model_error', detail: 'The model failed: bad state' });
    const timeout = new ActorError(504, 'model_timeout', 'slow');
    expect(await runChatLoop(options(scripted([timeout]).model)).catch((error: unknown) => error)).toBe(timeout);
  });

  it('rejects with the abort reason once aborted, not with a model error', async () => {
    const controller = new AbortController();
    const reason = new Error('client left');
    const model: ChatModel = {
      name: 'm',
      generate: async () => {
        controller.abort(reason);
        throw new Error('fetch failed');
      },
      stream: () => (async function* () {})(),
    };
    const context = { ...options(model).context, signal: controller.signal };
    await expect(runChatLoop(options(model, { context }))).rejects.toBe(reason);
  });

  it('rejects a stream that ends without a finish with 502', async () => {
    const model: ChatModel = {
      name: 'm',
      generate: async () => ({}) as ModelResponse,
      stream: () => (async function* () {})(),
    };
    await expect(runChatLoop(options(model, { onEvent: () => {} }))).rejects.toMatchObject({ code: 'model_error' });
  });

  it('holds a call whose tool needs approval (a rule that throws asks too, logged), runs the others of its step, and stops there; decided calls run or are denied first', async () => {
    const ran: string[] = [];
    const guarded = new ActorTool({
      name: 'bank_pay',
      description: 'Pays',
      argsSchema: v.object({ amount: v.number() }),
      needsApproval: ({ amount }) => {
        if (amount < 0) throw new Error('no rule for refunds');
        return amount > 100;
      },
      run: ({ amount }) => {
        ran.push(`pay ${amount}`);
        return { paid: amount };
      },
    });
    const { model, requests } = scripted([
      {
        toolCalls: [
          call('c1', 'bank_pay', '{"amount":5}'),
          call('c2', 'bank_pay', '{"amount":500}'),
          call('c3', 'bank_pay', '{"amount":-1}'),
        ],
      },
    ]);
    const sink = createMemorySink();
    const events: ChatEvent[] = [];
    const paused = await runChatLoop(
      options(model, { tools: [guarded], logger: createLogger({ sink }), onEvent: (event) => events.push(event) }),
    );
    expect(ran).toEqual(['pay 5']);
    expect(paused.finishReason).toBe('tool_calls');
    expect(paused.pending?.map((pending) => [pending.toolCallId, pending.arguments])).toEqual([
      ['c2', { amount: 500 }],
      ['c3', { amount: -1 }],
    ]);
    expect(events.filter((event) => event.type === 'tool-approval-request')).toHaveLength(2);
    expect(sink.records.find((record) => record.event === 'tool_approval_rule_failed')).toMatchObject({
      tool: 'bank_pay',
    });
    expect(requests).toHaveLength(1);

    const [big, refund] = paused.pending ?? [];
    const next = scripted([{ text: 'Paid 500; the refund was refused.' }]);
    const resumed = await runChatLoop(
      options(next.model, {
        tools: [guarded],
        messages: [{ role: 'user', content: 'hi' }, ...paused.added],
        decided: [
          { ...big!, approved: true },
          { ...refund!, approved: false, reason: 'refunds go through finance' },
        ],
      }),
    );
    expect(ran).toEqual(['pay 5', 'pay 500']);
    expect(resumed.content).toBe('Paid 500; the refund was refused.');
    expect(next.requests[0]!.messages.slice(-2)).toEqual([
      { role: 'tool', toolCallId: 'c2', name: 'bank_pay', content: '{"paid":500}' },
      {
        role: 'tool',
        toolCallId: 'c3',
        name: 'bank_pay',
        content: JSON.stringify({
          error: 'A person denied this tool call: refunds go through finance',
          code: 'approval_denied',
        }),
      },
    ]);
  });

  it('marks the execute_tool span of a call a person decided on with actorkit.tool.approval, a denied one failed', async () => {
    const spans: { name: string; attributes: Record<string, unknown>; failed?: string }[] = [];
    const tracer: ActorTracer = {
      enabled: true,
      traceHeaders: () => ({}),
      startSpan(name, spanOptions) {
        const span: (typeof spans)[number] = { name, attributes: { ...spanOptions.attributes } };
        spans.push(span);
        return {
          setAttributes: (attributes) => Object.assign(span.attributes, attributes),
          fail: (type) => {
            span.failed = type;
          },
          run: (work) => work(),
          end() {},
        };
      },
    };
    const { model } = scripted([{ text: 'ok' }]);
    const decided = (id: string, approved: boolean) => ({
      approvalId: `apr_${id}`,
      toolCallId: id,
      name: 'hello_greet',
      arguments: { name: 'Ada' },
      approved,
    });
    await runChatLoop(options(model, { tracer, decided: [decided('d1', true), decided('d2', false)] }));
    const toolSpans = spans.filter((span) => span.name === 'execute_tool hello_greet');
    expect(toolSpans.map((span) => [span.attributes['actorkit.tool.approval'], span.failed])).toEqual([
      ['approved', undefined],
      ['denied', 'denied'],
    ]);
  });
});
