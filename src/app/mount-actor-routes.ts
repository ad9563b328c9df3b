import type { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import type { ActorRouter } from '../context/actor-router.js';
import { apiKeyAuth, DEFAULT_PUBLIC_PATHS } from '../middleware/api-key/index.js';
import { limitRequestBody } from '../middleware/body-limit/index.js';
import { noOAuthProviders, type OAuthFlow } from '../oauth/oauth-flow.js';
import { actorIndexRoutes } from '../routes/actor-index.js';
import { actorInfoRoutes } from '../routes/actor-info.js';
import { healthRoutes } from '../routes/health.js';
import { invokeRoutes } from '../routes/invoke.js';
import { metricsRoutes } from '../routes/metrics.js';
import { oauthRoutes } from '../routes/oauth.js';
import { coreOperations } from '../routes/openapi-document.js';
import { openApiRoutes } from '../routes/openapi.js';
import { playgroundRoutes, PLAYGROUND_PATH } from '../routes/playground.js';
import { readyRoutes } from '../routes/ready.js';
import { settingsRoutes } from '../routes/settings.js';
import { statsRoutes } from '../routes/stats.js';

/**
 * Mounts the actor's HTTP surface on `app`: API-key auth when keys are configured, the body
 * limit, the always-present routes (and the playground when `PLAYGROUND_ENABLED`), then the conditional routers the template options turn on
 * (each documented in `/openapi.json`).
 */
export function mountActorRoutes(app: Hono<ActorEnv>, ctx: ActorContext, oauth: OAuthFlow | undefined, routers: readonly ActorRouter[]): void {
  const { config, logger } = ctx;
  const playground = ctx.environment.PLAYGROUND_ENABLED;
  if (config.apiKeys.length > 0) {
    app.use(apiKeyAuth({ keys: config.apiKeys, publicPaths: playground ? [...DEFAULT_PUBLIC_PATHS, PLAYGROUND_PATH] : DEFAULT_PUBLIC_PATHS }));
  }
  const limitBody = limitRequestBody({ maxSize: config.bodyLimitBytes });
  app.use('/agent/*', limitBody);
  app.use('/settings', limitBody);

  const surfaces = [
    invokeRoutes(ctx),
    healthRoutes(ctx),
    readyRoutes(ctx),
    metricsRoutes(ctx),
    statsRoutes(ctx),
    settingsRoutes(ctx),
    actorInfoRoutes(ctx),
    actorIndexRoutes(ctx),
    oauthRoutes(ctx, oauth ?? noOAuthProviders),
    ...(playground ? [playgroundRoutes(ctx)] : []),
    openApiRoutes(ctx, () => [...coreOperations(ctx), ...routers.flatMap((router) => router.operations?.(ctx) ?? [])]),
  ];
  for (const surface of surfaces) app.route('/', surface);
  for (const router of routers) {
    router.mount(app, ctx);
    logger.debug('router_mounted', { router: router.name });
  }
}
