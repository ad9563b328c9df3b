import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ChatReply } from '../../invoke/chat-reply.js';
import { ApprovalAnswer } from '../../invoke/chat-request.js';
import type { RunStatus } from '../../invoke/turn-runs.js';
import { McpClientRequestFailed } from './mcp-elicitations.js';

/** A tool call a paused run waits for, as the chat reply lists it. */
export type PendingApproval = NonNullable<ChatReply['approvals']>[number];

/** What an elicitation asks a person about one tool call: `{ approved, reason? }`, generated from `ApprovalAnswer`. */
function requestedSchemaOf(answer: typeof ApprovalAnswer) {
  const {
    $schema: _schema,
    additionalProperties: _additional,
    ...schema
  } = toJsonSchema(v.omit(answer, ['id']), { errorMode: 'ignore' }) as Record<string, unknown>;
  return schema;
}

const APPROVAL_REQUESTED_SCHEMA = requestedSchemaOf(ApprovalAnswer);

/** The result of an `elicitation/create`, as far as an approval reads it. */
const ElicitationResult = v.object({
  action: v.picklist(['accept', 'decline', 'cancel']),
  content: v.optional(v.record(v.string(), v.unknown())),
});

/** An elicitation the client answered with content that is no approval answer. */
class InvalidElicitationAnswer extends Error {}

/**
 * The params of the `elicitation/create` that asks a person about one tool call: a message
 * naming the actor, the tool and its arguments, and the requested schema `{ approved, reason? }`.
 * @param actorName the actor's name
 * @param approval the pending call
 */
function approvalElicitation(actorName: string, approval: PendingApproval): Record<string, unknown> {
  return {
    mode: 'form',
    message: `${actorName} wants to call the tool ${approval.tool} with ${JSON.stringify(approval.arguments)}. Approve this call?`,
    requestedSchema: APPROVAL_REQUESTED_SCHEMA,
  };
}

/**
 * The answer an elicitation result gives one approval: `accept` with content is that decision
 * (validated as `ApprovalAnswer`; other content throws `InvalidElicitationAnswer`), `decline` is
 * a denial with the reason `declined`, `cancel` one with `cancelled`.
 * @param approval the pending call asked about
 * @param result the client's `elicitation/create` result
 */
function approvalOfElicitation(approval: PendingApproval, result: unknown): ApprovalAnswer {
  const parsed = v.safeParse(ElicitationResult, result);
  if (!parsed.success) throw new InvalidElicitationAnswer('The elicitation result has no known action');
  const { action, content } = parsed.output;
  if (action === 'decline') return { id: approval.id, approved: false, reason: 'declined' };
  if (action === 'cancel') return { id: approval.id, approved: false, reason: 'cancelled' };
  const answer = v.safeParse(ApprovalAnswer, { ...content, id: approval.id });
  if (!answer.success) throw new InvalidElicitationAnswer('The elicitation was accepted without { approved, reason? }');
  return answer.output;
}

/**
 * The tool calls a paused run still waits for: those its reply listed, but the ones answered.
 * @param paused the reply that paused, or the run that waits for the rest of its answers
 * @param answered the approval ids answered already
 */
export function pendingApprovals(paused: ChatReply | RunStatus, answered: readonly string[]): PendingApproval[] {
  const reply = 'state' in paused ? paused.reply : paused;
  return (reply?.approvals ?? []).filter((approval) => !answered.includes(approval.id));
}

/** Sends one `elicitation/create` with these params and resolves with the client's result. */
export type Elicit = (params: Record<string, unknown>) => Promise<unknown>;

/**
 * Asks a person about each pending call, one elicitation after another, and returns the
 * answers; undefined when the client cannot answer them (it answered an elicitation with an
 * error or with content that is no approval answer), so the caller returns the pending calls
 * instead. The call's cancel rejects.
 * @param actorName the actor's name, for the question
 * @param pending the calls to ask about
 * @param elicit sends one elicitation
 * @param onFailure hears why the client could not answer
 */
export async function elicitApprovals(
  actorName: string,
  pending: readonly PendingApproval[],
  elicit: Elicit,
  onFailure: (error: Error) => void,
): Promise<ApprovalAnswer[] | undefined> {
  const answers: ApprovalAnswer[] = [];
  for (const approval of pending) {
    try {
      answers.push(approvalOfElicitation(approval, await elicit(approvalElicitation(actorName, approval))));
    } catch (error) {
      if (!(error instanceof McpClientRequestFailed || error instanceof InvalidElicitationAnswer)) throw error;
      onFailure(error);
      return undefined;
    }
  }
  return answers;
}

/** The `structuredContent` of a `chat` result whose run waits for approvals. */
interface AwaitingInputContent {
  readonly status: 'awaiting_input';
  readonly run_id: string;
  readonly session_id: string;
  readonly approvals: readonly PendingApproval[];
  [key: string]: unknown;
}

/**
 * The `chat` result of a run that waits for approvals: `structuredContent` says
 * `awaiting_input` with the run, its session and the pending calls; the text says how to
 * answer (`chat` again with `approvals` and the same `session_id`).
 * @param paused the reply that paused, or the run that waits for the rest of its answers
 * @param answered the approval ids answered already (by the call that got `paused` back)
 */
export function awaitingInputResult(paused: ChatReply | RunStatus, answered: readonly string[]) {
  const approvals = pendingApprovals(paused, answered);
  const structuredContent: AwaitingInputContent = {
    status: 'awaiting_input',
    run_id: paused.id,
    session_id: paused.session_id,
    approvals,
  };
  const calls = approvals.map((approval) => `${approval.id}: ${approval.tool} ${JSON.stringify(approval.arguments)}`);
  const text = [
    `The run ${paused.id} waits for a person to approve or deny ${approvals.length} tool call${approvals.length === 1 ? '' : 's'}:`,
    ...calls,
    `Answer by calling chat again with {"session_id": ${JSON.stringify(paused.session_id)}, "approvals": [{"id": "<approval id>", "approved": true or false, "reason": "<optional>"}]}.`,
  ].join('\n');
  return { content: [{ type: 'text' as const, text }], structuredContent };
}
