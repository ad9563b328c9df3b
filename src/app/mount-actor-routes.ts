import type { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import type { ActorRouter } from '../context/actor-router.js';
import type { DocumentedOperation } from '../context/documented-operation.js';
import { apiKeyAuth } from '../middleware/api-key/index.js';
import { limitRequestBody } from '../middleware/body-limit/index.js';
import { noOAuthProviders, type OAuthFlow } from '../oauth/oauth-flow.js';
import { honoPath, type RouteServices } from '../routes/actor-route.js';
import { CORE_ROUTES, openPaths } from '../routes/core-routes.js';

/**
 * Mounts the actor's HTTP surface on `app` from the route table `CORE_ROUTES`: what routers
 * mount before auth (`mountBeforeAuth`), API-key auth (when keys are configured) letting through
 * the routes declared `open`, the body limit on the routes that declare it, each route the actor mounts (the playground only when
 * `PLAYGROUND_ENABLED`), then the conditional routers the template options turn on. The table
 * and the routers' operations are what `/openapi.json` documents. The 405 of a method a known
 * path does not have comes before all of it, at the fetch edge (`unlistedMethodRefusal`).
 */
export function mountActorRoutes(app: Hono<ActorEnv>, ctx: ActorContext, oauth: OAuthFlow | undefined, routers: readonly ActorRouter[]): void {
  const { config, logger } = ctx;
  const routes = CORE_ROUTES.filter((route) => route.mountedWhen?.(ctx) ?? true);
  for (const router of routers) router.mountBeforeAuth?.(app, ctx);
  if (config.apiKeys.length > 0) app.use(apiKeyAuth({ keys: config.apiKeys, publicPaths: openPaths(routes) }));
  const limitBody = limitRequestBody({ maxSize: config.bodyLimitBytes });
  for (const { spec } of routes) if (spec.bodyLimit === true) app.use(honoPath(spec.path), limitBody);

  const operations = (): DocumentedOperation[] => [...routes.map((route) => route.spec), ...routers.flatMap((router) => router.operations?.(ctx) ?? [])];
  const services: RouteServices = { oauth: oauth ?? noOAuthProviders, operations };
  for (const route of routes) app.on(route.spec.method.toUpperCase(), honoPath(route.spec.path), route.handler(ctx, services));
  for (const router of routers) {
    router.mount(app, ctx);
    logger.debug('router_mounted', { router: router.name });
  }
}
