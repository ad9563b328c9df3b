import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

type OpenApi = { paths: Record<string, Record<string, { operationId: string; security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> }>>; security?: unknown };

describe('GET /openapi.json', () => {
  it('describes /openapi.json and /docs themselves, open without a key (issue #16 item 20)', async () => {
    const app = await createTestActor({ env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1' } });
    const response = await app.request('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApi;
    expect(document.security).toEqual([{ apiKey: [] }]);
    const openApi = document.paths['/openapi.json']?.get;
    const docs = document.paths['/docs']?.get;
    expect(openApi?.responses[200]?.content).toHaveProperty(['application/json']);
    expect(docs?.responses[200]?.content).toHaveProperty(['text/html']);
    expect(openApi?.security).toEqual([]);
    expect(docs?.security).toEqual([]);
    expect((await app.request('/docs')).status).toBe(200);
  });

  it('describes every GET route the app serves at a fixed path', async () => {
    const app = await createTestActor();
    const document = (await (await app.request('/openapi.json')).json()) as OpenApi;
    const served = app.routes.filter((route) => route.method === 'GET' && !route.path.includes('*')).map((route) => route.path.replace(/:(\w+)/g, '{$1}'));
    for (const path of new Set(served)) expect(document.paths[path]?.get, path).toBeDefined();
  });
});
