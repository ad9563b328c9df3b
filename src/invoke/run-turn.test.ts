import { describe, expect, it } from 'vitest';
import type { ChatInput } from './chat-handler.js';
import { MemoryStore } from '../store/memory-store.js';
import type { Store } from '../store/store.js';
import { createTestActor } from '../testing/create-test-actor.js';

/** A store that counts every call by method name. */
function countingStore(): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const inner = new MemoryStore();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

const invoke = (message: string, headers: Record<string, string> = {}) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ user_identifier: 'u-1', session_id: 'owned', message }),
  });

describe('a turn owns its session', () => {
  it("reads the session's history once and writes the turn once; the agent never touches the store", async () => {
    const { store, calls } = countingStore();
    const app = await createTestActor({ store });
    expect((await app.request(invoke('first'))).status).toBe(200);
    calls.clear();
    const response = await app.request(invoke('second'));
    expect(response.status).toBe(200);
    expect(Object.fromEntries(calls)).toEqual({ loadHistory: 1, recordInvocations: 1 });
    expect((await store.loadHistory('default', 'owned', 10)).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('commits the reply of an Idempotency-Key with the turn, in the same write, and replays it', async () => {
    const { store, calls } = countingStore();
    const app = await createTestActor({ store });
    expect((await app.request(invoke('warm-up'))).status).toBe(200);
    calls.clear();
    const first = await app.request(invoke('once', { 'Idempotency-Key': 'turn-key-1' }));
    expect(first.status).toBe(200);
    const body = await first.text();
    expect(Object.fromEntries(calls)).toEqual({ claimIdempotencyKey: 1, loadHistory: 1, recordInvocations: 1 });
    const retry = await app.request(invoke('once', { 'Idempotency-Key': 'turn-key-1' }));
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(body);
    expect((await store.readStats()).invocations).toBe(2);
  });

  it('completes the key on its own, with the reply sent, when the turn could not be written with it', async () => {
    const { store } = countingStore();
    const app = await createTestActor({ store });
    (store as MemoryStore).failure = new Error('database down');
    const first = await app.request(invoke('deferred', { 'Idempotency-Key': 'turn-key-2' }));
    expect((await first.json()).metadata).toMatchObject({ idempotency_unavailable: true, stats_deferred: true });
    (store as MemoryStore).failure = null;
    // The buffer still waits out the outage: this turn's record is deferred, its key completed alone.
    const second = await app.request(invoke('deferred too', { 'Idempotency-Key': 'turn-key-3' }));
    const reply = await second.json();
    expect(reply.metadata).toEqual({ stats_deferred: true });
    expect(await store.claimIdempotencyKey('default/turn-key-3', 'other', 1_000)).toMatchObject({
      state: 'completed',
      body: JSON.stringify(reply),
    });
  });

  it('hands a chat handler of the actor’s own no history and reads none for it', async () => {
    const { store, calls } = countingStore();
    const inputs: ChatInput[] = [];
    const app = await createTestActor({
      store,
      chatHandler: async (input) => {
        inputs.push(input);
        return {
          content: 'mine',
          toolCalls: [],
          finishReason: 'stop',
          usage: { inputTokens: 0, outputTokens: 0 },
          model: 'own',
        };
      },
    });
    calls.clear();
    expect((await app.request(invoke('hello'))).status).toBe(200);
    expect(inputs[0]?.history).toEqual([]);
    expect(calls.get('loadHistory')).toBeUndefined();
  });
});
