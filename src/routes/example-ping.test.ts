import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

describe('GET /ping (an example route)', () => {
  it('is mounted, documented and behind the API key, from its file alone', async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' } });
    expect((await app.request('/ping')).status).toBe(401);
    const response = await app.request('/ping', { headers: { 'X-API-Key': 'k-1' } });
    expect(await response.json()).toEqual({ pong: true });
    const document = (await (await app.request('/openapi.json', { headers: { 'X-API-Key': 'k-1' } })).json()) as { paths: Record<string, unknown> };
    expect(document.paths['/ping']).toMatchObject({ get: { operationId: 'ping', security: [{ apiKey: [] }] } });
  });
});
