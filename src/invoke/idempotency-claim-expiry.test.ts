import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { createTestActor } from '../testing/create-test-actor.js';
import type { ChatHandler } from './chat-handler.js';

// Issue #16 item 5: an `Idempotency-Key` whose instance died mid-invoke (kill -9 during a slow
// model call) is free again once the invoke deadline has passed, not after the 24 h it keeps a
// completed reply.

const body = JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' });
const post = () =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' },
    body,
  });

/** A model call that never answers: the instance "dies" while it runs. */
const hangingHandler: ChatHandler = () => new Promise(() => {});

/** The invoke deadline of the environment below: LLM_TIMEOUT_MS × (MAX_TOOL_STEPS + 1), plus a minute. */
const env = { LLM_TIMEOUT_MS: '1000', MAX_TOOL_STEPS: '2', IDEMPOTENCY_TTL_S: '86400' };
const DEADLINE_MS = 1000 * 3 + 60_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('an idempotency claim left by a crashed instance', () => {
  it('holds (409) while the invoke could still run, and is free after the invoke deadline', async () => {
    const store = new MemoryStore();
    const crashed = await createTestActor({ store, env, chatHandler: hangingHandler });
    void crashed.request(post());
    await vi.waitFor(() =>
      expect((store as unknown as { idempotency: Map<string, unknown> }).idempotency.size).toBe(1),
    );

    vi.useFakeTimers({ toFake: ['Date'] });
    const restarted = await createTestActor({ store, env });
    expect((await restarted.request(post())).status).toBe(409);
    vi.setSystemTime(Date.now() + DEADLINE_MS - 5_000);
    expect((await restarted.request(post())).status).toBe(409);
    vi.setSystemTime(Date.now() + 10_000);
    const retried = await restarted.request(post());
    expect(retried.status).toBe(200);
    // The completed reply is kept for IDEMPOTENCY_TTL_S, not for the running claim's deadline.
    vi.setSystemTime(Date.now() + 3_600_000);
    const replayed = await restarted.request(post());
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });
});
