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
  | {
      readonly type: 'tool-call';
      readonly id: string;
      readonly name: string;
      readonly arguments: unknown;
      /** The tool declared that it only reads (a run it ran in may be retried after its instance died). */
      readonly readOnly?: boolean;
      /** A call a person approved, run now (`ChatInput.decided`): the stream that asked for the approval opened it already. */
      readonly decided?: boolean;
    }
  | {
      readonly type: 'tool-result';
      readonly record: ToolCallRecord;
      /** A person denied the call (`ChatInput.decided`): the model was told so. */
      readonly denied?: boolean;
    }
  /** A tool call that waits for a person's approval (after its `tool-call`); the run then waits. */
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string };

/**
 * A new approval id for a call of the run `runId` (`apr_<run id>_<random>`): an answer names
 * its run by itself, so it is checked against that run's tenant and session.
 * @param runId the run's id, or undefined for a handler run outside a run
 */
export function newApprovalId(runId: string | undefined): string {
  const random = crypto.randomUUID().replaceAll('-', '');
  return runId === undefined ? `apr_${random}` : `apr_${runId}_${random}`;
}

/** The run an approval id names (`newApprovalId`), or undefined for an id that names none. */
export function runIdOfApproval(approvalId: string): string | undefined {
  const match = /^apr_(inv_[0-9A-Za-z-]+)_[0-9a-f]{32}$/.exec(approvalId);
  return match?.[1];
}

/** A tool call the model made that waits for a person's approval before it runs. */
export interface PendingToolCall {
  /** The approval's id, which the answer names. */
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly name: string;
  /** The arguments the model gave (parsed JSON). */
  readonly arguments: unknown;
}

/** A pending tool call with a person's decision: run it (`approved`), or tell the model it was denied (with `reason`). */
export interface DecidedToolCall extends PendingToolCall {
  readonly approved: boolean;
  readonly reason?: string;
}

/** What a chat handler is given for one invoke. */
export interface ChatInput {
  readonly request: ChatRequest;
  readonly tenantId: string;
  readonly requestId: string;
  /** The id of the reply's message: a handler that keeps history stores its answer under this id, so the reply and the history name the message alike. */
  readonly messageId: string;
  /** The id of the invoke's run (`inv_…`): the approvals it asks for carry it (`newApprovalId`). */
  readonly runId?: string;
  /** Aborted when the client goes away or the actor shuts down. */
  readonly signal: AbortSignal;
  /** The actor's current settings. */
  readonly settings: Readonly<Record<string, unknown>>;
  /**
   * The session's last messages, oldest first, which the turn read once before calling the
   * handler (`HISTORY_LIMIT` of them for the agent; none for a chat handler of the actor's own,
   * or when the read failed, which the reply then says with `history_loaded: false`). The
   * handler keeps history by returning the turn's messages (`ChatResult.history`), never by
   * writing the store.
   */
  readonly history?: readonly StoredMessage[];
  /**
   * A valid OAuth access token of this invoke's tenant at `provider`, for the handler's tools
   * (`ToolRunContext.oauthToken`); a turn always sets it. Rejects with `ActorError` 409
   * `oauth_not_connected` when the tenant has not connected the provider.
   */
  readonly oauthToken?: (provider: string) => Promise<string>;
  /** Set when the reply is streamed; a handler that never calls it is streamed as one piece at the end. */
  readonly onEvent?: (event: ChatEvent) => void;
  /**
   * Set when the turn continues a run that waited for approvals: the decided calls, which the
   * handler runs (or answers as denied) before it goes on; the request then brings no new
   * message, and the history ends with the calls' assistant message.
   */
  readonly decided?: readonly DecidedToolCall[];
}

/** What a chat handler answers; the turn wraps it into the chat reply. */
export interface ChatResult {
  readonly content: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly finishReason: FinishReason;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly model: string;
  /**
   * The turn's messages to keep in the session's history (the new message, tool calls and
   * results, the answer). They are stored with the invoke's stats record, in one transaction;
   * the reply says `history_saved: false` when they could not be. Without them nothing is kept.
   * The answer is stored under the input's `messageId`.
   */
  readonly history?: readonly StoredMessage[];
  /**
   * False when the session's earlier messages could not be read: the reply says
   * `history_loaded: false`. The turn says so by itself when its own read failed.
   */
  readonly historyLoaded?: boolean;
  /** Extra facts of the handler's own for the reply's `metadata`. */
  readonly metadata?: Record<string, unknown>;
  /** Tool calls waiting for a person's approval: the turn stops there, and its run waits (`awaiting_input`). */
  readonly pending?: readonly PendingToolCall[];
}

/** Answers one chat turn; the agent loop is one, the offline reply another. */
export type ChatHandler = (input: ChatInput) => Promise<ChatResult>;
