import { describe, expect, it } from 'vitest';
import { ActorError } from '../../core/actor-error.js';
import { McpCallsInFlight } from './mcp-calls-in-flight.js';

const cancelled = (requestId: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});
const scope = { tenantId: 'acme', sessionId: 'session-1' };

describe('McpCallsInFlight', () => {
  it('aborts only the call a notifications/cancelled of the same tenant and session names', () => {
    const calls = new McpCallsInFlight();
    const first = calls.begin(scope, 7);
    const named = calls.begin(scope, '7');
    expect(calls.cancelNotified({ ...scope, tenantId: 'other' }, [cancelled(7)])).toBe(0);
    expect(calls.cancelNotified({ ...scope, sessionId: 'session-2' }, [cancelled(7)])).toBe(0);
    expect(
      calls.cancelNotified(scope, [{ jsonrpc: '2.0', method: 'notifications/initialized' }, cancelled(null)]),
    ).toBe(0);
    expect(first.signal.aborted).toBe(false);
    expect(calls.cancelNotified(scope, [cancelled(7)])).toBe(1);
    expect(first.signal.reason).toBeInstanceOf(ActorError);
    expect((first.signal.reason as ActorError).code).toBe('run_cancelled');
    expect(named.signal.aborted).toBe(false);
  });

  it('forgets a call once it ends', () => {
    const calls = new McpCallsInFlight();
    const call = calls.begin(scope, 0);
    call.end();
    expect(calls.size).toBe(0);
    expect(calls.cancelNotified(scope, [cancelled(0)])).toBe(0);
    expect(call.signal.aborted).toBe(false);
  });
});
