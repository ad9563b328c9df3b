import { ActorError } from '../../core/actor-error.js';

/** What names an MCP call across the requests to `/mcp`: its tenant, its `Mcp-Session-Id`, its JSON-RPC id. */
export interface McpCallScope {
  readonly tenantId: string;
  readonly sessionId: string;
}

/** A call `McpCallsInFlight.begin` registered: aborted, with the 409 `run_cancelled`, when the client cancels it; `end` once it is answered. */
export interface McpCallInFlight {
  readonly signal: AbortSignal;
  end(): void;
}

const keyOf = (scope: McpCallScope, requestId: string | number): string =>
  JSON.stringify([scope.tenantId, scope.sessionId, requestId]);

/** The `params.requestId` of a `notifications/cancelled` message; undefined for any other message. */
function cancelledRequestId(message: unknown): string | number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'notifications/cancelled' || typeof params !== 'object' || params === null) return undefined;
  const { requestId } = params as { requestId?: unknown };
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/**
 * The MCP `chat` calls this instance answers now, so that a `notifications/cancelled` (which the
 * client POSTs on its own, to a fresh stateless server) reaches the call it names: only a call of
 * the same tenant and `Mcp-Session-Id`, and only on this instance.
 */
export class McpCallsInFlight {
  readonly #calls = new Map<string, AbortController>();

  /** Registers a call until its `end`. */
  begin(scope: McpCallScope, requestId: string | number): McpCallInFlight {
    const key = keyOf(scope, requestId);
    const controller = new AbortController();
    this.#calls.set(key, controller);
    return {
      signal: controller.signal,
      end: () => {
        if (this.#calls.get(key) === controller) this.#calls.delete(key);
      },
    };
  }

  /**
   * Aborts the calls the `notifications/cancelled` among `messages` name; returns how many it found.
   * @param scope the tenant and session of the request that carries the notifications
   * @param messages the request's JSON-RPC messages
   */
  cancelNotified(scope: McpCallScope, messages: readonly unknown[]): number {
    let found = 0;
    for (const message of messages) {
      const requestId = cancelledRequestId(message);
      if (requestId === undefined) continue;
      const controller = this.#calls.get(keyOf(scope, requestId));
      if (controller === undefined) continue;
      // The client's own reason is not kept: it would be stored with the run, at any length.
      controller.abort(
        new ActorError('run_cancelled', { detail: 'The MCP client cancelled the call (notifications/cancelled)' }),
      );
      found += 1;
    }
    return found;
  }

  /** Calls registered now. */
  get size(): number {
    return this.#calls.size;
  }
}
