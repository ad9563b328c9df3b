import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, startFakeOpenAI, type FakeOpenAIServer } from '../agent/fake-openai-server.js';
import { RUNTIMES_UNDER_TEST, type RuntimeUnderTest } from '../contract/runtimes-under-test.js';
import { spawnActor, waitUntilReady, within, type SpawnedActor } from '../contract/spawn-actor.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const node = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node-system')!;

/** The caller's trace: the actor's server span must continue it. */
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const ERROR = 2;

const traceparentOf = (header: string | string[] | undefined) =>
  /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(header ?? ''));

/** Runs the built example actor with traces to `receiver` and a model at `model`, sends `send`, stops the actor (which exports what it holds). */
async function traceOneRun(
  receiver: OtlpReceiver,
  model: FakeOpenAIServer,
  env: Record<string, string>,
  send: (actor: SpawnedActor) => Promise<void>,
  runtime: RuntimeUnderTest = node,
): Promise<SpawnedActor> {
  const actor = await spawnActor(runtime, {
    LLM_MODEL: 'fake',
    LLM_BASE_URL: model.baseUrl,
    LLM_MAX_RETRIES: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    ...env,
  });
  try {
    await waitUntilReady(actor);
    await send(actor);
    actor.child.kill('SIGTERM');
    const exit = await within(actor.exited, 20_000, 'actor exit after SIGTERM');
    expect(exit.code, actor.output()).toBe(0);
    return actor;
  } finally {
    await actor.dispose();
  }
}

describe('OpenTelemetry traces of a turn, exported over OTLP/HTTP to a loopback receiver', () => {
  let receiver: OtlpReceiver;
  let model: FakeOpenAIServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    model = await startFakeOpenAI();
  });
  afterAll(async () => {
    await receiver?.close();
    await model?.close();
  });

  it.each(RUNTIMES_UNDER_TEST.map((runtime) => [runtime.name, runtime] as const))(
    'on %s, one turn with a tool call: the server span around invoke_agent around chat, execute_tool, chat; traceparent sent to the model server',
    async (_name, runtime) => {
      model.requests.length = 0;
      receiver.spans.length = 0;
      model.reply(
        {
          kind: 'json',
          body: completion(null, {
            toolCalls: [{ id: 'call_tides', name: 'hello_lookup', arguments: '{"topic":"tides"}' }],
            usage: [11, 5],
          }),
        },
        { kind: 'json', body: completion('Tides come twice a day.', { usage: [20, 7] }) },
      );
      const actor = await traceOneRun(
        receiver,
        model,
        { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        async (running) => {
          const health = await fetch(`${running.baseUrl}/health`);
          expect(health.status).toBe(200);
          const response = await fetch(`${running.baseUrl}/agent/invoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', traceparent: `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01` },
            body: JSON.stringify({
              user_identifier: 'u1',
              session_id: 'sess-otel-1',
              message: 'What about the tides?',
            }),
          });
          const reply = (await response.json()) as { tool_calls: { name: string; status: string }[] };
          expect(response.status, JSON.stringify(reply)).toBe(200);
          expect(reply.tool_calls).toMatchObject([{ name: 'hello_lookup', status: 'ok' }]);
        },
        runtime,
      );
      expect(actor.logs.find((line) => line.event === 'tracer_started')).toMatchObject({
        protocol: 'http/json',
        service_name: 'hello-actor',
        url: `${receiver.endpoint}/v1/traces`,
      });
      expect(
        receiver.exports.every((sent) => sent.path === '/v1/traces' && sent.contentType.startsWith('application/json')),
      ).toBe(true);

      const spans = receiver.spans;
      const named = (name: string) => spans.filter((span) => span.name === name);
      expect(spans.map((span) => span.name).sort()).toEqual([
        'POST /agent/invoke',
        'chat fake',
        'chat fake',
        'execute_tool hello_lookup',
        'invoke_agent hello-actor',
      ]);
      // One trace: the caller's.
      expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE_ID]));
      expect(spans[0]!.resource).toMatchObject({
        'service.name': 'hello-actor',
        'service.version': expect.any(String),
      });

      const server = named('POST /agent/invoke')[0]!;
      expect(server).toMatchObject({ kind: SERVER, parentSpanId: CALLER_SPAN_ID });
      expect(server.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/agent/invoke',
        'url.path': '/agent/invoke',
        'http.response.status_code': 200,
      });

      // What the turn's and each model call's spans say of the model and the conversation.
      const modelAttributes = {
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'fake',
        'gen_ai.response.model': 'fake-model-1',
        'gen_ai.conversation.id': 'sess-otel-1',
      };
      const agent = named('invoke_agent hello-actor')[0]!;
      expect(agent).toMatchObject({ kind: INTERNAL, parentSpanId: server.spanId });
      expect(agent.attributes).toMatchObject({
        ...modelAttributes,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'hello-actor',
        'gen_ai.usage.input_tokens': 31,
        'gen_ai.usage.output_tokens': 12,
      });

      const chats = named('chat fake');
      for (const chat of chats) {
        expect(chat).toMatchObject({ kind: CLIENT, parentSpanId: agent.spanId });
        expect(chat.attributes).toMatchObject({ ...modelAttributes, 'gen_ai.operation.name': 'chat' });
      }
      expect(
        chats
          .map((chat) => [chat.attributes['gen_ai.usage.input_tokens'], chat.attributes['gen_ai.usage.output_tokens']])
          .sort(),
      ).toEqual([
        [11, 5],
        [20, 7],
      ]);

      const tool = named('execute_tool hello_lookup')[0]!;
      expect(tool).toMatchObject({ kind: INTERNAL, parentSpanId: agent.spanId, statusCode: 0 });
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'hello_lookup',
        'gen_ai.tool.call.id': 'call_tides',
        'gen_ai.conversation.id': 'sess-otel-1',
      });

      // The model server got each call's own chat span as its parent, in the caller's trace.
      expect(model.requests).toHaveLength(2);
      const sentParents = model.requests.map((request) => traceparentOf(request.headers.traceparent));
      for (const sent of sentParents)
        expect(sent?.[1], JSON.stringify(model.requests.map((request) => request.headers))).toBe(CALLER_TRACE_ID);
      expect(sentParents.map((sent) => sent?.[2]).sort()).toEqual(chats.map((chat) => chat.spanId).sort());
    },
  );

  it('a failed model call: the chat, invoke_agent and server spans are errors with error.type', async () => {
    model.requests.length = 0;
    receiver.spans.length = 0;
    model.reply({ kind: 'json', status: 500, body: { error: { message: 'boom' } } });
    await traceOneRun(receiver, model, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, async (running) => {
      const response = await fetch(`${running.baseUrl}/agent/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u1', session_id: 'sess-otel-2', message: 'hi' }),
      });
      expect(response.status).toBe(502);
    });
    const byName = (name: string): ReceivedSpan => receiver.spans.find((span) => span.name === name)!;
    expect(byName('chat fake')).toMatchObject({ statusCode: ERROR, attributes: { 'error.type': 'model_error' } });
    expect(byName('invoke_agent hello-actor')).toMatchObject({
      statusCode: ERROR,
      attributes: { 'error.type': 'model_error' },
    });
    expect(byName('POST /agent/invoke')).toMatchObject({
      statusCode: ERROR,
      parentSpanId: undefined,
      attributes: { 'http.response.status_code': 502, 'error.type': '502' },
    });
  });

  it('exports OTLP protobuf by default', async () => {
    receiver.exports.length = 0;
    await traceOneRun(receiver, model, {}, async (running) => {
      await fetch(`${running.baseUrl}/agent/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_identifier: 'u1', session_id: 's', message: 'hi' }),
      });
    });
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(
      receiver.exports.every(
        (sent) => sent.path === '/v1/traces' && sent.contentType === 'application/x-protobuf' && sent.bytes > 0,
      ),
    ).toBe(true);
  });
});
