import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActorApp, type ActorApp } from '../../src/app/create-actor-app.js';
import { defaultActorFeatures } from '../../src/core/actor-definition.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { workflowProxyRouter } from '../../src/surfaces/workflow/index.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { startHttpMcpServer } from '../agent/fixtures/http-mcp-server.js';
import { listenOnLoopback, type LoopbackServer } from '../surfaces/loopback.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, integrationType: 'n8n' as const } };
const spanIdOf = (traceparent: string | undefined) =>
  /^00-[0-9a-f]{32}-([0-9a-f]{16})-0[01]$/.exec(traceparent ?? '')?.[1];

describe('traceparent on the requests a traced actor makes: MCP servers and the workflow proxy', () => {
  let receiver: OtlpReceiver;
  let mcp: Awaited<ReturnType<typeof startHttpMcpServer>>;
  let workflow: LoopbackServer;
  const workflowTraceparents: (string | undefined)[] = [];
  const sink = createMemorySink();
  let app: ActorApp;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    mcp = await startHttpMcpServer();
    workflow = await listenOnLoopback((request, response) => {
      workflowTraceparents.push(
        typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined,
      );
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    app = createActorApp({
      definition,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        MCP_SERVERS: JSON.stringify({ docs: { url: mcp.url } }),
      },
      logger: createLogger({ sink, level: 'info' }),
      store: new MemoryStore(),
      routers: [workflowProxyRouter({ baseUrl: workflow.url })],
    });
    await app.actor.start();
  });
  afterAll(async () => {
    await app?.actor.shutdown();
    await Promise.all([receiver?.close(), mcp?.close(), workflow?.close()]);
  });

  it('sends the execute_tool span to the MCP server and the server span to the workflow tool, in one exported trace each', async () => {
    const invoke = await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        user_identifier: 'u',
        session_id: 'sess-mcp',
        message: 'use tool docs_search_docs with {"topic": "install"}',
      }),
    });
    expect(invoke.status).toBe(200);
    expect(((await invoke.json()) as { tool_calls: unknown[] }).tool_calls).toMatchObject([
      { name: 'docs_search_docs', status: 'ok', output: 'Run npm install actorkit.' },
    ]);
    const proxied = await app.request('/workflow/webhook/x');
    expect(proxied.status).toBe(200);
    const streamed = await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 'sess-stream', message: 'hi' }),
    });
    expect(await streamed.text()).toContain('data: [DONE]');
    await app.actor.shutdown();

    // A streamed answer: the server span lasts until the stream has ended, around the turn.
    const streamTurn = receiver.spans.find(
      (candidate) =>
        candidate.name === 'invoke_agent test-actor' &&
        candidate.attributes['gen_ai.conversation.id'] === 'sess-stream',
    );
    const streamServer = receiver.spans.find((candidate) => candidate.spanId === streamTurn?.parentSpanId);
    expect(streamServer).toMatchObject({ name: 'POST /agent/invoke', kind: 2 });
    expect(streamServer!.endNanos >= streamTurn!.endNanos).toBe(true);

    const span = (name: string) => receiver.spans.find((candidate) => candidate.name === name);
    const tool = span('execute_tool docs_search_docs');
    expect(tool?.attributes).toMatchObject({
      'gen_ai.tool.name': 'docs_search_docs',
      'gen_ai.conversation.id': 'sess-mcp',
    });
    expect(span('invoke_agent test-actor')?.attributes).toMatchObject({
      'gen_ai.provider.name': 'offline',
      'gen_ai.request.model': 'offline',
    });
    // Connecting and listing at start ran outside any span: no traceparent. The tool call carried its span's.
    expect(
      mcp.seen
        .filter((message) => message.method === 'tools/list')
        .every((message) => message.traceparent === undefined),
    ).toBe(true);
    const call = mcp.seen.find((message) => message.method === 'tools/call');
    expect(spanIdOf(call?.traceparent)).toBe(tool?.spanId);
    expect(call?.traceparent).toContain(tool?.traceId);

    const proxySpan = span('GET /workflow/*');
    expect(proxySpan?.attributes).toMatchObject({ 'http.route': '/workflow/*', 'http.response.status_code': 200 });
    expect(workflowTraceparents).toHaveLength(1);
    expect(spanIdOf(workflowTraceparents[0])).toBe(proxySpan?.spanId);
  });
});
