import type { StoredMessage } from '../store/store.js';
import type { ChatRequest } from './chat-request.js';
import type { FinishReason, ToolCallRecord } from './chat-reply.js';

/**
 * What a chat handler reports while it works, for a streamed reply: text as it arrives, each
 * tool call with its arguments, then its result. `step-start` opens each model call.
 */
export type ChatEvent =
  | { readonly type: 'step-start' }
  | { readonly type: 'text-delta'; readonly delta: string }
  | { readonly type: 'tool-call'; readonly id: string; readonly name: string; readonly arguments: unknown }
  | { readonly type: 'tool-result'; readonly record: ToolCallRecord };

/** What a chat handler is given for one invoke. */
export interface ChatInput {
  readonly request: ChatRequest;
  readonly tenantId: string;
  readonly requestId: string;
  /** Aborted when the client goes away or the actor shuts down. */
  readonly signal: AbortSignal;
  /** The actor's current settings. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Set when the reply is streamed; a handler that never calls it is streamed as one piece at the end. */
  readonly onEvent?: (event: ChatEvent) => void;
  /**
   * Takes the turn's messages to store them with the invoke's stats record, in one transaction
   * (one statement on PostgreSQL) after the handler returns; the reply then says
   * `history_saved: false` if they could not be stored. Without it, a handler stores its
   * history itself.
   */
  readonly deferHistory?: (messages: readonly StoredMessage[]) => void;
}

/** What a chat handler answers; the route wraps it into the chat reply. */
export interface ChatResult {
  readonly content: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly finishReason: FinishReason;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly model: string;
  /** Extra facts for the reply's `metadata`, e.g. a history read that failed. */
  readonly metadata?: Record<string, unknown>;
}

/** Answers one chat turn; the agent loop is one, the offline reply another. */
export type ChatHandler = (input: ChatInput) => Promise<ChatResult>;
