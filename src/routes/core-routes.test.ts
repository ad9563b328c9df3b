import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractEndpoints } from '../config/emit/contract-endpoints.js';
import { CORE_CONTRACT_ENDPOINTS } from '../config/emit/core-contract-endpoints.js';
import { RECOMMENDED_ENDPOINTS, REQUIRED_ENDPOINTS } from '../config/topic-contract.js';
import { createTestActor, testActorDefinition } from '../testing/create-test-actor.js';
import type { ActorRoute } from '../route-kit/actor-route.js';
import { CORE_ROUTES, openPaths } from './core-routes.js';

const SRC = join(import.meta.dirname, '..');
const isRoute = (value: unknown): value is ActorRoute =>
  typeof value === 'object' && value !== null && 'spec' in value && typeof (value as ActorRoute).handler === 'function';

const label = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** The test actor with every definition-gated route of the table on (`expose_ag_ui`). */
const everyRouteOn = { ...testActorDefinition, features: { ...testActorDefinition.features, exposeAgUi: true } };

describe('the core route table (issue #27 item 1)', () => {
  it('lists every route a file of src/routes (or of a feature folder) exports, each once', async () => {
    const folders = [import.meta.dirname, join(SRC, 'features')].filter((folder) => existsSync(folder));
    const files = folders.flatMap((folder) =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
        .map((file) => join(folder, file)),
    );
    const listed = new Set(CORE_ROUTES);
    const missing: string[] = [];
    let exported = 0;
    for (const file of files)
      for (const [name, value] of Object.entries(await import(/* @vite-ignore */ file))) {
        if (!isRoute(value)) continue;
        exported += 1;
        if (!listed.has(value)) missing.push(`${name} (${relative(SRC, file)})`);
      }
    expect(exported).toBeGreaterThan(0);
    expect(missing, 'routes exported but missing from CORE_ROUTES in src/routes/core-routes.ts').toEqual([]);
    expect(new Set(CORE_ROUTES.map(({ spec }) => label(spec.method, spec.path))).size).toBe(CORE_ROUTES.length);
  });

  it("agrees with config.json's hand-written contract endpoints (src/config cannot import the table)", () => {
    const fromRoutes = (['required', 'recommended', 'always'] as const).flatMap((role) =>
      CORE_ROUTES.filter(({ spec }) => spec.contract === role).map(
        ({ spec }) => `${role} ${label(spec.method, spec.path)}`,
      ),
    );
    expect(
      CORE_CONTRACT_ENDPOINTS.map((endpoint) => `${endpoint.presence} ${label(endpoint.method, endpoint.path)}`),
      "CORE_CONTRACT_ENDPOINTS (src/config/emit/core-contract-endpoints.ts) differs from the routes' contract roles: " +
        'list them required, recommended, then always, each in the order of CORE_ROUTES',
    ).toEqual(fromRoutes);
  });

  it('is what the actor mounts and documents', async () => {
    const app = await createTestActor({ definition: everyRouteOn, env: { PLAYGROUND_ENABLED: 'true' } });
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const { spec } of CORE_ROUTES) {
      expect(document.paths[spec.path]?.[spec.method], label(spec.method, spec.path)).toMatchObject({
        operationId: spec.operation.operationId,
      });
      const path = spec.path.replace(/\{[^}]+\}/g, 'acme');
      const served = app.routes.some(
        (route) => route.method === spec.method.toUpperCase() && route.path === spec.path.replace(/\{(\w+)\}/g, ':$1'),
      );
      expect(served, `${label(spec.method, spec.path)} (${path}) is mounted`).toBe(true);
    }
  });

  it('lets through the API key exactly the routes it declares open', async () => {
    const app = await createTestActor({
      definition: everyRouteOn,
      env: { API_KEY_ENABLED: 'true', API_KEY: 'k-1', PLAYGROUND_ENABLED: 'true' },
    });
    const open = new Set(openPaths(CORE_ROUTES));
    expect(open).toEqual(
      new Set(['/health', '/ready', '/metrics', '/oauth/callback', '/playground', '/openapi.json', '/docs']),
    );
    for (const { spec } of CORE_ROUTES) {
      const status = (await app.request(spec.path.replace(/\{[^}]+\}/g, 'acme'), { method: spec.method.toUpperCase() }))
        .status;
      if (open.has(spec.path)) expect(status, label(spec.method, spec.path)).not.toBe(401);
      else expect(status, label(spec.method, spec.path)).toBe(401);
    }
  });

  it('caps the bodies of the routes that declare a body limit', async () => {
    const app = await createTestActor({ definition: everyRouteOn, env: { BODY_LIMIT_BYTES: '1024' } });
    const limited = CORE_ROUTES.filter(({ spec }) => spec.bodyLimit === true).map(({ spec }) =>
      label(spec.method, spec.path),
    );
    expect(limited).toEqual(['POST /agent/ag-ui', 'POST /agent/invoke', 'PUT /settings']);
    for (const { spec } of CORE_ROUTES.filter((route) => route.spec.bodyLimit === true)) {
      const response = await app.request(spec.path, {
        method: spec.method.toUpperCase(),
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'x'.repeat(4096) }),
      });
      expect(response.status, label(spec.method, spec.path)).toBe(413);
    }
  });

  it('gives each route the contract role config.json and topic contract v1.0 give it', () => {
    const emitted = contractEndpoints(testActorDefinition).map(
      (endpoint) => `${endpoint.presence} ${label(endpoint.method, endpoint.path)}`,
    );
    const declared = CORE_ROUTES.filter(({ spec }) => spec.contract !== undefined).map(
      ({ spec }) => `${spec.contract} ${label(spec.method, spec.path)}`,
    );
    expect(new Set(declared)).toEqual(new Set(emitted));
    const byRole = (role: string) =>
      CORE_ROUTES.filter(({ spec }) => spec.contract === role).map(({ spec }) => label(spec.method, spec.path));
    expect(new Set(byRole('required'))).toEqual(
      new Set(REQUIRED_ENDPOINTS.map((endpoint) => label(endpoint.method, endpoint.path))),
    );
    expect(new Set(byRole('recommended'))).toEqual(
      new Set(RECOMMENDED_ENDPOINTS.map((endpoint) => label(endpoint.method, endpoint.path))),
    );
  });
});
