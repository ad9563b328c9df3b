/** What ends the `Mcp-Session-Id` of a session whose client declared form elicitation. */
const ELICITING_SESSION_SUFFIX = '.elicit';

/** Whether the `initialize` message's client declared form elicitation (`elicitation: {}` means form, as before modes). */
function declaresFormElicitation(message: unknown): boolean {
  const params = (message as { params?: { capabilities?: { elicitation?: unknown } } }).params;
  const elicitation = params?.capabilities?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}

/**
 * A fresh `Mcp-Session-Id` for an `initialize`. A stateless server forgets the client's
 * capabilities with the request that carried them, so the id itself says whether the client
 * declared form elicitation (`<uuid>.elicit`), and every replica reads it back
 * (`sessionElicits`). A client that forges the suffix only gets questions it cannot answer.
 * @param initialize the `initialize` message
 */
export function issueMcpSessionId(initialize: unknown): string {
  return `${crypto.randomUUID()}${declaresFormElicitation(initialize) ? ELICITING_SESSION_SUFFIX : ''}`;
}

/**
 * Whether the session's client declared form elicitation at `initialize` (see `issueMcpSessionId`).
 * @param sessionId the request's `Mcp-Session-Id`
 */
export function sessionElicits(sessionId: string): boolean {
  return sessionId.endsWith(ELICITING_SESSION_SUFFIX);
}
