import { describe, expect, it } from 'vitest';
import { createLogger, createMemorySink } from '../log/logger.js';
import { createTestActor } from '../testing/create-test-actor.js';
import { apiKeyRefusal } from './api-key-refusal.js';

const env = { API_KEY_ENABLED: 'true', API_KEY: 'old-key, new-key' };

describe('API key authentication', () => {
  it('lets the exact public paths through without a key', async () => {
    const app = await createTestActor({ env });
    for (const path of ['/health', '/ready', '/metrics', '/openapi.json', '/docs', '/metrics?x=/agent']) {
      expect((await app.request(path)).status, path).toBe(200);
    }
  });

  it('lets the OAuth callback through (its single-use state guards it), but not the start of the flow', async () => {
    const app = await createTestActor({ env });
    const callback = await app.request('/oauth/callback?code=c&state=made-up');
    expect(callback.status).toBe(400);
    expect((await callback.json()).code).toBe('invalid_state');
    expect((await app.request('/oauth/authorize?provider=github')).status).toBe(401);
    expect((await app.request('/oauth/callback/')).status).toBe(401);
  });

  it('asks for a key everywhere else, with WWW-Authenticate', async () => {
    const app = await createTestActor({ env });
    const response = await app.request('/stats');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('ApiKey header="X-API-Key"');
    expect(await response.json()).toMatchObject({ code: 'missing_api_key', status: 401 });
    const wrong = await app.request('/stats', { headers: { 'X-API-Key': 'guess' } });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('invalid_api_key');
  });

  it('accepts every key of the rotation list', async () => {
    const app = await createTestActor({ env });
    for (const key of ['old-key', 'new-key'])
      expect((await app.request('/stats', { headers: { 'X-API-Key': key } })).status).toBe(200);
  });

  it('gives no bypass to path tricks', async () => {
    const app = await createTestActor({ env });
    const invoke = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' };
    const tricks: [string, RequestInit?][] = [
      ['//agent/invoke', invoke],
      ['/health/../agent/invoke', invoke],
      ['/health/%2e%2e/agent/invoke', invoke],
      ['/health/..%2fagent/invoke', invoke],
      ['/%68ealth'],
      ['/HEALTH'],
      ['/health/'],
      ['//health'],
      ['/health;/../stats'],
      ['/metrics/../stats'],
      ['/ready%00'],
      ['/docs/x'],
    ];
    for (const [path, init] of tricks) {
      const response = await app.request(`http://actor${path}`, init);
      expect(response.status, path).toBe(401);
    }
  });

  it('adds no auth layer on the platform path, even with a key configured', async () => {
    const app = await createTestActor({ env: { ...env, ACTOR_PLATFORM: 'true' } });
    expect((await app.request('/stats')).status).toBe(200);
  });

  it('warns at start when API_KEY is set but API_KEY_ENABLED is not, and runs open as configured', async () => {
    const warnings = async (actorEnv: Record<string, string>) => {
      const sink = createMemorySink();
      await createTestActor({ env: actorEnv, logger: createLogger({ sink }) });
      return sink.records.filter((record) => record.level === 'warn').map((record) => record.event);
    };
    const sink = createMemorySink();
    const open = await createTestActor({ env: { API_KEY: 'forgotten-key' }, logger: createLogger({ sink }) });
    expect((await open.request('/stats')).status).toBe(200);
    const warning = sink.records.find((record) => record.event === 'api_key_not_enabled');
    expect(warning).toMatchObject({ level: 'warn' });
    expect(JSON.stringify(sink.records)).not.toContain('forgotten-key');
    expect(await warnings({ API_KEY: 'k', API_KEY_ENABLED: 'false' })).toContain('api_key_not_enabled');
    expect(await warnings(env)).not.toContain('api_key_not_enabled');
    expect(await warnings({})).not.toContain('api_key_not_enabled');
    expect(await warnings({ API_KEY: 'k', ACTOR_PLATFORM: 'true' })).not.toContain('api_key_not_enabled');
  });

  it('refuses an empty key list at setup', () => {
    expect(() => apiKeyRefusal({ keys: [] })).toThrow(/at least one/);
    expect(() => apiKeyRefusal({ keys: [''] })).toThrow(/at least one/);
  });
});
