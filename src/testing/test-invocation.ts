import type { TurnToSave } from '../store/store.js';

let sequence = 0;

/**
 * A turn to save (`TurnToSave`) for store tests, without messages: a unique id, tenant `acme`,
 * user `user-1`, session `session-1`, a success with 10 input and 20 output tokens, one tool
 * call and 100 ms, finished one second after the previous one made here.
 * @param overrides fields to set instead
 * @example
 * await store.saveTurns([invocation({ tenantId: 'globex' })]);
 */
export function invocation(overrides: Partial<TurnToSave> = {}): TurnToSave {
  sequence += 1;
  return {
    id: `rec-${sequence}-${Math.random().toString(36).slice(2)}`,
    tenantId: 'acme',
    userIdentifier: 'user-1',
    sessionId: 'session-1',
    outcome: 'success',
    inputTokens: 10,
    outputTokens: 20,
    toolCalls: 1,
    latencyMs: 100,
    finishedAt: new Date(Date.UTC(2025, 0, 1) + sequence * 1000).toISOString(),
    ...overrides,
  };
}
