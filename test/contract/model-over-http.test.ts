import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, type FakeOpenAIServer, startFakeOpenAI, textChunks } from '../agent/fake-openai-server.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitForLogEvent, waitUntilReady } from './spawn-actor.js';

// The example actor calling an OpenAI-compatible server over real HTTP on loopback, under every
// runtime: each takes its own transport for a whole answer (node:http on Node, fetch on Bun and
// Deno) and the openai SDK for a stream, and must behave the same.
const API_KEY = 'sk-runtime-secret-0123456789';

for (const runtime of RUNTIMES_UNDER_TEST) {
  describe(`the model over HTTP on ${runtime.name}`, () => {
    let server: FakeOpenAIServer;
    let actor: SpawnedActor;
    let turn = 0;

    beforeAll(async () => {
      checkRuntime(runtime);
      server = await startFakeOpenAI();
      actor = await spawnActor(runtime, {
        LLM_BASE_URL: server.baseUrl,
        LLM_MODEL: 'fake-model',
        LLM_API_KEY: API_KEY,
        LLM_HEADERS: '{"X-Gateway-Route": "runtime-test"}',
        LLM_TIMEOUT_MS: '1500',
        LLM_MAX_RETRIES: '1',
      });
      await waitUntilReady(actor);
    }, 60_000);

    const invoke = async (extra: { stream?: boolean; message?: string } = {}) => {
      turn += 1;
      server.requests.length = 0;
      const response = await fetch(`${actor.baseUrl}/agent/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          user_identifier: 'runtime-user',
          session_id: `${runtime.name}-${turn}`,
          message: extra.message ?? 'hello',
          ...(extra.stream ? { stream: true } : {}),
        }),
      });
      return { status: response.status, text: await response.text() };
    };

    it(`takes ${runtime.name.startsWith('node') ? 'node:http' : 'fetch'} for a whole answer, and says so when it picks the model`, async () => {
      server.reply({ kind: 'json', body: completion('first') });
      expect((await invoke()).status).toBe(200);
      const selected = await waitForLogEvent(actor, 'chat_model_selected');
      expect(selected).toMatchObject({
        provider: 'openai-compatible',
        model: 'fake-model',
        transport: runtime.name.startsWith('node') ? 'node:http' : 'fetch',
      });
    });

    afterAll(async () => {
      await actor?.dispose();
      await server?.close();
    });

    it('answers from a whole JSON answer, sending the key, the configured header and the conversation', async () => {
      server.reply({ kind: 'json', body: completion('Hi from the fake server') });
      const long = 'a long message é '.repeat(1_800);
      const answer = await invoke({ message: long });
      expect(answer.status, answer.text).toBe(200);
      expect(JSON.parse(answer.text).message.content).toBe('Hi from the fake server');
      const [seen] = server.requests;
      expect(seen!.path).toBe('/v1/chat/completions');
      expect(seen!.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(seen!.headers['x-gateway-route']).toBe('runtime-test');
      expect(seen!.body.stream).toBe(false);
      expect(seen!.body.messages.at(-1)).toEqual({ role: 'user', content: long });
    });

    it('streams an SSE answer, and uses a JSON answer to a streamed call', async () => {
      server.reply({ kind: 'stream', chunks: textChunks(['Hel', 'lo']) });
      const streamed = await invoke({ stream: true });
      expect(streamed.status).toBe(200);
      expect(streamed.text).toContain('"delta":"Hel"');
      expect(streamed.text).toContain('"delta":"lo"');
      server.reply({ kind: 'json', body: completion('Whole, though asked to stream') });
      expect((await invoke({ stream: true })).text).toContain('Whole, though asked to stream');
    });

    it('retries a 503 and answers; shows the reason of a 4xx, never of a 5xx nor of a refused key', async () => {
      server.reply(
        { kind: 'json', status: 503, body: { error: { message: 'busy' } }, headers: { 'retry-after-ms': '1' } },
        { kind: 'json', body: completion('second try') },
      );
      const retried = await invoke();
      expect(retried.status, retried.text).toBe(200);
      expect(server.requests).toHaveLength(2);

      server.reply({ kind: 'json', status: 404, body: { error: { message: 'model fake-model not found' } } });
      const notFound = await invoke();
      expect(notFound.status).toBe(502);
      expect(JSON.parse(notFound.text).detail).toContain('model fake-model not found');

      server.reply(
        { kind: 'json', status: 500, body: { error: { message: 'stack at 10.0.0.7' } } },
        { kind: 'json', status: 500, body: { error: { message: 'stack at 10.0.0.7' } } },
      );
      const internal = await invoke();
      expect(internal.status).toBe(502);
      expect(internal.text).not.toContain('10.0.0.7');

      server.reply({
        kind: 'json',
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${API_KEY}` } },
      });
      const refused = await invoke();
      expect(refused.status).toBe(502);
      expect(refused.text).not.toContain('sk-runtime');
      expect(actor.output()).not.toContain(API_KEY);
    });

    it('turns a server that never answers into 504 model_timeout', async () => {
      server.reply({ kind: 'hang' });
      const answer = await invoke();
      expect(answer.status, answer.text).toBe(504);
      expect(JSON.parse(answer.text).code).toBe('model_timeout');
    });
  });
}
