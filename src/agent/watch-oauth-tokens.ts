import { REDACTED } from '../core/redacted.js';
import type { ToolRunContext } from './actor-tool.js';

/** A tool's context that remembers the OAuth tokens it hands out, and cuts them out of text. */
export interface WatchedToolContext {
  /** The context to run the tool with. */
  readonly context: ToolRunContext;
  /** `text` with every token this context handed out replaced by `[redacted]`. */
  redact(text: string): string;
}

/**
 * Wraps a tool's context so that a failure message can be logged, recorded in the history and
 * shown to the model without the OAuth tokens the tool was given, even when the tool (or the
 * HTTP client it used) wrote one into its error. What a tool returns is left as it is.
 * @param context the context of one tool call
 */
export function watchOAuthTokens(context: ToolRunContext): WatchedToolContext {
  const handedOut = new Set<string>();
  return {
    context: {
      ...context,
      async oauthToken(provider) {
        const token = await context.oauthToken(provider);
        if (token !== '') handedOut.add(token);
        return token;
      },
    },
    redact(text) {
      let clean = text;
      for (const token of handedOut) clean = clean.replaceAll(token, REDACTED);
      return clean;
    },
  };
}
