import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../log/logger.js';
import { createTestActor } from '../testing/create-test-actor.js';

describe('createActorApp', () => {
  it('answers an unknown route with a 404 problem', async () => {
    const app = await createTestActor();
    const response = await app.request('/nope');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 404, code: 'not_found', title: 'Not found' });
  });

  it('does not serve the retired configuration-schema route', async () => {
    const app = await createTestActor();
    expect((await app.request('/api/actor/configuration-schema')).status).toBe(404);
  });

  it('answers a wrong method with a 405 problem and Allow', async () => {
    const app = await createTestActor();
    const response = await app.request('/agent/invoke');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ code: 'method_not_allowed' });
    const settings = await app.request('/settings', { method: 'DELETE' });
    expect(settings.status).toBe(405);
    expect(settings.headers.get('allow')).toBe('GET, HEAD, PUT');
  });

  it.for([
    ['without keys', {}],
    ['with API keys', { API_KEY_ENABLED: 'true', API_KEY: 'k1' }],
  ] as const)(
    'answers /health without a promise %s, so no middleware of every route slows the probe down',
    async ([, env]) => {
      // Any middleware mounted for every path (a 405 check, a key check) makes Hono answer through a chain of promises.
      const app = await createTestActor({ env });
      const answer = app.fetch(new Request('http://127.0.0.1:8080/health', { headers: { Host: '127.0.0.1:8080' } }));
      expect(answer).toBeInstanceOf(Response);
      expect((answer as Response).status).toBe(200);
      const refused = await app.fetch(
        new Request('http://127.0.0.1:8080/health', { method: 'DELETE', headers: { Host: '127.0.0.1:8080' } }),
      );
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, HEAD');
    },
  );

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const app = await createTestActor();
    const echoed = await app.request('/health', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await app.request('/health', { headers: { 'X-Request-Id': 'bad id<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const error = await app.request('/missing', { headers: { 'X-Request-Id': 'trace-1' } });
    expect(error.headers.get('x-request-id')).toBe('trace-1');
    expect((await error.json()).request_id).toBe('trace-1');
  });

  it('stamps X-Request-Id on plain Responses a router returns', async () => {
    const app = await createTestActor({
      routers: [
        {
          name: 'plain',
          mount: (hono) => {
            hono.get('/plain', () => new Response('plain', { headers: { 'Content-Type': 'text/plain' } }));
          },
        },
      ],
    });
    const response = await app.request('/plain', { headers: { 'X-Request-Id': 'plain-1' } });
    expect(await response.text()).toBe('plain');
    expect(response.headers.get('x-request-id')).toBe('plain-1');
    const redirect = await app.request('/oauth/authorize?provider=none');
    expect(redirect.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs an unexpected error with its request id', async () => {
    const sink = createMemorySink();
    const app = await createTestActor({
      logger: createLogger({ sink }),
      chatHandler: async () => {
        throw new Error('boom');
      },
    });
    await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'r-9' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'm' }),
    });
    expect(sink.records.find((record) => record.event === 'unhandled_error')).toMatchObject({
      request_id: 'r-9',
      error: 'boom',
    });
  });

  it('refuses to start with API_KEY_ENABLED and no key', async () => {
    await expect(createTestActor({ env: { API_KEY_ENABLED: 'true' } })).rejects.toThrow(/API_KEY/);
    await expect(createTestActor({ env: { API_KEY_ENABLED: 'maybe', API_KEY: 'k' } })).rejects.toThrow(/true or false/);
  });

  it('refuses to start with settings the environment gets wrong', async () => {
    await expect(createTestActor({ env: { MAX_ITEMS: 'lots' } })).rejects.toThrow(/MAX_ITEMS/);
  });

  it('reports starting on /ready and refuses invokes until started', async () => {
    const { createActorApp } = await import('./create-actor-app.js');
    const { testActorDefinition } = await import('../testing/create-test-actor.js');
    const { MemoryStore } = await import('../store/memory-store.js');
    const app = createActorApp({
      definition: testActorDefinition,
      env: {},
      store: new MemoryStore(),
      logger: silentLogger,
    });
    const ready = await app.request('/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', reason: 'starting' });
    expect((await app.request('/health')).status).toBe(200);
    await app.actor.start();
    expect((await app.request('/ready')).status).toBe(200);
  });

  it('describes every route in /openapi.json, with the chat request schema', async () => {
    const app = await createTestActor();
    const document = await (await app.request('/openapi.json')).json();
    expect(document.openapi).toBe('3.2.0');
    expect(Object.keys(document.paths).sort()).toEqual([
      '/',
      '/agent/invoke',
      '/agent/invoke/{chat_id}/stream',
      '/agent/runs/{id}',
      '/agent/runs/{id}/approvals/{approval_id}',
      '/agent/runs/{id}/cancel',
      '/agent/runs/{id}/stream',
      '/api/actor/metadata',
      '/api/actor/platform-config',
      '/docs',
      '/health',
      '/metrics',
      '/oauth/authorize',
      '/oauth/callback',
      '/openapi.json',
      '/ready',
      '/settings',
      '/settings/schema',
      '/stats',
      '/stats/{tenant_id}',
    ]);
    const [schema, aiSdk] = document.paths['/agent/invoke'].post.requestBody.content['application/json'].schema.oneOf;
    expect(schema.required).toEqual(['user_identifier', 'session_id', 'message']);
    expect(schema.additionalProperties).toBe(false);
    expect(aiSdk.required).toEqual(['id', 'messages']);
    expect(aiSdk.additionalProperties).toBe(false);
    const docs = await app.request('/docs');
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(await docs.text()).toContain('openapi.json');
  });
});
