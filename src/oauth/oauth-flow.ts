import type { ActorContext } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { noOAuthTokens, unknownOAuthProvider } from '../core/oauth-token-source.js';

/** Answers one OAuth route; the OAuth flow plugs in here. */
export interface OAuthFlow {
  /** `GET /oauth/authorize`: redirects the user to the provider, with a fresh state. */
  authorize(request: Request, ctx: ActorContext): Promise<Response>;
  /** `GET /oauth/callback`: checks the state, exchanges the code and stores the tenant's token. */
  callback(request: Request, ctx: ActorContext): Promise<Response>;
  /** Called once with the actor's context when the app is built, so tools can ask for tokens before any OAuth request. */
  bind?(ctx: ActorContext): void;
  /** A valid access token of a tenant at a provider, for the tools of a turn (`ToolRunContext.oauthToken`); without it every provider is unknown to them. */
  getAccessToken?(tenantId: string, provider: string): Promise<string>;
}

/** The flow used while an actor declares no OAuth provider: every provider is unknown, every state invalid, no tool gets a token. */
export const noOAuthProviders: OAuthFlow = {
  async authorize(request) {
    const provider = new URL(request.url).searchParams.get('provider');
    if (provider) throw unknownOAuthProvider(provider, []);
    throw new ActorError('unknown_provider', {
      detail: 'The provider query parameter is missing and no OAuth provider is configured',
    });
  },
  async callback() {
    throw new ActorError('invalid_state', { detail: 'The state is unknown, already used or expired' });
  },
  getAccessToken: noOAuthTokens.getAccessToken,
};
