import { describe, expect, it } from 'vitest';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { ActorError } from '../../core/actor-error.js';
import { createActorApp } from '../../app/create-actor-app.js';
import { createLogger, createMemorySink, silentLogger } from '../../log/logger.js';
import { MemoryStore } from '../../store/memory-store.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';
import { meshRouter, type PeerRoute } from './mesh-router.js';

const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, fleetMesh: true } };
const KEY = 'mesh-key-0123456789abcdef';
const routes: PeerRoute[] = [
  {
    path: '/items/:id',
    summary: 'One item',
    handle: ({ params, query }) => ({ id: params.id, view: query.get('view') }),
  },
  { path: '/raw', handle: () => new Response('plain', { headers: { 'Content-Type': 'text/plain' } }) },
  {
    path: '/refuse',
    handle: () => {
      throw new ActorError(409, 'not_now', 'Not now');
    },
  },
];
const withKey = (key = KEY) => ({ headers: { 'X-Mesh-Key': key } });

describe('meshRouter', () => {
  it('answers _peer_check and the peer routes with the key', async () => {
    const app = await createTestActor({
      definition,
      env: { INSTANCE_ID: 'i-1' },
      routers: [meshRouter({ meshKey: KEY, routes })],
    });
    const check = await app.request('/api/test/_peer_check', withKey());
    expect(check.status).toBe(200);
    expect(await check.json()).toEqual({
      status: 'ok',
      actor: 'test-actor',
      version: '1.2.3',
      domain: 'test',
      instance_id: 'i-1',
      phase: 'ready',
    });
    expect(await (await app.request('/api/test/items/42?view=full', withKey())).json()).toEqual({
      id: '42',
      view: 'full',
    });
    const raw = await app.request('/api/test/raw', { headers: { 'X-Mesh-Key': KEY, 'X-Request-Id': 'trace-1' } });
    expect(await raw.text()).toBe('plain');
    expect(raw.headers.get('x-request-id')).toBe('trace-1');
    expect((await app.request('/api/test/refuse', withKey())).status).toBe(409);
  });

  it('answers 401 problems for a missing or wrong key, on known and unknown paths alike', async () => {
    const sink = createMemorySink();
    const app = await createTestActor({
      definition,
      logger: createLogger({ sink }),
      routers: [meshRouter({ meshKey: KEY, routes })],
    });
    for (const path of ['/api/test/_peer_check', '/api/test/items/1', '/api/test/nothing-here', '/api/test']) {
      const missing = await app.request(path);
      expect(missing.status, path).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('MeshKey header="X-Mesh-Key"');
      expect(await missing.json()).toMatchObject({ code: 'missing_mesh_key', status: 401 });
      for (const wrong of ['nope', KEY.slice(0, -1), `${KEY}x`, KEY.toUpperCase()]) {
        const response = await app.request(path, withKey(wrong));
        expect(response.status, `${path} ${wrong}`).toBe(401);
        expect((await response.json()).code).toBe('invalid_mesh_key');
      }
    }
    expect(sink.records.filter((r) => r.event === 'mesh_key_rejected').length).toBe(20);
    expect(JSON.stringify(sink.records)).not.toContain(KEY.slice(0, -1));
  });

  it('accepts every key of a rotation list, and only GET', async () => {
    const app = await createTestActor({
      definition,
      routers: [meshRouter({ meshKey: `old-key-0123456789, ${KEY}`, routes })],
    });
    expect((await app.request('/api/test/_peer_check', withKey('old-key-0123456789'))).status).toBe(200);
    expect((await app.request('/api/test/_peer_check', withKey())).status).toBe(200);
    expect((await app.request('/api/test/_peer_check', { method: 'POST', ...withKey() })).status).toBe(405);
    expect((await app.request('/api/test/unknown', withKey())).status).toBe(404);
  });

  it('still requires the API key first when it is enabled', async () => {
    const app = await createTestActor({
      definition,
      env: { API_KEY_ENABLED: 'true', API_KEY: 'owner' },
      routers: [meshRouter({ meshKey: KEY })],
    });
    const noApiKey = await app.request('/api/test/_peer_check', withKey());
    expect(noApiKey.status).toBe(401);
    expect((await noApiKey.json()).code).toBe('missing_api_key');
    expect((await app.request('/api/test/_peer_check', { headers: { 'X-API-Key': 'owner' } })).status).toBe(401);
    expect(
      (await app.request('/api/test/_peer_check', { headers: { 'X-API-Key': 'owner', 'X-Mesh-Key': KEY } })).status,
    ).toBe(200);
  });

  it('refuses to start without a key', () => {
    for (const meshKey of [undefined, '', ' , ']) expect(() => meshRouter({ meshKey })).toThrow(/MESH_KEY is empty/);
  });

  it('refuses bad routes and domains at setup', () => {
    const handle = () => null;
    for (const path of ['items', '/items/', '/../x', '/a/./b', '/_peer_check', '/a b']) {
      expect(() => meshRouter({ meshKey: KEY, routes: [{ path, handle }] }), path).toThrow();
    }
    expect(() =>
      meshRouter({
        meshKey: KEY,
        routes: [
          { path: '/a', handle },
          { path: '/a', handle },
        ],
      }),
    ).toThrow(/twice/);
    expect(() => meshRouter({ meshKey: KEY, domain: 'actor' })).toThrow(/reserved/);
    expect(() => meshRouter({ meshKey: KEY, domain: 'Bad/Domain' })).toThrow(/must be/);
  });

  it('refuses to mount with fleet_mesh off or another domain, and warns about a short key', () => {
    const build = (options: Parameters<typeof createActorApp>[0]) => () =>
      createActorApp({ env: {}, logger: silentLogger, store: new MemoryStore(), ...options });
    expect(build({ definition: testActorDefinition, routers: [meshRouter({ meshKey: KEY })] })).toThrow(
      /fleetMesh is false/,
    );
    expect(build({ definition, routers: [meshRouter({ meshKey: KEY, domain: 'weather' })] })).toThrow(/differs/);
    const sink = createMemorySink();
    createActorApp({
      definition,
      env: {},
      logger: createLogger({ sink }),
      store: new MemoryStore(),
      routers: [meshRouter({ meshKey: 'short' })],
    });
    expect(sink.records.map((r) => r.event)).toContain('mesh_key_weak');
  });

  it('documents the peer routes as needing the mesh-key security scheme, and its 401', async () => {
    const app = await createTestActor({ definition, routers: [meshRouter({ meshKey: KEY, routes })] });
    const document = await (await app.request('/openapi.json')).json();
    expect(document.components.securitySchemes.meshKey).toMatchObject({
      type: 'apiKey',
      name: 'X-Mesh-Key',
      in: 'header',
    });
    expect(document.paths['/api/test/_peer_check'].get.security).toEqual([{ meshKey: [] }]);
    expect(document.paths['/api/test/_peer_check'].get.responses[401].description).toContain('missing_mesh_key');
    expect(document.paths['/api/test/items/{id}'].get.summary).toBe('One item');
  });
});
