import type { FinishReason } from '../invoke/chat-reply.js';
import type { ModelAttachment } from './model-attachment.js';

/** A tool call the model asks for; `arguments` is the raw JSON text the model wrote (it may be malformed). */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** One message of a conversation as the model sees it. */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string; readonly attachments?: readonly ModelAttachment[] }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ModelToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly content: string };

/** A tool offered to the model: its name, what it does and its arguments as JSON Schema. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** Token counts of one model call. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What one model call asks for. */
export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  /** `none` asks for a text answer even though tools are listed (the last step of the tool loop). */
  readonly toolChoice?: 'auto' | 'none';
  /** Aborted when the caller goes away; the call must then stop and reject. */
  readonly signal: AbortSignal;
  /** The W3C trace context (`traceparent`, `tracestate`) of the call's `chat` span, to send to the model server; empty without traces. */
  readonly traceHeaders?: Readonly<Record<string, string>>;
}

/** What one model call answers. */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
  /** The model that answered, when the server says; else the configured name. */
  readonly model?: string;
}

/** A piece of a streamed model call: text as it arrives, then the whole response once. */
export type ModelStreamPart =
  | { readonly type: 'text-delta'; readonly delta: string }
  | { readonly type: 'finish'; readonly response: ModelResponse };

/**
 * A language model behind the chat loop. `generate` answers at once; `stream` yields text as
 * it arrives and ends with exactly one `finish` part. Both reject with an `ActorError`
 * (504 `model_timeout`, 502 `model_error`) when the model fails, and stop when `signal` aborts.
 * @example
 * const model: ChatModel = createOfflineModel();
 * const reply = await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal });
 */
export interface ChatModel {
  /** The model name reported in the chat reply, e.g. `gpt-4o-mini` or `offline`. */
  readonly name: string;
  /** Who serves it, as the OpenTelemetry GenAI conventions name providers (`gen_ai.provider.name`, e.g. `openai`); `_OTHER` when unset. */
  readonly provider?: string;
  /** Asks the model for one whole answer (text and tool calls). */
  generate(request: ModelRequest): Promise<ModelResponse>;
  /** Asks the model for one answer as it comes: text deltas, tool calls, then its usage. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}
