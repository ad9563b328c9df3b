import type { ChatHandler } from '../invoke/chat-handler.js';
import { runChatLoop } from './chat-loop.js';
import { incomingMessage } from './incoming-message.js';
import { createOfflineModel } from './offline-model.js';
import { toolRunContextOf } from './tool-run-context-of.js';

const offlineModel = createOfflineModel();

/**
 * A stateless chat handler on the offline model: no history, no tools. The default agent of
 * `createActorApp` also answers with the offline model when none is configured, and keeps
 * history and tools; this one is for tests and for actors that want a fixed local reply.
 */
export const offlineChatHandler: ChatHandler = async function offlineChatHandler(input) {
  const { request, onEvent } = input;
  const result = await runChatLoop({
    model: offlineModel,
    tools: [],
    maxToolSteps: 0,
    messages: [incomingMessage(request)],
    context: toolRunContextOf(input),
    ...(onEvent ? { onEvent } : {}),
  });
  return {
    content: result.content,
    toolCalls: result.toolCalls,
    finishReason: result.finishReason,
    usage: result.usage,
    model: result.model,
  };
};
