import { ActorError } from './actor-error.js';

/** Where tools get OAuth access tokens: the actor's OAuth flow is one (`createOAuthFlow`). */
export interface OAuthTokenSource {
  /**
   * A valid access token of `tenantId` at `provider`, refreshed first when it is about to expire.
   * Throws `ActorError` (`oauth_not_connected`, `oauth_reauthorization_required`, `unknown_provider`…)
   * when there is none to give.
   */
  getAccessToken(tenantId: string, provider: string): Promise<string>;
}

/**
 * The 404 `unknown_provider` error for a provider the actor does not configure.
 * @param provider the id asked for
 * @param configured the ids the actor does configure
 */
export function unknownOAuthProvider(provider: string, configured: readonly string[]): ActorError {
  return new ActorError('unknown_provider', {
    detail: `No OAuth provider named ${JSON.stringify(provider)} is configured; configured: ${configured.join(', ') || 'none'}`,
  });
}

/** The token source of an actor that configures no OAuth provider: every provider is unknown. */
export const noOAuthTokens: OAuthTokenSource = {
  async getAccessToken(_tenantId, provider) {
    throw unknownOAuthProvider(provider, []);
  },
};
