import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, type LogRecord } from '../../src/log/logger.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { fakeOpenAIForThisFile } from './fake-openai-server.js';
import { readUiStream } from './ui-stream-reader.js';

// Issue #16 item 3: a model failure tells the API caller what happened in general terms; the
// model server's URL (credentials removed) and its own words go to the log only.

const server = await fakeOpenAIForThisFile();

const PASSWORD = 'hunter2-PASSWORD';
const API_KEY = 'sk-live-SECRETKEY123';
const UPSTREAM_TEXT = `Incorrect API key provided: Bearer ${API_KEY}`;

/** Strings no reply may contain: the credentials, the server's address and its own words. */
function leaks(text: string, address: string): string[] {
  return [PASSWORD, API_KEY, 'Incorrect API key', address, 'user:'].filter((secret) => text.includes(secret));
}

async function actorOn(baseUrl: string) {
  const sink = createMemorySink();
  const app = await createTestActor({
    env: { LLM_BASE_URL: baseUrl, LLM_MODEL: 'm', LLM_API_KEY: API_KEY, LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '2000' },
    logger: createLogger({ sink, level: 'debug' }),
  });
  return { app, logs: sink.records };
}

const post = (stream: boolean) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi', stream }),
  });

/** The whole answer as text: the JSON problem, or every frame of the stream. */
async function answer(
  app: Awaited<ReturnType<typeof actorOn>>['app'],
  stream: boolean,
): Promise<{ status: number; text: string; detail: string }> {
  const response = await app.request(post(stream));
  if (!stream) {
    const text = await response.text();
    return { status: response.status, text, detail: (JSON.parse(text) as { detail: string }).detail };
  }
  const read = await readUiStream(response.body!);
  const error = read.chunks.find((chunk) => chunk.type === 'error');
  return { status: response.status, text: read.raw, detail: error?.errorText ?? '' };
}

function logged(logs: readonly LogRecord[]): string {
  return JSON.stringify(logs);
}

describe('credentials in the model server URL', () => {
  it('refuse the start (no call could use them), the message showing the URL without them', async () => {
    const refused = await actorOn(`http://user:${PASSWORD}@127.0.0.1:9/v1`).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain('LLM_BASE_URL must not hold a user name or password');
    expect((refused as Error).message).toContain('http://127.0.0.1:9/v1');
    expect((refused as Error).message).not.toContain(PASSWORD);
  });
});

describe('model failures reach the caller in general terms only', () => {
  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'as JSON';
    it(`an unreachable server, ${how}: no URL in the reply; the log has it`, async () => {
      const { app, logs } = await actorOn('http://127.0.0.1:9/v1');
      const { status, text, detail } = await answer(app, stream);
      if (!stream) expect(status).toBe(502);
      expect(detail).toMatch(/could not be reached/);
      expect(leaks(text, '127.0.0.1:9')).toEqual([]);
      expect(logged(logs)).toContain('http://127.0.0.1:9/v1');
    });

    it(`a server that refuses the key and quotes it, ${how}: the status in general terms, its words in the log only`, async () => {
      const { app, logs } = await actorOn(server.baseUrl);
      server.reply({
        kind: 'raw',
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ error: { message: UPSTREAM_TEXT, type: 'invalid_request_error' } }),
      });
      const { status, text, detail } = await answer(app, stream);
      if (!stream) expect(status).toBe(502);
      expect(detail).toMatch(/401/);
      expect(leaks(text, new URL(server.baseUrl).host)).toEqual([]);
      expect(logged(logs)).toContain('Incorrect API key provided');
    });

    it(`a server that sends an unusable answer, ${how}: no upstream text in the reply`, async () => {
      const { app, logs } = await actorOn(server.baseUrl);
      const body = `{"choices": [ ${API_KEY}`;
      server.reply(
        stream
          ? { kind: 'stream', chunks: [body] }
          : { kind: 'raw', status: 200, contentType: 'application/json', body },
      );
      const { text, detail } = await answer(app, stream);
      expect(detail).toMatch(/model_error|could not be used/);
      expect(leaks(text, new URL(server.baseUrl).host)).toEqual([]);
      expect(logged(logs)).toContain('model_call_failed');
    });
  }
});

describe("the server's reason for an HTTP error (issue #29 item 5)", () => {
  it('is shown for a 4xx, with the key, header values and the address struck out; the log has it without the secrets', async () => {
    const sink = createMemorySink();
    const token = 'tenant-token-0123456789';
    const app = await createTestActor({
      env: {
        LLM_BASE_URL: server.baseUrl,
        LLM_MODEL: 'm',
        LLM_API_KEY: API_KEY,
        LLM_MAX_RETRIES: '0',
        LLM_HEADERS: JSON.stringify({ 'x-tenant-token': token }),
      },
      logger: createLogger({ sink, level: 'debug' }),
    });
    const host = new URL(server.baseUrl).host;
    server.reply({
      kind: 'json',
      status: 404,
      body: {
        error: { message: `model m not found for ${token} (key ${API_KEY}) at ${host}`, code: 'model_not_found' },
      },
    });
    const { status, text, detail } = await answer(app, false);
    expect(status).toBe(502);
    expect(detail).toBe(
      'The model server answered with HTTP status 404: model m not found for [redacted] (key [redacted]) at [redacted] (model_not_found)',
    );
    expect(leaks(text, host)).toEqual([]);
    const logged = JSON.stringify(sink.records);
    expect(logged).toContain(`model m not found for [redacted] (key [redacted]) at ${host}`);
    expect(logged).toContain('"upstream_code":"model_not_found"');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(API_KEY);
  });

  for (const status of [401, 403, 500, 503]) {
    it(`is not shown for a ${status}: the status in general terms, the reason in the log`, async () => {
      const { app, logs } = await actorOn(server.baseUrl);
      server.reply({ kind: 'json', status, body: { message: 'internal detail: upstream 10.1.2.3 said no' } });
      const { detail } = await answer(app, false);
      expect(detail).toBe(`The model server answered with HTTP status ${status}`);
      expect(logged(logs)).toContain(`${status} internal detail: upstream 10.1.2.3 said no`);
    });
  }
});

describe('a header value quoted by a 4xx reason, whole or in part', () => {
  it('never reaches the reply nor the log (any 8 or more characters of it)', async () => {
    const quote = fc.tuple(fc.stringMatching(/^[!-~]{8,40}$/), fc.nat(), fc.nat()).map(([value, start, length]) => {
      const from = start % (value.length - 7);
      return { value, quoted: value.slice(from, from + 8 + (length % (value.length - from - 7))) };
    });
    await fc.assert(
      fc.asyncProperty(quote, fc.boolean(), async ({ value, quoted }, stream) => {
        const sink = createMemorySink();
        const app = await createTestActor({
          env: {
            LLM_BASE_URL: server.baseUrl,
            LLM_MODEL: 'm',
            LLM_MAX_RETRIES: '0',
            LLM_HEADERS: JSON.stringify({ 'x-gateway-key': value }),
          },
          logger: createLogger({ sink }),
        });
        server.reply({ kind: 'json', status: 400, body: { error: { message: `unknown gateway key <${quoted}>` } } });
        const { text, detail } = await answer(app, stream);
        // The quote may hold the `<` around it (`!!!!!!!<`): then that is struck out too.
        expect(detail).toContain('HTTP status 400: unknown gateway key ');
        expect(text).not.toContain(quoted);
        expect(JSON.stringify(sink.records)).not.toContain(quoted);
      }),
      { numRuns: 40 },
    );
  });
});
