import type { McpCallScope } from './mcp-calls-in-flight.js';

/** A request the actor sends a client, as the SDK's transport writes it on a call's stream. */
export interface McpOutgoingRequest {
  readonly jsonrpc: '2.0';
  readonly id: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** The JSON-RPC error a client answered a request with. */
export class McpClientRequestFailed extends Error {
  /** The JSON-RPC error code. */
  readonly code: unknown;
  constructor(error: { readonly code?: unknown; readonly message?: unknown }) {
    super(`The MCP client answered with an error: ${String(error.message ?? 'no message')}`);
    this.code = error.code;
  }
}

interface Waiting {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const keyOf = (scope: McpCallScope, id: unknown): string => JSON.stringify([scope.tenantId, scope.sessionId, id]);

/** A JSON-RPC response (a result or an error, with an id and no method). */
function isResponse(message: unknown): message is { id: string | number; result?: unknown; error?: unknown } {
  if (typeof message !== 'object' || message === null) return false;
  const candidate = message as Record<string, unknown>;
  return !('method' in candidate) && ('result' in candidate || 'error' in candidate) && 'id' in candidate;
}

/**
 * The requests (`elicitation/create`) this instance's `chat` calls sent their clients and wait
 * for. The stateless `/mcp` answers each POST with a fresh server, so the client's response,
 * POSTed on its own, would reach a server that never asked: the router hands it here instead
 * (`deliver`), to the call that asked, matched by tenant, `Mcp-Session-Id` and an id no other
 * request shares (`elicit_<uuid>`). Only this instance holds the asking call, as for a cancel.
 */
export class McpElicitations {
  readonly #waiting = new Map<string, Waiting>();

  /**
   * Sends `method` with `params` to the client (through `send`, on the call's own stream) and
   * resolves with the client's `result`; rejects with `McpClientRequestFailed` for its error,
   * or with the signal's reason once the call is aborted.
   * @param scope the tenant and session of the asking call
   * @param send writes the request on the call's stream
   * @param method the JSON-RPC method, e.g. `elicitation/create`
   * @param params its params
   * @param signal the call's signal
   */
  async ask(
    scope: McpCallScope,
    send: (request: McpOutgoingRequest) => Promise<void>,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    signal.throwIfAborted();
    const id = `elicit_${crypto.randomUUID()}`;
    const key = keyOf(scope, id);
    const answered = new Promise<unknown>((resolve, reject) => {
      this.#waiting.set(key, { resolve, reject });
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    // A send that fails leaves `answered` unread: its later rejection must not go unhandled.
    answered.catch(() => {});
    try {
      await send({ jsonrpc: '2.0', id, method, params });
      return await answered;
    } finally {
      this.#waiting.delete(key);
    }
  }

  /**
   * Hands the responses among `messages` to the asks waiting for them; returns the messages
   * left for the server (any other message, and a response nobody here waits for).
   * @param scope the tenant and session of the POST that carries them
   * @param messages the POST's JSON-RPC messages
   */
  deliver(scope: McpCallScope, messages: readonly unknown[]): unknown[] {
    return messages.filter((message) => {
      if (!isResponse(message)) return true;
      const waiting = this.#waiting.get(keyOf(scope, message.id));
      if (waiting === undefined) return true;
      if ('error' in message) waiting.reject(new McpClientRequestFailed(message.error as { code?: unknown }));
      else waiting.resolve(message.result);
      return false;
    });
  }

  /** Requests waiting now. */
  get size(): number {
    return this.#waiting.size;
  }
}
