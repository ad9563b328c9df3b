// The A2A requests the @a2a-js/sdk client tests send, in the SDK's own types.
import { Role, type Message, type SendMessageRequest } from '@a2a-js/sdk';

/**
 * A user message of one text part, as an A2A client sends it.
 * @param text the text
 * @param more fields to set besides, e.g. `contextId`
 */
export const userMessage = (text: string, more: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...more,
});

/**
 * The parameters of `sendMessage` / `sendMessageStream` for one message.
 * @param message the message
 * @param returnImmediately answer at once with the task `working` (a background run)
 */
export const send = (message: Message, returnImmediately = false): SendMessageRequest => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});
