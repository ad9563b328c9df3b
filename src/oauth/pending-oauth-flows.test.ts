import { describe, expect, it } from 'vitest';
import { ActorError } from '../core/actor-error.js';
import { PendingOAuthFlows } from './pending-oauth-flows.js';

const refusal = (run: () => void): ActorError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ActorError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('PendingOAuthFlows', () => {
  it("frees a tenant's room when a flow finishes, and ignores unknown states", () => {
    const flows = new PendingOAuthFlows(1, 10);
    flows.admit('s1', 'acme', 5_000, 0);
    expect(refusal(() => flows.admit('s2', 'acme', 5_000, 0))).toMatchObject({
      status: 429,
      headers: { 'Retry-After': '5' },
    });
    flows.release('s1');
    flows.release('never-started');
    expect(() => flows.admit('s2', 'acme', 5_000, 0)).not.toThrow();
  });

  it('forgets expired flows first, and says to retry in at least a second', () => {
    const flows = new PendingOAuthFlows(5, 2);
    flows.admit('a', 't1', 1_000, 0);
    flows.admit('b', 't2', 1_200, 100);
    expect(refusal(() => flows.admit('c', 't3', 1_999, 999)).headers['Retry-After']).toBe('1');
    flows.admit('c', 't3', 2_000, 1_000);
    expect(refusal(() => flows.admit('d', 't4', 2_100, 1_100)).detail).toContain('2 OAuth flows are pending');
  });
});
