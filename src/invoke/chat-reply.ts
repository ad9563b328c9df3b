import * as v from 'valibot';

/** Why the model stopped. */
export const FinishReason = v.picklist(['stop', 'length', 'tool_calls', 'content_filter', 'error']);

/** Token counts of one invoke. */
const Usage = v.object({
  input_tokens: v.number(),
  output_tokens: v.number(),
  total_tokens: v.number(),
});

/** One tool call made while answering. */
export const ToolCallRecord = v.object({
  id: v.string(),
  name: v.string(),
  arguments: v.unknown(),
  output: v.unknown(),
  status: v.picklist(['ok', 'error']),
  error: v.optional(v.string()),
});

/** A tool call waiting for a person's approval: answer it with its `id` (`approvals` of the next invoke, or `POST /agent/runs/{run}/approvals/{id}`). */
const PendingApproval = v.object({
  id: v.string(),
  tool_call_id: v.string(),
  tool: v.string(),
  arguments: v.unknown(),
});

/** The JSON reply of `POST /agent/invoke` (DESIGN §3). */
export const ChatReply = v.object({
  id: v.string(),
  session_id: v.string(),
  status: v.pipe(
    v.picklist(['completed', 'awaiting_input']),
    v.description('`awaiting_input`: the run waits for a person to approve or deny the tool calls in `approvals`'),
  ),
  approvals: v.optional(v.array(PendingApproval)),
  message: v.object({ id: v.string(), role: v.literal('assistant'), content: v.string() }),
  tool_calls: v.array(ToolCallRecord),
  finish_reason: FinishReason,
  usage: Usage,
  model: v.string(),
  created_at: v.string(),
  latency_ms: v.number(),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});

/** A chat reply as sent. */
export type ChatReply = v.InferOutput<typeof ChatReply>;
/** One tool call as reported in a reply. */
export type ToolCallRecord = v.InferOutput<typeof ToolCallRecord>;
/** Why the model stopped. */
export type FinishReason = v.InferOutput<typeof FinishReason>;
