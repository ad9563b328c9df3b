import type { StoredMessage } from '../store/store.js';
import type { ChatMessage, ModelToolCall } from './chat-model.js';

interface StoredToolCalls {
  readonly tool_calls: readonly ModelToolCall[];
}

interface StoredToolResult {
  readonly tool_call_id: string;
  readonly name: string;
}

const isToolCall = (value: unknown): value is ModelToolCall =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ModelToolCall).id === 'string' &&
  typeof (value as ModelToolCall).name === 'string' &&
  typeof (value as ModelToolCall).arguments === 'string';

function toolCallsOf(message: StoredMessage): readonly ModelToolCall[] {
  const calls = (message.data as Partial<StoredToolCalls> | undefined)?.tool_calls;
  return Array.isArray(calls) ? calls.filter(isToolCall) : [];
}

function toolResultOf(message: StoredMessage): StoredToolResult | undefined {
  const data = message.data as Partial<StoredToolResult> | undefined;
  return typeof data?.tool_call_id === 'string' && typeof data.name === 'string'
    ? { tool_call_id: data.tool_call_id, name: data.name }
    : undefined;
}

/**
 * Turns stored history into model messages. The window of the last N messages may cut a tool
 * exchange in two; an assistant's tool calls are kept only together with all their results,
 * and a result without its call is dropped, because model servers refuse either half alone.
 * `answeredNow` names the calls a turn that continues after approvals answers first: their
 * message is kept without their results.
 */
export function messagesFromHistory(
  stored: readonly StoredMessage[],
  answeredNow: ReadonlySet<string> = new Set(),
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let index = 0; index < stored.length; ) {
    const message = stored[index]!;
    index += 1;
    if (message.role === 'tool') continue;
    if (message.role !== 'assistant') {
      messages.push({ role: message.role, content: message.content });
      continue;
    }
    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      messages.push({ role: 'assistant', content: message.content });
      continue;
    }
    const results: ChatMessage[] = [];
    for (; index < stored.length && stored[index]!.role === 'tool'; index += 1) {
      const result = toolResultOf(stored[index]!);
      if (result !== undefined && calls.some((call) => call.id === result.tool_call_id)) {
        results.push({
          role: 'tool',
          toolCallId: result.tool_call_id,
          name: result.name,
          content: stored[index]!.content,
        });
      }
    }
    const answered = calls.every(
      (call) =>
        answeredNow.has(call.id) || results.some((result) => result.role === 'tool' && result.toolCallId === call.id),
    );
    if (answered) messages.push({ role: 'assistant', content: message.content, toolCalls: calls }, ...results);
    else if (message.content !== '') messages.push({ role: 'assistant', content: message.content });
  }
  return messages;
}

/**
 * Turns the messages of one turn into history records, in order, all stamped `createdAt`; the
 * last one (the answer) gets `answerId`, the id the reply gives its message. A user message
 * keeps its text and the name and type of each attachment, never the attachment's bytes or URL:
 * later turns send the model the text only.
 */
export function historyFromMessages(
  messages: readonly ChatMessage[],
  createdAt: string,
  answerId: string,
): StoredMessage[] {
  return messages.map((message, index) => {
    const id = index === messages.length - 1 ? answerId : `msg_${crypto.randomUUID()}`;
    switch (message.role) {
      case 'tool':
        return {
          id,
          role: 'tool',
          content: message.content,
          data: { tool_call_id: message.toolCallId, name: message.name },
          createdAt,
        };
      case 'assistant':
        return message.toolCalls && message.toolCalls.length > 0
          ? {
              id,
              role: 'assistant',
              content: message.content,
              data: {
                tool_calls: message.toolCalls.map(({ id: callId, name, arguments: args }) => ({
                  id: callId,
                  name,
                  arguments: args,
                })),
              },
              createdAt,
            }
          : { id, role: 'assistant', content: message.content, createdAt };
      case 'user':
        return message.attachments && message.attachments.length > 0
          ? {
              id,
              role: 'user',
              content: message.content,
              data: { attachments: message.attachments.map(({ name, mimeType }) => ({ name, mime_type: mimeType })) },
              createdAt,
            }
          : { id, role: 'user', content: message.content, createdAt };
      default:
        return { id, role: message.role, content: message.content, createdAt };
    }
  });
}

/**
 * Whether the history ends with an assistant's tool calls not all answered: a turn that paused
 * for a person's approval of them (a turn that ends otherwise ends with its answer).
 */
export function endsWaitingForApproval(stored: readonly StoredMessage[]): boolean {
  let index = stored.length - 1;
  const answered = new Set<string>();
  for (; index >= 0 && stored[index]!.role === 'tool'; index -= 1) {
    const result = toolResultOf(stored[index]!);
    if (result !== undefined) answered.add(result.tool_call_id);
  }
  const last = stored[index];
  return last?.role === 'assistant' && toolCallsOf(last).some((call) => !answered.has(call.id));
}
