import { describe, expect, it } from 'vitest';
import helloActor from '../../examples/hello-actor/src/actor.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { fakeOpenAIForThisFile } from './fake-openai-server.js';

// The `llm_headers` setting every template actor declares: a secret (writeOnly, masked), checked
// before it is saved, sent on the model calls after a restart.

const server = await fakeOpenAIForThisFile();

const SECRET = 'sk-helicone-SECRET-4242';
const HEADERS = JSON.stringify({ 'Helicone-Auth': `Bearer ${SECRET}`, 'X-Title': 'Hello Actor' });

const put = (body: unknown) => ({
  method: 'PUT',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
const invoke = {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
};

async function helloActorOn(store: MemoryStore, env: Record<string, string> = {}) {
  const sink = createMemorySink();
  const app = await createTestActor({
    definition: helloActor,
    store,
    env: { LLM_BASE_URL: server.baseUrl, LLM_MODEL: 'm', LLM_MAX_RETRIES: '0', ...env },
    logger: createLogger({ sink, level: 'debug' }),
  });
  return { app, logs: sink.records };
}

describe('the llm_headers setting of a template actor', () => {
  it('is a writeOnly secret of the credentials section', async () => {
    const { app } = await helloActorOn(new MemoryStore());
    const schema = (await (await app.request('/settings/schema')).json()) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.llm_headers).toMatchObject({
      type: 'string',
      writeOnly: true,
      'x-platform-section': 'credentials',
      'x-platform-widget': 'password',
    });
  });

  it('is saved masked, restart-required, and sent on every model call after the restart', async () => {
    const store = new MemoryStore();
    const { app } = await helloActorOn(store);
    const saved = await app.request('/settings', put({ llm_headers: HEADERS }));
    const text = await saved.text();
    expect(saved.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      settings: { llm_headers: '********' },
      restart_required: ['llm_headers'],
    });
    expect(text).not.toContain(SECRET);
    expect(await (await app.request('/settings')).text()).not.toContain(SECRET);

    const { app: restarted, logs } = await helloActorOn(store);
    expect((await restarted.request('/agent/invoke', invoke)).status).toBe(200);
    expect(server.requests[0]?.headers['helicone-auth']).toBe(`Bearer ${SECRET}`);
    expect(server.requests[0]?.headers['x-title']).toBe('Hello Actor');
    expect(logs.find((record) => record.event === 'chat_model_selected')).toMatchObject({
      headers: ['Helicone-Auth', 'X-Title'],
    });
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });

  it('takes LLM_HEADERS from the environment, masked in GET /settings', async () => {
    const { app } = await helloActorOn(new MemoryStore(), { LLM_HEADERS: HEADERS });
    const shown = await (await app.request('/settings')).text();
    expect(JSON.parse(shown)).toMatchObject({ settings: { llm_headers: '********' } });
    expect(shown).not.toContain(SECRET);
    expect((await app.request('/agent/invoke', invoke)).status).toBe(200);
    expect(server.requests[0]?.headers['helicone-auth']).toBe(`Bearer ${SECRET}`);
  });

  it.each([
    ['Helicone-Auth: Bearer sk-helicone-SECRET-4242', 'must be a JSON object of header names to string values'],
    [
      JSON.stringify({ Authorization: `Bearer ${SECRET}` }),
      "may not set Authorization: the model server's key goes in LLM_API_KEY",
    ],
  ])('refuses %s with 422 at /llm_headers, never echoing the value, and saves nothing', async (value, problem) => {
    const store = new MemoryStore();
    const { app } = await helloActorOn(store);
    const response = await app.request('/settings', put({ llm_headers: value }));
    const text = await response.text();
    expect(response.status).toBe(422);
    expect(JSON.parse(text).errors).toEqual([{ pointer: '/llm_headers', detail: expect.stringContaining(problem) }]);
    expect(text).not.toContain(SECRET);
    expect(await store.loadSettingsOverrides()).toEqual({});
  });
});
