// The OAuth flow (`/oauth/authorize`, `/oauth/callback`) and access tokens for tools.

export { createOAuthFlow, type ActorOAuthFlow, type CreateOAuthFlowOptions, type OAuthFlowContext } from './create-oauth-flow.js';
export { AuthorizationServers, checkOAuthProviders, clientCredentials, providerSettingsPrefix, type OAuthClientAuthentication, type OAuthProviderConfig } from './oauth-provider.js';
export { oauthProvidersFromEnv, providerEnvPrefix } from './oauth-providers-from-env.js';
export { DEFAULT_MAX_OAUTH_STATES, MemoryOAuthStateStore, type OAuthStateRecord, type OAuthStateStore } from './oauth-state-store.js';
export { StoreOAuthStateStore } from './store-oauth-state-store.js';
export { MAX_RETURN_TO_LENGTH, parseReturnTo, returnToProblem } from './return-to.js';
