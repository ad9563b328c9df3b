import type { ChatRequest } from '../invoke/chat-request.js';
import type { ChatMessage } from './chat-model.js';
import { modelAttachments } from './model-attachment.js';

/** The new message of a turn as the model sees it: its text, and for a user message its attachments. */
export function incomingMessage(request: ChatRequest): ChatMessage {
  if (request.role === 'system') return { role: 'system', content: request.message };
  const attachments = modelAttachments(request.attachments);
  return attachments.length > 0
    ? { role: 'user', content: request.message, attachments }
    : { role: 'user', content: request.message };
}
