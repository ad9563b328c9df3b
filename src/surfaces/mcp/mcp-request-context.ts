import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/** What one HTTP request to `/mcp` tells the tool and resource handlers it carries. */
export interface McpRequestContext {
  /** The request's `X-Request-Id`. */
  readonly requestId: string;
  /** The tenant from `X-Tenant-Id`, else `default`. */
  readonly tenantId: string;
  /** The `Mcp-Session-Id` the request carries: the chat session of a `chat` call that names none. */
  readonly sessionId: string;
  /** The session's client declared form elicitation at `initialize` (`sessionElicits`): a paused chat asks it. */
  readonly elicits: boolean;
  /** The HTTP request's signal: aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Keeps the request in flight past its response (see `ActorBindings.keepInFlight`). */
  readonly keepInFlight: () => () => void;
}

const KEY = 'actorkit';

/** Wraps the request's context as the SDK's `authInfo`, the channel it hands from HTTP middleware to every handler. */
export function asAuthInfo(context: McpRequestContext): AuthInfo {
  return { token: '', clientId: 'actorkit', scopes: [], extra: { [KEY]: context } };
}

/** The request context `asAuthInfo` wrapped; throws when a handler runs without one (a bug, not a client mistake). */
export function requestContextOf(authInfo: AuthInfo | undefined): McpRequestContext {
  const context = authInfo?.extra?.[KEY];
  if (context === undefined) throw new Error('An MCP handler ran without its request context');
  return context as McpRequestContext;
}
