import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { OAuthProviderDeclaration } from '../config/platform-config.js';
import type { OAuthProviderConfig } from './oauth-provider.js';

/** The environment variable prefix of a provider, e.g. `OAUTH_GOOGLE_WORKSPACE_` for `google-workspace`. */
export function providerEnvPrefix(provider: string): string {
  return `OAUTH_${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
}

/**
 * Builds the provider configurations of the providers an actor declares (`definition.oauth`)
 * from the environment: `OAUTH_<P>_ISSUER`, or `OAUTH_<P>_AUTHORIZATION_ENDPOINT` with
 * `OAUTH_<P>_TOKEN_ENDPOINT`; `OAUTH_<P>_CLIENT_ID`, `OAUTH_<P>_CLIENT_SECRET` (else the settings
 * `oauth_<p>_client_id` / `_client_secret` are read per request); `OAUTH_<P>_SCOPES` (space or
 * comma separated) over the declared scopes. A declared provider without endpoints refuses to start.
 * @param env the environment
 * @param declarations the providers the actor declares
 */
export function oauthProvidersFromEnv(env: ActorEnvironment, declarations: readonly OAuthProviderDeclaration[]): OAuthProviderConfig[] {
  return declarations.map((declaration) => {
    const prefix = providerEnvPrefix(declaration.provider);
    const read = (name: string) => env[`${prefix}${name}`]?.trim() || undefined;
    const issuer = read('ISSUER');
    const authorizationEndpoint = read('AUTHORIZATION_ENDPOINT');
    const tokenEndpoint = read('TOKEN_ENDPOINT');
    if (issuer === undefined && (authorizationEndpoint === undefined || tokenEndpoint === undefined)) {
      throw new Error(`OAuth provider ${declaration.provider} is declared but not configured: set ${prefix}ISSUER, or ${prefix}AUTHORIZATION_ENDPOINT and ${prefix}TOKEN_ENDPOINT`);
    }
    const scopes = read('SCOPES')?.split(/[\s,]+/).filter(Boolean) ?? declaration.scopes;
    return {
      provider: declaration.provider,
      ...(declaration.title === undefined ? {} : { title: declaration.title }),
      ...(issuer === undefined ? {} : { issuer }),
      ...(authorizationEndpoint === undefined ? {} : { authorizationEndpoint }),
      ...(tokenEndpoint === undefined ? {} : { tokenEndpoint }),
      ...(read('CLIENT_ID') === undefined ? {} : { clientId: read('CLIENT_ID') }),
      ...(read('CLIENT_SECRET') === undefined ? {} : { clientSecret: read('CLIENT_SECRET') }),
      ...(scopes === undefined ? {} : { scopes }),
    };
  });
}
