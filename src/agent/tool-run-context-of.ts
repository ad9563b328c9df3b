import { noOAuthTokens } from '../core/oauth-token-source.js';
import type { ChatInput } from '../invoke/chat-handler.js';
import type { ToolRunContext } from './actor-tool.js';

/**
 * What the tools of one invoke are told, from what its chat handler was given: the tenant,
 * session, user, request, settings, the abort signal, and the tenant's OAuth tokens (when the
 * input brings no token source, every provider is unknown to the tools).
 * @param input what the chat handler was given
 */
export function toolRunContextOf(input: ChatInput): ToolRunContext {
  const { request, tenantId, requestId, signal, settings, oauthToken } = input;
  return {
    signal,
    tenantId,
    sessionId: request.session_id,
    userIdentifier: request.user_identifier,
    requestId,
    settings,
    oauthToken: oauthToken ?? ((provider) => noOAuthTokens.getAccessToken(tenantId, provider)),
  };
}
