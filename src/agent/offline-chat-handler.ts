import type { ChatHandler } from './chat-handler.js';

/** The model name reported by the offline handler. */
export const OFFLINE_MODEL = 'offline';

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A deterministic local reply used when no model is configured: it says plainly that it is
 * the offline model and echoes the message, so a new actor answers out of the box.
 */
export const offlineChatHandler: ChatHandler = async function offlineChatHandler({ request }) {
  const content = `[offline model] No language model is configured for this actor, so this is a fixed local reply. You said: ${request.message}`;
  return {
    content,
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: countWords(request.message), outputTokens: countWords(content) },
    model: OFFLINE_MODEL,
  };
};
