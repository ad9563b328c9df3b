import { type ExposableOperation, MCP_EDGE_OPERATION } from '../../src/sdk/index.js';
import { ACTOR_PATHS } from './actor-paths.js';

/** An operation of the edge: those rule G lets any actor expose, and `mcp`. */
export type EdgeOperationName = ExposableOperation | typeof MCP_EDGE_OPERATION;

/** How the edge answers one operation: the methods it takes and the actor path it goes to. */
export interface EdgeOperation {
  readonly methods: readonly string[];
  /** The actor's own path for a request made for `tenant`. */
  readonly actorPath: (tenant: string) => string;
  /** How the gateway counts the turns it carries: REST chat, MCP tool calls, or not at all. */
  readonly counts: 'chat' | 'mcp' | 'none';
}

/**
 * The operations of the external edge, `/api/v1/k/<ref>/<operation>`: REST `chat` (the actor's
 * invoke, JSON or SSE), `status` (the stats of the caller's tenant), `health`, and `mcp` (the
 * actor's MCP server). An instance offers those its `external_api.operations` lists.
 */
export const EDGE_OPERATIONS: Readonly<Record<EdgeOperationName, EdgeOperation>> = {
  chat: { methods: ['POST'], actorPath: () => ACTOR_PATHS.invoke, counts: 'chat' },
  status: { methods: ['GET'], actorPath: (tenant) => ACTOR_PATHS.tenantStats(tenant), counts: 'none' },
  health: { methods: ['GET'], actorPath: () => ACTOR_PATHS.health, counts: 'none' },
  [MCP_EDGE_OPERATION]: { methods: ['POST', 'DELETE'], actorPath: () => ACTOR_PATHS.mcp, counts: 'mcp' },
};
