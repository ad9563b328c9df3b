import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.js';
import { describeStoreContract, invocation } from './store-contract.js';

describeStoreContract({ name: 'memory (test double)', reachableFromOutside: false, fresh: async () => ({ store: new MemoryStore() }) });

describe('MemoryStore outage switch', () => {
  it('rejects every call while `failure` is set, and works again once cleared', async () => {
    const store = new MemoryStore();
    store.failure = new Error('database down');
    await expect(store.recordInvocations([invocation()])).rejects.toThrow('database down');
    await expect(store.readStats()).rejects.toThrow('database down');
    await expect(store.ping()).rejects.toThrow('database down');
    store.failure = null;
    await store.recordInvocations([invocation()]);
    expect((await store.readStats()).invocations).toBe(1);
  });
});
