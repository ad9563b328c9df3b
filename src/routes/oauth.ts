import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import type { OAuthFlow } from '../oauth/oauth-flow.js';

/** `GET /oauth/authorize` and `GET /oauth/callback`, delegating to an `OAuthFlow`. */
export function oauthRoutes(ctx: ActorContext, flow: OAuthFlow): Hono<ActorEnv> {
  return new Hono<ActorEnv>()
    .get('/oauth/authorize', function oauthAuthorize(c) {
      return flow.authorize(c.req.raw, ctx);
    })
    .get('/oauth/callback', function oauthCallback(c) {
      return flow.callback(c.req.raw, ctx);
    });
}
