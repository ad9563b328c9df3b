import { describe, expect, it } from 'vitest';
import { createActorApp, type ActorDefinition, silentLogger, statsPanel } from '../../src/index.js';
import { testActorDefinition } from '../../src/testing/index.js';
import { optionRoutes, optionRoutesText } from './index.js';

/** Every option on, two panels and two peer reads, so the list has something to get wrong. */
const everyOption: ActorDefinition = {
  ...testActorDefinition,
  features: {
    ...testActorDefinition.features,
    includePanel: true,
    fleetMesh: true,
    integrationType: 'n8n',
    exposeMcp: true,
  },
  panels: [statsPanel(), statsPanel({ slug: 'usage', title: 'Usage' })],
  peerReads: [{ path: '/lookup/:topic', summary: 'A topic' }, { path: '/forecast/:city/:day' }],
};

const MESH_KEY = 'a-mesh-key-for-the-route-list';

describe('optionRoutes: the routes an actor’s options add, read from its /openapi.json', () => {
  it('lists nothing for an actor whose options add no route', async () => {
    expect(await optionRoutes(testActorDefinition)).toEqual([]);
    expect(optionRoutesText([])).toContain('your options add none');
  });

  it('lists each panel (by its slug), the peer check and every peer read, each method of the workflow proxy and both of /mcp', async () => {
    const routes = await optionRoutes(everyOption);
    expect(routes.map((route) => `${route.method} ${route.path}`).sort()).toEqual(
      [
        'GET /panel/stats',
        'GET /panel/stats/data',
        'POST /panel/stats/action',
        'GET /panel/usage',
        'GET /panel/usage/data',
        'POST /panel/usage/action',
        'GET /api/test/_peer_check',
        'GET /api/test/lookup/{topic}',
        'GET /api/test/forecast/{city}/{day}',
        ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((method) => `${method} /workflow/{path}`),
        'POST /mcp',
        'DELETE /mcp',
      ].sort(),
    );
    expect(routes.find((route) => route.path === '/api/test/lookup/{topic}')?.summary).toBe('A topic');
    expect(routes.every((route) => route.summary.length > 0)).toBe(true);
  });

  it('lists only routes the actor answers, and that an actor without the options does not', async () => {
    const env = { DATABASE_URL: 'memory://', MESH_KEY, WORKFLOW_BASE_URL: 'http://127.0.0.1:9' };
    const handlers = { '/lookup/:topic': () => ({ ok: true }), '/forecast/:city/:day': () => ({ ok: true }) };
    const app = createActorApp({ definition: everyOption, env, peerReads: handlers, logger: silentLogger });
    const bare = createActorApp({
      definition: testActorDefinition,
      env: { DATABASE_URL: 'memory://' },
      logger: silentLogger,
    });
    await Promise.all([app.actor.start(), bare.actor.start()]);
    try {
      for (const route of await optionRoutes(everyOption)) {
        const init = {
          method: route.method,
          headers: { 'X-Mesh-Key': MESH_KEY, 'Content-Type': 'application/json' },
          ...(route.method === 'POST' ? { body: '{}' } : {}),
        };
        const path = route.path.replace(/\{[^}]+\}/g, 'news');
        const served = await app.request(path, init);
        expect([404, 405], `${route.method} ${path} → ${served.status}`).not.toContain(served.status);
        expect((await bare.request(path, init)).status, `${route.method} ${path} without the options`).toBe(404);
      }
    } finally {
      await Promise.all([app.actor.shutdown(), bare.actor.shutdown()]);
    }
  });

  it('prints one aligned line per route: method, path, summary', async () => {
    const text = optionRoutesText(
      await optionRoutes({ ...testActorDefinition, features: { ...testActorDefinition.features, exposeMcp: true } }),
    );
    expect(text.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}POST {3}\/mcp {2}MCP /),
      expect.stringMatching(/^ {2}DELETE \/mcp {2}Ends /),
    ]);
  });
});
