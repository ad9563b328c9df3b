import type { ActorTool } from '../agent/actor-tool.js';
import type { ActorRouter } from '../context/actor-router.js';
import type { ActorDefinition } from '../core/actor-definition.js';
import type { ActorEnvironment } from '../environment/runtime-config.js';
import { a2aRouter } from '../features/a2a/a2a-router.js';
import { mcpRouter } from '../surfaces/mcp/mcp-router.js';
import { meshRouter, type PeerRoute } from '../surfaces/mesh/mesh-router.js';
import type { Panel } from '../surfaces/panel/panel-definition.js';
import { panelRouter } from '../surfaces/panel/panel-router.js';
import { workflowProxyRouter } from '../surfaces/workflow/workflow-proxy-router.js';

/** The handlers of the peer reads a definition declares, keyed by the declared path (`/lookup/:topic`). */
export type PeerReadHandlers = Readonly<Record<string, PeerRoute['handle']>>;

/** What the definition's surfaces are wired to in `app.ts`. */
export interface DefinitionWiring {
  /** The handler of each declared peer read. */
  readonly peerReads: PeerReadHandlers;
  /** The actor's tools now, for `/mcp`. */
  readonly tools: () => readonly ActorTool[];
}

/**
 * The conditional surfaces an actor's definition declares, as routers for `createActorApp`: the
 * owner panels when `includePanel` is on, the peer reads (with `MESH_KEY`) when `fleetMesh` is
 * on, the workflow proxy (with `WORKFLOW_BASE_URL`) when `integrationType` is `n8n`, the MCP server
 * `/mcp` when `exposeMcp` is on, the A2A card and `/a2a` when `exposeA2a` is on. A surface
 * whose option is off is not mounted; one that is on but misses its environment or its handlers
 * throws here, at setup. A router of the same name among `explicit` replaces the definition's.
 * @param definition the actor's definition.
 * @param env the raw environment.
 * @param wiring the handler of each declared peer read, and the actor's tools.
 * @param explicit the routers passed to `createActorApp` by hand.
 */
export function definitionRouters(
  definition: ActorDefinition,
  env: ActorEnvironment,
  wiring: DefinitionWiring,
  explicit: readonly ActorRouter[],
): ActorRouter[] {
  const handMounted = new Set(explicit.map((router) => router.name));
  const { features } = definition;
  const routers: ActorRouter[] = [];
  if (features.includePanel && !handMounted.has('panel')) {
    if ((definition.panels ?? []).length === 0)
      throw new Error(
        'features.includePanel is on but the definition declares no panels: add one to definition.panels, e.g. statsPanel()',
      );
    routers.push(panelRouter({ panels: definition.panels as readonly Panel[] }));
  }
  if (features.fleetMesh && !handMounted.has('mesh')) {
    routers.push(meshRouter({ meshKey: env.MESH_KEY, routes: peerRoutes(definition, wiring.peerReads) }));
  }
  if (features.integrationType === 'n8n' && !handMounted.has('workflow')) {
    routers.push(workflowProxyRouter({ baseUrl: env.WORKFLOW_BASE_URL }));
  }
  if (features.exposeMcp === true && !handMounted.has('mcp')) routers.push(mcpRouter({ tools: wiring.tools }));
  if (features.exposeA2a === true && !handMounted.has('a2a')) routers.push(a2aRouter({ tools: wiring.tools }));
  return routers;
}

/** Each declared peer read with its handler; a declaration without a handler, or a handler for no declaration, throws. */
function peerRoutes(definition: ActorDefinition, handlers: PeerReadHandlers): PeerRoute[] {
  const declared = definition.peerReads ?? [];
  const paths = new Set(declared.map((read) => read.path));
  const stray = Object.keys(handlers).filter((path) => !paths.has(path));
  if (stray.length > 0)
    throw new Error(`peerReads handles ${stray.join(', ')}, which definition.peerReads does not declare`);
  return declared.map((read) => {
    const handle = Object.hasOwn(handlers, read.path) ? handlers[read.path] : undefined;
    if (typeof handle !== 'function')
      throw new Error(
        `definition.peerReads declares ${read.path} but createActorApp({ peerReads }) has no handler for it`,
      );
    return { path: read.path, ...(read.summary === undefined ? {} : { summary: read.summary }), handle };
  });
}
