import type { ActorContext } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';

/** Answers one OAuth route; the OAuth flow plugs in here. */
export interface OAuthFlow {
  authorize(request: Request, ctx: ActorContext): Promise<Response>;
  callback(request: Request, ctx: ActorContext): Promise<Response>;
  /** Called once with the actor's context when the app is built, so tools can ask for tokens before any OAuth request. */
  bind?(ctx: ActorContext): void;
}

/** The flow used while an actor declares no OAuth provider: every provider is unknown, every state invalid. */
export const noOAuthProviders: OAuthFlow = {
  async authorize(request) {
    const provider = new URL(request.url).searchParams.get('provider');
    throw new ActorError('unknown_provider', {
      detail: provider ? `No OAuth provider named ${JSON.stringify(provider)} is configured` : 'The provider query parameter is missing and no OAuth provider is configured',
    });
  },
  async callback() {
    throw new ActorError('invalid_state', { detail: 'The state is unknown, already used or expired' });
  },
};
