import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import type { OAuthStateRecord } from './oauth-state-store.js';
import { StoreOAuthStateStore } from './store-oauth-state-store.js';

const expiresAt = Date.now() + 60_000;
const record = (overrides: Partial<OAuthStateRecord> = {}): OAuthStateRecord => ({
  provider: 'github',
  tenantId: 'acme',
  returnTo: '/panel/stats?tab=1',
  codeVerifier: 'verifier',
  redirectUri: 'https://actor.example/oauth/callback',
  expiresAt,
  ...overrides,
});

describe('StoreOAuthStateStore', () => {
  it('gives a state back once, with and without return_to', async () => {
    const states = new StoreOAuthStateStore(new MemoryStore());
    await states.put('with', record(), 0);
    await states.put('without', record({ returnTo: undefined, expiresAt: expiresAt + 1 }), 0);
    expect(await states.take('with')).toEqual(record());
    expect(await states.take('with')).toBeNull();
    const without = await states.take('without');
    expect(without).toEqual(record({ returnTo: undefined, expiresAt: expiresAt + 1 }));
    expect(without).toHaveProperty('returnTo', undefined);
    expect(await states.take('never')).toBeNull();
  });

  it('writes only the record fields, as JSON, with the expiry in its own column', async () => {
    const store = new MemoryStore();
    const smuggled = { ...record(), accessToken: 'secret-token' } as OAuthStateRecord;
    await new StoreOAuthStateStore(store).put('s1', smuggled, 0);
    const stored = await store.takeOAuthState('s1');
    expect(stored?.expiresAtMs).toBe(expiresAt);
    expect(stored?.record).not.toContain('secret-token');
    expect(Object.keys(JSON.parse(stored!.record) as object).sort()).toEqual([
      'codeVerifier',
      'provider',
      'redirectUri',
      'returnTo',
      'tenantId',
    ]);
  });

  it('reads a record that does not parse as unknown, and spends it', async () => {
    const store = new MemoryStore();
    const states = new StoreOAuthStateStore(store);
    await store.putOAuthState('not-json', '{"provider":', expiresAt);
    await store.putOAuthState('wrong-shape', JSON.stringify({ provider: 7, tenantId: 'acme' }), expiresAt);
    expect(await states.take('not-json')).toBeNull();
    expect(await states.take('wrong-shape')).toBeNull();
    expect(await store.takeOAuthState('wrong-shape')).toBeNull();
  });

  it('passes store failures and refused input on to the caller', async () => {
    const store = new MemoryStore();
    const states = new StoreOAuthStateStore(store);
    await expect(states.put('', record(), 0)).rejects.toThrow(TypeError);
    await expect(states.put('s1', record({ expiresAt: Number.NaN }), 0)).rejects.toThrow(TypeError);
    store.failure = new Error('database down');
    await expect(states.put('s1', record(), 0)).rejects.toThrow('database down');
    await expect(states.take('s1')).rejects.toThrow('database down');
  });
});
