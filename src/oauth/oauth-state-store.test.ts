import { describe, expect, it } from 'vitest';
import { MemoryOAuthStateStore, type OAuthStateRecord } from './oauth-state-store.js';

const record = (expiresAt: number): OAuthStateRecord => ({
  provider: 'p',
  tenantId: 't',
  returnTo: undefined,
  codeVerifier: 'v',
  redirectUri: 'https://a/cb',
  expiresAt,
});

describe('MemoryOAuthStateStore', () => {
  it('gives a state back once', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('s1', record(100), 0);
    expect(await store.take('s1')).toEqual(record(100));
    expect(await store.take('s1')).toBeNull();
    expect(await store.take('never')).toBeNull();
  });

  it('sweeps expired states when a new one arrives', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('old', record(10), 0);
    await store.put('young', record(50), 5);
    await store.put('new', record(70), 20);
    expect(store.size).toBe(2);
    expect(await store.take('old')).toBeNull();
  });

  it('drops the oldest state past its bound', async () => {
    const store = new MemoryOAuthStateStore({ maxEntries: 2 });
    for (const state of ['a', 'b', 'c']) await store.put(state, record(1_000), 0);
    expect(store.size).toBe(2);
    expect(await store.take('a')).toBeNull();
    expect(await store.take('c')).not.toBeNull();
    expect(() => new MemoryOAuthStateStore({ maxEntries: 0 })).toThrow(/positive/);
  });
});
