// An actor whose definition declares one OAuth provider, configured only by the environment
// (`OAUTH_MOCK_*`), runs the whole flow against oauth2-mock-server over real HTTP on loopback:
// no hand-built `createOAuthFlow`, `createActorApp` mounts it from the definition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { StartupRefusal } from '../../src/environment/startup-refusal.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { serveOnLoopback } from './loopback.js';
import { location, startMockOAuthProvider, type MockOAuthProvider } from './oauth-mock-provider.js';

const definition = {
  ...testActorDefinition,
  oauth: [{ provider: 'mock', title: 'Mock ID', scopes: ['openid', 'profile'] }],
};
const store = new MemoryStore();
let mock: MockOAuthProvider;
let actor: ServeHandle;

/** The environment that configures the declared `mock` provider at `issuer`. */
const mockEnvironment = (issuer: string) => ({
  OAUTH_MOCK_ISSUER: issuer,
  OAUTH_MOCK_CLIENT_ID: 'actorclient',
  OAUTH_MOCK_CLIENT_SECRET: 'actor-secret',
  OAUTH_MOCK_ALLOW_INSECURE: 'true',
});

const get = (url: string) => fetch(url, { redirect: 'manual' });

beforeAll(async () => {
  mock = await startMockOAuthProvider();
  const app = createActorApp({
    definition,
    env: mockEnvironment(mock.issuer),
    logger: createLogger({ sink: createMemorySink() }),
    store,
  });
  actor = await serveOnLoopback(app);
});

afterAll(async () => {
  await actor?.close();
  await mock?.stop();
});

describe('OAuth declared in the definition, configured from the environment', () => {
  it('runs authorize → provider → callback, stores the tokens for the tenant and provider, and refuses the state a second time', async () => {
    const start = await get(`${actor.url}/oauth/authorize?provider=mock&tenant_id=acme&return_to=%2Fpanel%2Fstats`);
    expect(start.status, await start.clone().text()).toBe(302);
    const target = new URL(location(start));
    expect(target.origin + target.pathname).toBe(`${mock.issuer}/authorize`);
    expect(Object.fromEntries(target.searchParams)).toMatchObject({
      client_id: 'actorclient',
      redirect_uri: `${actor.url}/oauth/callback`,
      scope: 'openid profile',
      code_challenge_method: 'S256',
    });

    const atProvider = await get(target.href);
    expect(atProvider.status).toBe(302);
    const callback = new URL(location(atProvider));
    expect(callback.origin + callback.pathname).toBe(`${actor.url}/oauth/callback`);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe(target.searchParams.get('state'));

    expect(await store.loadOAuthToken('acme', 'mock')).toBeNull();
    const done = await get(callback.href);
    expect(done.status, await done.clone().text()).toBe(302);
    expect(location(done)).toBe('/panel/stats');
    expect(mock.grants).toEqual(['authorization_code']);
    const token = await store.loadOAuthToken('acme', 'mock');
    expect(token).toMatchObject({ tenantId: 'acme', provider: 'mock', tokenType: 'bearer' });
    expect(token!.accessToken.split('.')).toHaveLength(3);

    const replay = await get(callback.href);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ status: 400, code: 'invalid_state' });
    expect(mock.grants).toEqual(['authorization_code']);
  });

  it('refuses to start when OAUTH_<P>_ALLOW_INSECURE is on for an issuer that is not loopback', () => {
    const build = () =>
      createActorApp({ definition, env: mockEnvironment('http://id.example.com'), store: new MemoryStore() });
    expect(build).toThrow(StartupRefusal);
    expect(build).toThrow(/^OAUTH_MOCK_ALLOW_INSECURE=true is for loopback providers only/);
  });
});
