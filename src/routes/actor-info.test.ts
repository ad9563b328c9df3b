import { describe, expect, it, vi } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

describe('GET /api/actor/metadata and /api/actor/platform-config', () => {
  it('serves the card with capabilities from the template options', async () => {
    const app = await createTestActor();
    expect(await (await app.request('/api/actor/metadata')).json()).toEqual({
      name: 'Test Actor',
      slug: 'test-actor',
      version: '1.2.3',
      description: 'An actor for tests',
      domain: 'test',
      tags: ['test'],
      icon: null,
      capabilities: { streaming: true, tools: true, panel: false, fleet_mesh: false, workflow: false },
    });
  });

  it('serves the baked configuration with an ETag and answers 304 to If-None-Match', async () => {
    const config = { schema_version: '1.0', actor: { slug: 'test-actor' } };
    const app = await createTestActor({ platformConfig: config });
    const response = await app.request('/api/actor/platform-config');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(config);
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await app.request('/api/actor/platform-config', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await app.request('/api/actor/platform-config', { headers: { 'If-None-Match': '"something-else"' } });
    expect(other.status).toBe(200);
  });

  it('hashes the configuration for its ETag on the first request, not at start', async () => {
    const digest = vi.spyOn(crypto.subtle, 'digest');
    try {
      const app = await createTestActor({ platformConfig: { schema_version: '1.0', actor: { slug: 'test-actor' } } });
      expect(digest).not.toHaveBeenCalled();
      const first = await app.request('/api/actor/platform-config');
      const second = await app.request('/api/actor/platform-config');
      expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(digest).toHaveBeenCalledTimes(1);
    } finally {
      digest.mockRestore();
    }
  });

  it('answers a 404 problem when no configuration was baked', async () => {
    const app = await createTestActor();
    const response = await app.request('/api/actor/platform-config');
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('platform_config_missing');
  });
});

describe('GET /oauth/*', () => {
  it('answers 404 for an unknown provider and 400 for an unknown state', async () => {
    const app = await createTestActor();
    const authorize = await app.request('/oauth/authorize?provider=github&tenant_id=t&return_to=/done');
    expect(authorize.status).toBe(404);
    expect((await authorize.json()).code).toBe('unknown_provider');
    const callback = await app.request('/oauth/callback?code=c&state=s');
    expect(callback.status).toBe(400);
    expect((await callback.json()).code).toBe('invalid_state');
  });
});
