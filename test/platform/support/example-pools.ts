// Two hosted instances from the examples, as pools of in-process replicas: the panel actor
// (examples/panel-workflow-actor: the stats panel) and the MCP actor (examples/mesh-actor:
// expose_mcp, its author listing `mcp` in external_api.operations).
import { createApp as createMeshActor } from '../../../examples/mesh-actor/src/app.js';
import meshConfig from '../../../examples/mesh-actor/src/platform/config.json' with { type: 'json' };
import { createApp as createPanelActor } from '../../../examples/panel-workflow-actor/src/app.js';
import panelConfig from '../../../examples/panel-workflow-actor/src/platform/config.json' with { type: 'json' };
import type { PlatformConfig } from '../../../src/config/platform-config.js';
import { startInProcessPool, type InProcessPool } from './in-process-pool.js';

/** The refs the tests address the two instances by. */
export const PANEL_REF = 'panel-7f3a';
export const MCP_REF = 'mcp-41c2';

/** The mesh key of the group the MCP actor is in (the mesh is not the gateway's part). */
const MESH_KEY = 'test-mesh-key-of-the-group-0123456789';

/** The MCP actor's configuration with `mcp` added to its edge operations (what `"actorkit": {"external_api": …}` in its package.json does). */
export const mcpActorConfig = {
  ...meshConfig,
  external_api: { enabled: true, operations: [...meshConfig.external_api.operations, 'mcp'] },
} as unknown as PlatformConfig;

/** The two instances. */
export interface ExamplePools {
  readonly panel: InProcessPool;
  readonly mcp: InProcessPool;
  readonly pools: ReadonlyMap<string, InProcessPool>;
  close(): Promise<void>;
}

/**
 * Starts both instances with `replicas` replicas each on `databaseUrl` (one database per
 * instance), in platform mode.
 * @param databaseUrls the database of the panel actor's and the MCP actor's replicas
 * @param replicas replicas per instance
 * @param configs configurations to use instead of the examples'
 * @param mcpEnv environment variables the MCP actor's replicas get besides the platform's (e.g. a model server)
 */
export async function startExamplePools(
  databaseUrls: { panel: string; mcp: string },
  replicas: number,
  configs: { panel?: PlatformConfig; mcp?: PlatformConfig } = {},
  mcpEnv: Record<string, string> = {},
): Promise<ExamplePools> {
  const platformEnv = { ACTOR_PLATFORM: 'true', LOG_LEVEL: 'info' };
  const panel = await startInProcessPool({
    ref: PANEL_REF,
    config: configs.panel ?? (panelConfig as unknown as PlatformConfig),
    replicas,
    makeApp: (index, logger) =>
      createPanelActor(
        {
          ...platformEnv,
          DATABASE_URL: databaseUrls.panel,
          INSTANCE_ID: `${PANEL_REF}-${index}`,
          WORKFLOW_BASE_URL: 'http://127.0.0.1:9',
        },
        { logger },
      ),
  });
  const mcp = await startInProcessPool({
    ref: MCP_REF,
    config: configs.mcp ?? mcpActorConfig,
    replicas,
    meshGroup: 'weather',
    makeApp: (index, logger) =>
      createMeshActor(
        { ...platformEnv, ...mcpEnv, DATABASE_URL: databaseUrls.mcp, INSTANCE_ID: `${MCP_REF}-${index}`, MESH_KEY },
        { logger },
      ),
  });
  return {
    panel,
    mcp,
    pools: new Map([
      [PANEL_REF, panel],
      [MCP_REF, mcp],
    ]),
    close: async () => {
      await Promise.all([panel.close(), mcp.close()]);
    },
  };
}
