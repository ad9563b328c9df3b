import type { Handler } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import type { DocumentedOperation, RouteSecurity } from '../context/documented-operation.js';
import type { OAuthFlow } from '../oauth/oauth-flow.js';

/** What a core route's handler is wired to besides the context. */
export interface RouteServices {
  /** The OAuth flow `/oauth/*` delegates to. */
  readonly oauth: OAuthFlow;
  /** Every mounted operation, for `/openapi.json`. */
  readonly operations: () => readonly DocumentedOperation[];
}

/** What a core route declares about itself: its operation, with who may call it always said. */
export type RouteSpec = DocumentedOperation & { readonly security: RouteSecurity };

/**
 * A route of the always-present surface: its spec beside its handler. Mounting, the paths the
 * API key lets through, the body limit and `/openapi.json` are all read from the spec.
 */
export interface ActorRoute {
  readonly spec: RouteSpec;
  /** Whether the actor mounts it; always when left out. */
  readonly mountedWhen?: (ctx: ActorContext) => boolean;
  /** Builds the handler once, at mount. */
  readonly handler: (ctx: ActorContext, services: RouteServices) => Handler<ActorEnv>;
}

/**
 * Declares a core route: its spec and, beside it, the factory of its handler.
 * @param spec method, path, operation, security, body limit and contract role
 * @param handler builds the named handler function from the context
 * @param mountedWhen whether the actor mounts it (e.g. `PLAYGROUND_ENABLED`)
 */
export function defineRoute(
  spec: RouteSpec,
  handler: ActorRoute['handler'],
  mountedWhen?: ActorRoute['mountedWhen'],
): ActorRoute {
  return mountedWhen === undefined ? { spec, handler } : { spec, handler, mountedWhen };
}

/** The Hono path of an OpenAPI path template: `/stats/{tenant_id}` → `/stats/:tenant_id`. */
export function honoPath(path: string): string {
  return path.replace(/\{([A-Za-z_]\w*)\}/g, ':$1');
}
