import type { ActorPool, ReplicaView } from '../actor-pool.js';
import { maskEdgeKey, type EdgeKeyring } from './edge-keys.js';
import { exposedOperations, hasEdge } from './external-edge.js';
import { edgeBasePath, edgeKeyPath, relayPanelPath } from './gateway-paths.js';
import { panelSlugs } from './panel-relay.js';

/** One hosted instance as `GET /platform/actors` and the dashboard show it. */
export interface PlatformActorView {
  readonly ref: string;
  readonly slug: string;
  readonly name: string;
  readonly version: string;
  readonly mesh_group: string | null;
  /** Replicas whose readiness probe passes, of all. */
  readonly ready: number;
  readonly replicas: readonly (Omit<ReplicaView, 'lastLines' | 'startedAt'> & {
    readonly started_at: string;
    readonly last_lines: readonly string[];
  })[];
  /** The external edge: absent operations when it is off; the key only masked. */
  readonly edge: {
    readonly enabled: boolean;
    readonly url: string | null;
    readonly operations: readonly string[];
    readonly key_masked: string | null;
    readonly key_rotated_at: string | null;
    /** Where the owner reveals (`GET`) or rotates (`POST`) the key. */
    readonly key_path: string | null;
  };
  readonly panels: readonly { readonly slug: string; readonly title: string; readonly url: string }[];
}

/**
 * The hosted instances for the owner: replicas and their readiness and last log lines, the edge
 * (URL, operations, masked key) and the panels through the relay, with absolute URLs on `origin`.
 * @param pools the hosted instances
 * @param keys the edge keys
 * @param origin the platform's origin as the caller addressed it, e.g. `http://127.0.0.1:8700`
 */
export function platformActors(
  pools: ReadonlyMap<string, ActorPool>,
  keys: EdgeKeyring,
  origin: string,
): PlatformActorView[] {
  return [...pools.values()].map((pool) => {
    const replicas = pool.replicas();
    const edgeOn = hasEdge(pool);
    const key = keys.keyOf(pool.ref);
    const titles = new Map(pool.config.panels.map((panel) => [panel.slug, panel.title ?? panel.slug]));
    return {
      ref: pool.ref,
      slug: pool.slug,
      name: pool.config.actor.name,
      version: pool.config.actor.version,
      mesh_group: pool.meshGroup ?? null,
      ready: replicas.filter((replica) => replica.state === 'ready').length,
      replicas: replicas.map(({ lastLines, startedAt, ...replica }) => ({
        ...replica,
        started_at: startedAt,
        last_lines: lastLines,
      })),
      edge: {
        enabled: edgeOn,
        url: edgeOn ? origin + edgeBasePath(pool.ref) : null,
        operations: exposedOperations(pool),
        key_masked: edgeOn && key !== undefined ? maskEdgeKey(key) : null,
        key_rotated_at: keys.rotatedAt(pool.ref) ?? null,
        key_path: edgeOn ? edgeKeyPath(pool.ref) : null,
      },
      panels: panelSlugs(pool).map((slug) => ({
        slug,
        title: titles.get(slug) ?? slug,
        url: origin + relayPanelPath(pool.ref, slug),
      })),
    };
  });
}
