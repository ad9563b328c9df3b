import { describe, expect, it } from 'vitest';
import type { Mutable } from '../core/mutable.js';
import type { TurnToSave, StoredMessage } from './store.js';
import { checkedTurnToSave, checkedTurnHistory, trustedTurnHistory, withoutHistory } from './store-input-validation.js';

const message: StoredMessage = { id: 'm1', role: 'user', content: 'hello', createdAt: '2025-01-01T00:00:00.000Z' };

function record(overrides: Partial<TurnToSave> = {}): TurnToSave {
  return {
    tenantId: 'acme',
    userIdentifier: 'ann',
    sessionId: 's1',
    outcome: 'success',
    inputTokens: 1,
    outputTokens: 2,
    toolCalls: 0,
    latencyMs: 5,
    finishedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('checkedTurnToSave', () => {
  it('returns a frozen copy, history included, that later changes to the input cannot reach', () => {
    const input = { ...record({ history: [{ ...message }] }) } as Mutable<TurnToSave>;
    const checked = checkedTurnToSave(input);
    input.inputTokens = -1;
    (input.history as StoredMessage[]).push({ ...message, id: 'm2' });
    expect(checked.inputTokens).toBe(1);
    expect(checked.history).toHaveLength(1);
    expect(Object.isFrozen(checked) && Object.isFrozen(checked.history) && Object.isFrozen(checked.history?.[0])).toBe(
      true,
    );
  });

  it('checks a record once: one it returned comes back as it is', () => {
    const checked = checkedTurnToSave(record({ history: [message] }));
    expect(checkedTurnToSave(checked)).toBe(checked);
    expect(checkedTurnHistory(checked.history ?? [])).toBe(checked.history);
    const counts = withoutHistory(checked);
    expect(counts.history).toBeUndefined();
    expect(checkedTurnToSave(counts)).toBe(counts);
  });

  it('gives the id only to a record without one', () => {
    expect(checkedTurnToSave(record(), 'given').id).toBe('given');
    expect(checkedTurnToSave(record({ id: 'own' }), 'given').id).toBe('own');
    const checked = checkedTurnToSave(record());
    expect(checkedTurnToSave(checked, 'later').id).toBe('later');
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['negative tokens', record({ inputTokens: -1 })],
    ['a bad message role', record({ history: [{ ...message, role: 'robot' as StoredMessage['role'] }] })],
    ['a history that is no array', record({ history: 'hello' as unknown as StoredMessage[] })],
  ])('refuses %s with a TypeError', (_label, bad) => {
    expect(() => checkedTurnToSave(bad as TurnToSave)).toThrow(TypeError);
  });

  it('refuses an id that is not a store key', () => {
    expect(() => checkedTurnToSave(record(), '')).toThrow(TypeError);
  });

  it('does not take a plain copy of a checked record for checked', () => {
    const checked = checkedTurnToSave(record());
    const copy = { ...checked };
    expect(checkedTurnToSave(copy)).not.toBe(copy);
  });
});

describe('trustedTurnHistory', () => {
  it("takes the runtime's own messages as they are, without a copy, in a record too", () => {
    const history = [{ ...message }, { ...message, id: 'm2', role: 'assistant' as const }];
    const trusted = trustedTurnHistory(history);
    expect(trusted).toBe(history);
    expect(checkedTurnHistory(trusted)).toBe(trusted);
    // An equal array not marked is checked and copied, as any history from outside.
    expect(checkedTurnHistory([...history])).not.toBe(history);
    expect(checkedTurnToSave(record({ history: trusted })).history).toBe(trusted);
  });

  it('leaves messages from outside checked: the same bad message is refused when not marked', () => {
    const bad = { ...message, createdAt: 'not a time' };
    expect(() => checkedTurnHistory([bad])).toThrow(/message.createdAt must be an ISO 8601 timestamp/);
    expect(() => checkedTurnToSave(record({ history: [{ ...bad }] }))).toThrow(/message.createdAt/);
  });
});
