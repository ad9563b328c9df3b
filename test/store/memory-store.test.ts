import { describe, expect, it } from 'vitest';
// The contract as a new backend runs it: one import of `actorkit/testing`.
import { MemoryStore } from 'actorkit';
import { describeStoreContract, invocation } from 'actorkit/testing';

describeStoreContract(async function memoryStore() {
  return new MemoryStore();
});

describe('MemoryStore outage switch', () => {
  it('rejects every call while `failure` is set, and works again once cleared', async () => {
    const store = new MemoryStore();
    store.failure = new Error('database down');
    await expect(store.saveTurns([invocation()])).rejects.toThrow('database down');
    await expect(store.readStats()).rejects.toThrow('database down');
    await expect(store.ping()).rejects.toThrow('database down');
    store.failure = null;
    await store.saveTurns([invocation()]);
    expect((await store.readStats()).invocations).toBe(1);
  });
});
