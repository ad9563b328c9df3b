import type { ActorDefinition } from '../core/actor-definition.js';
import type { ActorEnvironment } from '../environment/runtime-config.js';
import { createOAuthFlow, type ActorOAuthFlow } from '../oauth/create-oauth-flow.js';
import { oauthProvidersFromEnv } from '../oauth/oauth-providers-from-env.js';

/**
 * The OAuth flow over the providers an actor's definition declares, configured from the
 * environment (`OAUTH_<P>_*`, `OAUTH_REDIRECT_URI`; see `oauthProvidersFromEnv`), or `undefined`
 * when it declares none. A declared provider without endpoints throws at setup.
 * @param definition the actor's definition.
 * @param env the raw environment.
 */
export function definitionOAuthFlow(definition: ActorDefinition, env: ActorEnvironment): ActorOAuthFlow | undefined {
  const declared = definition.oauth ?? [];
  if (declared.length === 0) return undefined;
  const redirectUri = env.OAUTH_REDIRECT_URI?.trim() || undefined;
  return createOAuthFlow({
    providers: oauthProvidersFromEnv(env, declared),
    ...(redirectUri === undefined ? {} : { redirectUri }),
  });
}
