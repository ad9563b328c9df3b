import type { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import type { ActorRouter } from '../context/actor-router.js';
import type { DocumentedOperation } from '../context/documented-operation.js';
import { limitRequestBody } from '../middleware/body-limit/index.js';
import { noOAuthProviders, type OAuthFlow } from '../oauth/oauth-flow.js';
import { honoPath, type RouteServices } from '../route-kit/actor-route.js';
import { CORE_ROUTES, openPaths } from '../routes/core-routes.js';

/** What `mountActorRoutes` mounted that the fetch edge needs. */
export interface MountedActorRoutes {
  /** The paths of the mounted routes declared `open`: the API key (when configured) lets them through. */
  readonly publicPaths: readonly string[];
}

/**
 * Mounts the actor's HTTP surface on `app` from the route table `CORE_ROUTES`: what routers
 * mount before auth (`mountBeforeAuth`), the body limit on the routes that declare it, each route the actor mounts (the playground only when
 * `PLAYGROUND_ENABLED`), then the conditional routers the template options turn on. The table
 * and the routers' operations are what `/openapi.json` documents. The 405 of a method a known
 * path does not have and the 401 of a missing key (letting through the routes declared `open`)
 * come before all of it, at the fetch edge (`edgeRefusals`).
 */
export function mountActorRoutes(
  app: Hono<ActorEnv>,
  ctx: ActorContext,
  oauth: OAuthFlow | undefined,
  routers: readonly ActorRouter[],
): MountedActorRoutes {
  const { config, logger } = ctx;
  const routes = CORE_ROUTES.filter((route) => route.mountedWhen?.(ctx) ?? true);
  for (const router of routers) router.mountBeforeAuth?.(app, ctx);
  const limitBody = limitRequestBody({ maxSize: config.bodyLimitBytes });
  for (const { spec } of routes) if (spec.bodyLimit === true) app.use(honoPath(spec.path), limitBody);

  const operations = (): DocumentedOperation[] => [
    ...routes.map((route) => route.spec),
    ...routers.flatMap((router) => router.operations?.(ctx) ?? []),
  ];
  const services: RouteServices = { oauth: oauth ?? noOAuthProviders, operations };
  for (const route of routes)
    app.on(route.spec.method.toUpperCase(), honoPath(route.spec.path), route.handler(ctx, services));
  for (const router of routers) {
    router.mount(app, ctx);
    logger.debug('router_mounted', { router: router.name });
  }
  const openRouterPaths = routers
    .flatMap((router) => router.operations?.(ctx) ?? [])
    .filter((operation) => operation.security === 'open')
    .map((operation) => operation.path);
  return { publicPaths: [...openPaths(routes), ...openRouterPaths] };
}
