import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor, testActorDefinition } from '../testing/create-test-actor.js';

/** The test actor with the agent's model knobs as plain settings, as a template's actor has them (its own checks loose). */
const agentKnobsDefinition = {
  ...testActorDefinition,
  settings: v.object({
    ...testActorDefinition.settings.entries,
    llm_base_url: v.optional(v.string(), ''),
    llm_model: v.optional(v.string(), ''),
  }),
};

const put = (body: unknown) => ({
  method: 'PUT',
  headers: { 'Content-Type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('PUT /settings', () => {
  it('applies, persists and reports what changed, with secrets masked', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    const response = await app.request('/settings', put({ greeting: 'Hi', api_token: 'tok-123', model: 'gpt' }));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      settings: { greeting: 'Hi', max_items: 10, api_token: '********', model: 'gpt' },
      applied: ['greeting', 'api_token'],
      restart_required: ['model'],
    });
    expect(JSON.stringify(body)).not.toContain('tok-123');
    expect(await store.loadSettingsOverrides()).toEqual({ greeting: 'Hi', api_token: 'tok-123', model: 'gpt' });
    expect(app.actor.context.settings.values.api_token).toBe('tok-123');
  });

  it('survives a restart on the same store', async () => {
    const store = new MemoryStore();
    const first = await createTestActor({ store });
    await first.request('/settings', put({ max_items: 42 }));
    const second = await createTestActor({ store });
    expect(second.actor.context.settings.values.max_items).toBe(42);
  });

  it('rejects bad values with per-field errors and changes nothing', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    const response = await app.request('/settings', put({ greeting: 'Ok', max_items: 1000, colour: 'red' }));
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.errors).toEqual([
      { pointer: '/colour', detail: 'is not a known setting' },
      { pointer: '/max_items', detail: expect.stringContaining('100') },
    ]);
    const second = await (await app.request('/settings', put({ greeting: '', max_items: 1000 }))).json();
    expect(second.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/greeting', '/max_items']);
    expect(await store.loadSettingsOverrides()).toEqual({});
    expect(app.actor.context.settings.values.greeting).toBe('Hello');
  });

  it('rejects a non-object body, malformed JSON and another media type', async () => {
    const app = await createTestActor();
    expect((await app.request('/settings', put([1, 2]))).status).toBe(422);
    expect((await app.request('/settings', put('{nope'))).status).toBe(400);
    expect((await app.request('/settings', { method: 'PUT', body: 'greeting=hi' })).status).toBe(415);
  });

  it('answers 503 and changes nothing when the database is down', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    store.failure = new Error('down');
    const response = await app.request('/settings', put({ greeting: 'Hi' }));
    expect(response.status).toBe(503);
    expect(app.actor.context.settings.values.greeting).toBe('Hello');
  });

  it('is refused with 403 on the platform path', async () => {
    const app = await createTestActor({ env: { ACTOR_PLATFORM: 'true' } });
    const response = await app.request('/settings', put({ greeting: 'Hi' }));
    expect(response.status).toBe(403);
    expect((await response.json()).code).toBe('settings_managed_by_platform');
  });

  it('keeps a consistent whole under concurrent updates', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    const updates = Array.from({ length: 20 }, (_, index) =>
      app.request('/settings', put({ max_items: index + 1, greeting: `G${index}` })),
    );
    await Promise.all(updates);
    const saved = await store.loadSettingsOverrides();
    expect(Number(String(saved.greeting).slice(1)) + 1).toBe(saved.max_items);
    expect(app.actor.context.settings.values).toMatchObject(saved);
  });
});

describe('PUT /settings of the agent knobs', () => {
  const invoke = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
  };

  it('refuses an llm_base_url the agent would refuse (422 at /llm_base_url), saves nothing, and invokes keep working', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store, definition: agentKnobsDefinition });
    for (const url of ['http://[', 'ftp://models.example/v1', 'http://']) {
      const response = await app.request('/settings', put({ llm_base_url: url, greeting: 'changed' }));
      const body = await response.json();
      expect(response.status, url).toBe(422);
      expect(body.errors, url).toEqual([{ pointer: '/llm_base_url', detail: expect.stringContaining('http(s) URL') }]);
    }
    expect(await store.loadSettingsOverrides()).toEqual({});
    expect((await app.request('/agent/invoke', invoke)).status).toBe(200);
  });

  it('saves a restart-required model server but keeps invoking the one the actor started with (the issue: the next invoke used the new URL)', async () => {
    const store = new MemoryStore();
    const definition = { ...agentKnobsDefinition, restartRequired: ['llm_base_url', 'llm_model'] };
    const app = await createTestActor({ store, definition });
    const saved = await app.request('/settings', put({ llm_base_url: 'http://127.0.0.1:9/v1', llm_model: 'remote' }));
    expect(await saved.json()).toMatchObject({
      settings: { llm_base_url: 'http://127.0.0.1:9/v1', llm_model: 'remote' },
      applied: [],
      restart_required: ['llm_base_url', 'llm_model'],
    });
    const reply = await app.request('/agent/invoke', invoke);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ model: expect.stringContaining('offline') });
    const restarted = await createTestActor({ store, definition });
    expect((await restarted.request('/agent/invoke', invoke)).status).toBe(502);
  });

  it('refuses an llm_base_url holding a user name or password, and never shows them', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store, definition: agentKnobsDefinition });
    const response = await app.request('/settings', put({ llm_base_url: 'http://alice:s3cret-pw@127.0.0.1:9/v1' }));
    const text = await response.text();
    expect(response.status).toBe(422);
    expect(JSON.parse(text).errors).toEqual([
      { pointer: '/llm_base_url', detail: expect.stringContaining('user name or password') },
    ]);
    expect(text).not.toContain('s3cret-pw');
    expect(text).not.toContain('alice');
    expect(await store.loadSettingsOverrides()).toEqual({});
  });
});

describe('GET /settings/schema', () => {
  it('serves JSON Schema 2020-12 with annotations and secrets writeOnly', async () => {
    const app = await createTestActor();
    const response = await app.request('/settings/schema');
    expect(response.status).toBe(200);
    const schema = await response.json();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.properties.api_token.writeOnly).toBe(true);
    expect(schema.properties.greeting['x-platform-section']).toBe('general');
    expect(schema.properties.max_items).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });
});

describe('GET /settings', () => {
  it('answers the values the actor runs with, secrets masked, a restart-required key as it started', async () => {
    const app = await createTestActor({ env: { GREETING: 'From env', API_TOKEN: 'tok-env' } });
    await app.request('/settings', put({ model: 'saved-later' }));
    const response = await app.request('/settings');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.settings).toMatchObject({ greeting: 'From env', max_items: 10, api_token: '********' });
    expect(body.settings.model).not.toBe('saved-later');
    expect(JSON.stringify(body)).not.toContain('tok-env');
  });
});
