import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

/** The state `useChat` keeps in React, kept in plain fields: what `@ai-sdk/react`'s `Chat` adds to `AbstractChat`. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((current, at) => (at === index ? message : current));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * A chat as `useChat` runs it, outside React: the `ai` package's `AbstractChat` with its state in
 * plain fields. Takes what `useChat` takes (id, transport, `sendAutomaticallyWhen`, `generateId`…)
 * but the initial messages.
 */
export class PlainChat extends AbstractChat<UIMessage> {
  /** @param init the chat's options, as `useChat` gets them, without `messages` */
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>) {
    super({ ...init, state: new PlainChatState() });
  }
}
