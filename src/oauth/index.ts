// The OAuth flow (`/oauth/authorize`, `/oauth/callback`) and access tokens for tools.

export {
  createOAuthFlow,
  type ActorOAuthFlow,
  type CreateOAuthFlowOptions,
  type OAuthFlowContext,
} from './create-oauth-flow.js';
export type { OAuthProviderConfig } from './oauth-provider.js';
export { oauthProvidersFromEnv } from './oauth-providers-from-env.js';
export { MemoryOAuthStateStore, type OAuthStateRecord, type OAuthStateStore } from './oauth-state-store.js';
export { StoreOAuthStateStore } from './store-oauth-state-store.js';
