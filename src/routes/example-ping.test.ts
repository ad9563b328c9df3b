import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

describe('GET /example-ping', () => {
  it('answers pong without a key, and is documented as open', async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' } });
    expect(await (await app.request('/example-ping')).json()).toEqual({ pong: true });
    const document = await (await app.request('/openapi.json')).json();
    expect(document.paths['/example-ping'].get.security).toEqual([]);
  });
});
