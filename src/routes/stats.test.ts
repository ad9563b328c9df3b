import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor } from '../testing/create-test-actor.js';

describe('GET /stats', () => {
  it('has every documented field, zeros before the first invoke', async () => {
    const app = await createTestActor({ env: { INSTANCE_ID: 'i-1' } });
    const body = await (await app.request('/stats')).json();
    expect(body).toMatchObject({
      scope: 'instance',
      instance_id: 'i-1',
      invocations: 0,
      errors: 0,
      sessions: 0,
      users: 0,
      tenants: 0,
      input_tokens: 0,
      output_tokens: 0,
      tool_calls: 0,
      latency_ms: { total: 0, avg: 0, max: 0 },
      last_invoked_at: null,
    });
    expect(Date.parse(body.since)).not.toBeNaN();
  });

  it('answers zeros for a tenant not seen yet and 422 for a malformed id', async () => {
    const app = await createTestActor();
    expect(await (await app.request('/stats/newcomer')).json()).toMatchObject({
      scope: 'tenant',
      tenant_id: 'newcomer',
      invocations: 0,
    });
    for (const bad of ['a%20b', 'x'.repeat(129), '%F0%9F%98%80']) {
      const response = await app.request(`/stats/${bad}`);
      expect(response.status).toBe(422);
      expect((await response.json()).errors[0].pointer).toBe('/tenant_id');
    }
  });

  it('answers 503 when the database cannot be read', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store });
    store.failure = new Error('down');
    const response = await app.request('/stats');
    expect(response.status).toBe(503);
    expect((await response.json()).code).toBe('store_unavailable');
  });
});
