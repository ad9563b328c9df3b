import { readJson, validBody } from '../core/read-json-body.js';
import { ChatRequest } from './chat-request.js';
import { chatRequestOfUiChat } from './chat-request-of-ui-chat.js';
import { UiChatRequest } from './ui-chat-request.js';

/** Whether a body is the AI SDK's (`messages`, no `message`) rather than a chat request. */
function isUiChatBody(json: unknown): boolean {
  return (
    typeof json === 'object' && json !== null && !Array.isArray(json) && 'messages' in json && !('message' in json)
  );
}

/**
 * Reads the body of `POST /agent/invoke` as a chat request: a chat request as sent, or the AI
 * SDK's chat body (`useChat`'s `DefaultChatTransport`), told apart by `messages`. 415, 400 and
 * 422 as `readJsonBody` answers them; a 422 names the fields of the shape that was sent.
 * @param request the HTTP request
 */
export async function readInvokeBody(request: Request): Promise<ChatRequest> {
  const json = await readJson(request);
  return isUiChatBody(json) ? chatRequestOfUiChat(validBody(json, UiChatRequest)) : validBody(json, ChatRequest);
}
