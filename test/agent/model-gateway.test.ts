import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, type LogRecord } from '../../src/log/logger.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { fakeOpenAIForThisFile, textChunks } from './fake-openai-server.js';
import { portkeyGatewayForThisFile } from './portkey-gateway.js';
import { readUiStream } from './ui-stream-reader.js';

// Issue #29 item 5: an actor in front of a real gateway (Portkey's, from npm, as a child
// process) in front of an OpenAI-compatible mock. The gateway needs its routing headers
// (`LLM_HEADERS`); without them, the actor says the gateway's reason instead of "no body".

const server = await fakeOpenAIForThisFile();
const gateway = await portkeyGatewayForThisFile();

const API_KEY = 'sk-gateway-test-KEY-0042';
const PORTKEY_REASON = 'Either x-portkey-config or x-portkey-provider header is required';

async function actorThroughGateway(headers: Record<string, string> | undefined) {
  const sink = createMemorySink();
  const app = await createTestActor({
    env: {
      LLM_BASE_URL: gateway.baseUrl,
      LLM_MODEL: 'gpt-test',
      LLM_API_KEY: API_KEY,
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '5000',
      ...(headers ? { LLM_HEADERS: JSON.stringify(headers) } : {}),
    },
    logger: createLogger({ sink, level: 'debug' }),
  });
  return { app, logs: sink.records };
}

/** The headers that route a call through Portkey to the mock, as a user writes them. */
const routeToMock = () => ({ 'x-portkey-provider': 'openai', 'x-portkey-custom-host': server.baseUrl });

const invoke = (stream: boolean) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi', stream }),
  });

const failures = (logs: readonly LogRecord[]) => logs.filter((record) => record.event === 'model_call_failed');

describe('an actor behind the Portkey gateway without its headers', () => {
  it('answers 502 naming the gateway reason, and logs it (not "no body")', async () => {
    const { app, logs } = await actorThroughGateway(undefined);
    const response = await app.request(invoke(false));
    expect(response.status).toBe(502);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe('model_error');
    expect(problem.detail).toBe(`The model server answered with HTTP status 400: ${PORTKEY_REASON}`);
    const [failed] = failures(logs);
    expect(failed).toMatchObject({ level: 'warn', status: 400, error: `400 ${PORTKEY_REASON}` });
    expect(JSON.stringify(logs)).not.toContain('no body');
    expect(server.requests).toHaveLength(0);
  });

  it('ends a streamed reply with an error that names the reason', async () => {
    const { app } = await actorThroughGateway(undefined);
    const read = await readUiStream((await app.request(invoke(true))).body!);
    const error = read.chunks.find((chunk) => chunk.type === 'error');
    expect(error).toEqual({
      type: 'error',
      errorText: `model_error: The model server answered with HTTP status 400: ${PORTKEY_REASON}`,
    });
  });
});

describe('an actor behind the Portkey gateway with LLM_HEADERS', () => {
  it('reaches the model server through the gateway, as JSON', async () => {
    const { app, logs } = await actorThroughGateway(routeToMock());
    const response = await app.request(invoke(false));
    expect(response.status).toBe(200);
    const reply = (await response.json()) as { message: { content: string }; model: string };
    expect(reply.message.content).toBe('fake reply');
    const [seen] = server.requests;
    expect(seen?.path).toBe('/v1/chat/completions');
    expect(seen?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen?.body.model).toBe('gpt-test');
    expect(logs.find((record) => record.event === 'chat_model_selected')).toMatchObject({
      headers: ['x-portkey-provider', 'x-portkey-custom-host'],
    });
    expect(JSON.stringify(logs)).not.toContain(server.baseUrl.replace('/v1', ''));
  });

  it('reaches the model server through the gateway, streamed', async () => {
    const { app } = await actorThroughGateway(routeToMock());
    server.reply({ kind: 'stream', chunks: textChunks(['Through ', 'the ', 'gateway']) });
    const response = await app.request(invoke(true));
    expect(response.status).toBe(200);
    const read = await readUiStream(response.body!);
    expect(read.errors).toEqual([]);
    expect(read.text).toBe('Through the gateway');
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it("passes on the model server's reason through the gateway, with a header's secret value struck out", async () => {
    const tenantToken = 'tenant-token-SECRET-777';
    const { app, logs } = await actorThroughGateway({ ...routeToMock(), 'x-tenant-token': tenantToken });
    server.reply({
      kind: 'json',
      status: 400,
      body: {
        error: {
          message: `Unknown tenant token ${tenantToken}`,
          type: 'invalid_request_error',
          code: 'unknown_tenant',
        },
      },
    });
    const response = await app.request(invoke(false));
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text).detail).toMatch(
      /^The model server answered with HTTP status 400: .*Unknown tenant token \[redacted\]/,
    );
    expect(text).not.toContain(tenantToken);
    expect(JSON.stringify(logs)).not.toContain(tenantToken);
    expect(failures(logs)[0]?.error).toContain('Unknown tenant token [redacted]');
  });
});
