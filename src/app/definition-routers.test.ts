import { describe, expect, it } from 'vitest';
import { defaultActorFeatures, type ActorDefinition } from '../core/actor-definition.js';
import { statsPanel } from '../surfaces/panel/stats-panel.js';
import { createTestActor, testActorDefinition } from '../testing/create-test-actor.js';
import { createActorApp } from './create-actor-app.js';
import { silentLogger } from '../log/logger.js';

const KEY = 'mesh-key-0123456789abcdef';
const with_ = (
  features: Partial<ActorDefinition['features']>,
  declarations: Partial<ActorDefinition> = {},
): ActorDefinition => ({
  ...testActorDefinition,
  features: { ...defaultActorFeatures, ...features },
  ...declarations,
});
const build = (definition: ActorDefinition, env: Record<string, string> = {}, peerReads = {}) =>
  createActorApp({ definition, env, logger: silentLogger, peerReads });

describe('createActorApp mounts what the definition declares', () => {
  it('the panels when includePanel is on, and none when it is off', async () => {
    const on = await createTestActor({ definition: with_({ includePanel: true }, { panels: [statsPanel()] }) });
    expect((await on.request('/panel/stats/data')).status).toBe(200);
    const off = await createTestActor({ definition: with_({}, { panels: [statsPanel()] }) });
    expect((await off.request('/panel/stats/data')).status).toBe(404);
  });

  it('refuses includePanel without a declared panel', () => {
    expect(() => build(with_({ includePanel: true }))).toThrow(
      /features.includePanel is on but the definition declares no panels/,
    );
  });

  it('the declared peer reads with the handlers app.ts wires, behind MESH_KEY', async () => {
    const definition = with_({ fleetMesh: true }, { peerReads: [{ path: '/lookup/:topic', summary: 'Lookup' }] });
    const app = await createTestActor({
      definition,
      env: { MESH_KEY: KEY },
      peerReads: { '/lookup/:topic': ({ params }) => ({ topic: params.topic }) },
    });
    const read = await app.request('/api/test/lookup/news', { headers: { 'X-Mesh-Key': KEY } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ topic: 'news' });
    expect((await app.request('/api/test/lookup/news')).status).toBe(401);
    const off = await createTestActor({
      definition: with_({}, { peerReads: definition.peerReads! }),
      peerReads: { '/lookup/:topic': () => 1 },
    });
    expect((await off.request('/api/test/lookup/news', { headers: { 'X-Mesh-Key': KEY } })).status).toBe(404);
  });

  it('refuses peer reads without MESH_KEY, a declared read without handler, and a handler for no declared read', () => {
    const definition = with_({ fleetMesh: true }, { peerReads: [{ path: '/lookup/:topic' }] });
    expect(() => build(definition, {}, { '/lookup/:topic': () => 1 })).toThrow(/MESH_KEY/);
    expect(() => build(definition, { MESH_KEY: KEY })).toThrow(
      /declares \/lookup\/:topic but createActorApp\(\{ peerReads \}\) has no handler/,
    );
    expect(() => build(definition, { MESH_KEY: KEY }, { '/lookup/:topic': () => 1, '/other': () => 2 })).toThrow(
      /peerReads handles \/other/,
    );
  });

  it('the workflow proxy when integrationType is n8n, refusing without WORKFLOW_BASE_URL', async () => {
    expect(() => build(with_({ integrationType: 'n8n' }))).toThrow(/WORKFLOW_BASE_URL/);
    const app = build(with_({ integrationType: 'n8n' }), { WORKFLOW_BASE_URL: 'http://127.0.0.1:9' });
    expect(app.routes.some((route) => route.path.startsWith('/workflow'))).toBe(true);
  });

  it('the declared OAuth providers, configured from the environment', async () => {
    const definition = with_({}, { oauth: [{ provider: 'acme', title: 'Acme', scopes: ['read'] }] });
    expect(() => build(definition)).toThrow(/OAUTH_ACME_ISSUER/);
    const app = await createTestActor({
      definition,
      env: {
        OAUTH_ACME_AUTHORIZATION_ENDPOINT: 'https://id.example.com/authorize',
        OAUTH_ACME_TOKEN_ENDPOINT: 'https://id.example.com/token',
        OAUTH_ACME_CLIENT_ID: 'client-1',
      },
    });
    const started = await app.request('/oauth/authorize?provider=acme&tenant_id=t1');
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toMatch(/^https:\/\/id\.example\.com\/authorize\?.*client_id=client-1/);
    const none = await createTestActor();
    expect((await none.request('/oauth/authorize?provider=acme')).status).toBe(404);
  });
});
