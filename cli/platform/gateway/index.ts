// The local platform's HTTP front: the external API edge, the panel relay, the mesh services,
// reconciliation and the dashboard. (Scaffold: the gateway work replaces this file.)
import type { ActorPool } from '../actor-pool.js';

/** Options of `createPlatformGateway`. */
export interface PlatformGatewayOptions {
  /** The hosted actors, by ref. */
  readonly pools: ReadonlyMap<string, ActorPool>;
}

/** The platform's fetch handler. */
export interface PlatformGateway {
  fetch(request: Request): Promise<Response>;
  /** Stops background work (reconciliation). */
  close(): Promise<void>;
}

/**
 * Builds the local platform's HTTP front over its hosted actors.
 * @param options the pools to route to
 */
export function createPlatformGateway(options: PlatformGatewayOptions): PlatformGateway {
  return {
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === '/platform/actors') return Response.json([...options.pools.values()].map((pool) => ({ ref: pool.ref, slug: pool.slug, replicas: pool.replicas() })));
      return Response.json({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' }, { status: 404, headers: { 'content-type': 'application/problem+json' } });
    },
    async close() {},
  };
}
