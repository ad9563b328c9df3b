import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor } from '../testing/create-test-actor.js';
import { createOAuthFlow } from './create-oauth-flow.js';
import { MemoryOAuthStateStore } from './oauth-state-store.js';

const providers = [
  {
    provider: 'github',
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    tokenEndpoint: 'https://github.com/login/oauth/access_token',
    clientId: 'gh',
  },
];

describe('createOAuthFlow', () => {
  it('refuses bad options at setup', () => {
    expect(() => createOAuthFlow({ providers, redirectUri: '/oauth/callback' })).toThrow(/absolute/);
    expect(() => createOAuthFlow({ providers, stateTtlMs: -1 })).toThrow(/stateTtlMs/);
    expect(() => createOAuthFlow({ providers: [{ provider: 'x' }] })).toThrow(/needs an issuer/);
  });

  it('lists its providers and needs a store before handing out tokens', async () => {
    const flow = createOAuthFlow({ providers });
    expect(flow.providers).toEqual(['github']);
    await expect(flow.getAccessToken('acme', 'github')).rejects.toThrow(/bind\(app\.actor\.context\)/);
  });

  it('keeps its states in the actor store by default, and answers 503 while that store is down', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ store, oauth: createOAuthFlow({ providers }) });
    const start = await app.request('/oauth/authorize?provider=github&tenant_id=acme&return_to=/done');
    expect(start.status).toBe(302);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const stored = await store.takeOAuthState(state);
    expect(JSON.parse(stored!.record)).toMatchObject({ provider: 'github', tenantId: 'acme', returnTo: '/done' });

    store.failure = new Error('database down');
    for (const path of ['/oauth/authorize?provider=github', '/oauth/callback?code=c&state=s']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(503);
      expect((await response.json()).code).toBe('store_unavailable');
    }
  });

  it('keeps its states in an explicit stateStore instead of the actor store', async () => {
    const store = new MemoryStore();
    const stateStore = new MemoryOAuthStateStore();
    const app = await createTestActor({ store, oauth: createOAuthFlow({ providers, stateStore }) });
    const start = await app.request('/oauth/authorize?provider=github');
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    expect(stateStore.size).toBe(1);
    expect(await store.takeOAuthState(state)).toBeNull();
  });
  it('caps pending states per tenant and overall: 429 with Retry-After past it, room again once they expire', async () => {
    let clock = 1_000_000;
    const stateStore = new MemoryOAuthStateStore();
    const flow = createOAuthFlow({
      providers,
      stateStore,
      stateTtlMs: 60_000,
      maxPendingStatesPerTenant: 2,
      maxPendingStates: 3,
      now: () => clock,
    });
    const app = await createTestActor({ oauth: flow });
    const authorize = (tenant: string) => app.request(`/oauth/authorize?provider=github&tenant_id=${tenant}`);
    expect((await authorize('acme')).status).toBe(302);
    clock += 1_000;
    expect((await authorize('acme')).status).toBe(302);
    const perTenant = await authorize('acme');
    expect(perTenant.status).toBe(429);
    expect(perTenant.headers.get('content-type')).toContain('application/problem+json');
    expect(perTenant.headers.get('retry-after')).toBe('59');
    expect(await perTenant.json()).toMatchObject({ status: 429, code: 'too_many_pending_oauth_flows' });
    expect((await authorize('globex')).status).toBe(302);
    const overall = await authorize('initech');
    expect(overall.status).toBe(429);
    expect((await overall.json()).code).toBe('too_many_pending_oauth_flows');
    expect(stateStore.size).toBe(3);
    clock += 60_000;
    expect((await authorize('acme')).status).toBe(302);
    expect((await authorize('initech')).status).toBe(302);
    expect(() => createOAuthFlow({ providers, maxPendingStates: 0 })).toThrow(/maxPendingStates/);
  });
});
