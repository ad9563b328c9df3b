import { type ExposableOperation, MCP_EDGE_OPERATION } from '../../src/sdk/index.js';
import { ACTOR_PATHS } from './actor-paths.js';

/** An operation of the edge: those rule G lets any actor expose, and `mcp`. */
export type EdgeOperationName = ExposableOperation | typeof MCP_EDGE_OPERATION;

/** What an edge request asks of an operation: for whom, the decoded path segments below the operation's name, and the query. */
interface EdgeTarget {
  readonly tenant: string;
  /** E.g. `['inv_1', 'stream']` for `/api/v1/k/<ref>/status/inv_1/stream`; empty for the operation itself. */
  readonly below: readonly string[];
  readonly query: URLSearchParams;
}

/** How the edge answers one operation: the methods it takes and the actor path it goes to. */
export interface EdgeOperation {
  readonly methods: readonly string[];
  /** The actor's own path (and query) for a request; undefined when the operation has no such sub-path (404). */
  readonly actorPath: (target: EdgeTarget) => string | undefined;
  /** How the gateway counts the turns it carries: REST chat, MCP tool calls, or not at all. */
  readonly counts: 'chat' | 'mcp' | 'none';
}

/** An operation with no sub-path: its one actor path, for `below` empty only. */
const only =
  (path: (tenant: string) => string) =>
  ({ tenant, below }: EdgeTarget): string | undefined =>
    below.length === 0 ? path(tenant) : undefined;

/**
 * Where `status` goes: `status` alone to the stats of the tenant (as before runs existed),
 * `status/<run id>` to that run of the tenant, `status/<run id>/stream` to the run's stream
 * (its `after` passed on; `Last-Event-ID` travels as a header).
 */
function statusPath({ tenant, below, query }: EdgeTarget): string | undefined {
  const [id, stream, ...more] = below;
  if (id === undefined) return ACTOR_PATHS.tenantStats(tenant);
  if (more.length > 0) return undefined;
  if (stream === undefined) return ACTOR_PATHS.run(id);
  if (stream !== 'stream') return undefined;
  const after = query.get('after');
  return ACTOR_PATHS.runStream(id) + (after === null ? '' : `?${new URLSearchParams({ after })}`);
}

/** The sub-path of `chat` that reaches the AG-UI agent (`/api/v1/k/<ref>/chat/ag-ui`), and A2A's JSON-RPC binding (`chat/a2a`). */
export const CHAT_SURFACES = { agUi: 'ag-ui', a2a: 'a2a' } as const;

/** The actor path of each sub-path of `chat`. */
const CHAT_SURFACE_PATHS: Readonly<Record<string, string>> = {
  [CHAT_SURFACES.agUi]: ACTOR_PATHS.agUi,
  [CHAT_SURFACES.a2a]: ACTOR_PATHS.a2aJsonRpc,
};

/**
 * Where `chat` goes: `chat` alone to the invoke, `chat/ag-ui` to the AG-UI agent, `chat/a2a` to
 * A2A's JSON-RPC binding (a 404 from an actor without `expose_ag_ui` / `expose_a2a`).
 */
function chatPath({ below }: EdgeTarget): string | undefined {
  if (below.length === 0) return ACTOR_PATHS.invoke;
  const [surface] = below;
  return below.length === 1 && surface !== undefined && Object.hasOwn(CHAT_SURFACE_PATHS, surface)
    ? CHAT_SURFACE_PATHS[surface]
    : undefined;
}

/**
 * The operations of the external edge, `/api/v1/k/<ref>/<operation>`: REST `chat` (the actor's
 * invoke, JSON, SSE or a background run; `chat/ag-ui` its AG-UI agent, `chat/a2a` its A2A JSON-RPC binding), `status` (the stats of the caller's tenant, or one of
 * its runs and its stream), `health`, and `mcp` (the actor's MCP server). An instance offers
 * those its `external_api.operations` lists.
 */
export const EDGE_OPERATIONS: Readonly<Record<EdgeOperationName, EdgeOperation>> = {
  chat: { methods: ['POST'], actorPath: chatPath, counts: 'chat' },
  status: { methods: ['GET'], actorPath: statusPath, counts: 'none' },
  health: { methods: ['GET'], actorPath: only(() => ACTOR_PATHS.health), counts: 'none' },
  [MCP_EDGE_OPERATION]: { methods: ['POST', 'DELETE'], actorPath: only(() => ACTOR_PATHS.mcp), counts: 'mcp' },
};
