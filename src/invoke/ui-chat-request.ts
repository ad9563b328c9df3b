import * as v from 'valibot';
import { ChatRequest, SessionId } from './chat-request.js';

/** A part of a message the AI SDK keeps (text, file, reasoning, tool, data…): only its `type` is read, and only on the last message. */
const UiMessagePart = v.looseObject({ type: v.string() });

/** A message of the AI SDK's `UIMessage` shape; the actor reads the last one and keeps its own history. */
const UiMessage = v.looseObject({
  id: v.optional(v.string()),
  role: v.picklist(['system', 'user', 'assistant'], 'must be "system", "user" or "assistant"'),
  parts: v.array(UiMessagePart),
});

/**
 * The body the AI SDK's `DefaultChatTransport` (`useChat`) posts by default:
 * `{id, messages, trigger, messageId}`, plus what its `body` option adds. Accepted by
 * `POST /agent/invoke` beside the chat request: the chat `id` is the session, the last message
 * (the user's) is the turn — its text parts the message, its file parts the attachments — and
 * the answer is the UI message stream unless `stream` is `false`. Unknown top-level keys are
 * rejected.
 */
export const UiChatRequest = v.pipe(
  v.strictObject({
    id: v.pipe(SessionId, v.description('The chat id (`useChat`): the session of the turn')),
    messages: v.pipe(
      v.array(UiMessage),
      v.minLength(1, 'must hold at least one message'),
      v.description(
        "The chat's messages; the last must be the user's — its text parts are the message, its file parts (data: or http(s) URLs) the attachments — or the assistant's with tool parts in state `approval-responded` (`addToolApprovalResponse`): the answers to the approvals the chat's run waits for. Earlier messages are ignored (the actor keeps the history of the session)",
      ),
    ),
    trigger: v.optional(
      v.picklist(['submit-message', 'regenerate-message'], 'must be "submit-message" or "regenerate-message"'),
    ),
    messageId: v.optional(v.string()),
    user_identifier: v.optional(
      v.pipe(
        ChatRequest.entries.user_identifier,
        v.description("The user (the transport's `body` option); `ai-sdk` when absent"),
      ),
    ),
    metadata: ChatRequest.entries.metadata,
    stream: v.optional(
      v.pipe(
        v.boolean(),
        v.description('`false` answers with the chat reply as JSON; the UI message stream otherwise'),
      ),
    ),
  }),
  v.title('UiChatRequest'),
);

/** A validated AI SDK chat request. */
export type UiChatRequest = v.InferOutput<typeof UiChatRequest>;
