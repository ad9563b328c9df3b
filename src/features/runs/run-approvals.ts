import * as v from 'valibot';
import { ActorError } from '../../core/actor-error.js';
import { canonicalJson } from '../../invoke/idempotency.js';
import type { DecidedToolCall } from '../../invoke/chat-handler.js';
import type { ChatReply } from '../../invoke/chat-reply.js';
import { ApprovalAnswer as ApprovalAnswerSchema } from '../../invoke/chat-request.js';
import type { RunApprovalAnswer } from '../../invoke/turn-runs.js';

/** One tool call a run asked a person about, as its row keeps it (`StoredRun.approvals`). */
export interface RunApproval {
  readonly id: string;
  readonly tool_call_id: string;
  readonly tool: string;
  /** The arguments asked about: a decision is bound to exactly these (compared as canonical JSON). */
  readonly arguments: unknown;
  readonly asked_at_ms: number;
  readonly decision?: {
    readonly approved: boolean;
    readonly reason?: string;
    /** Who decided: the tenant's user or the caller that sent the answer. */
    readonly decided_by: string;
    readonly decided_at_ms: number;
  };
}

/** Why a person denied (or approved) a tool call: told to the model with a denial; the rule of `ApprovalAnswer.reason`. */
export const ApprovalReason = v.unwrap(ApprovalAnswerSchema.entries.reason);

/** A validated approval reason. */
export type ApprovalReason = v.InferOutput<typeof ApprovalReason>;

/** Who decides a call left unanswered past `APPROVAL_TIMEOUT_S`: it counts as denied, `approval_expired`. */
export const EXPIRY = 'timeout';

/** One decision, as the audit records it (log line `tool_approval_decided`, metric `actor_tool_approvals_total`). */
export interface ApprovalDecided {
  readonly id: string;
  readonly tool: string;
  readonly decision: 'approved' | 'denied' | 'expired';
  readonly decidedBy: string;
  readonly waitedMs: number;
}

/** The approvals a run asks for, from the reply that paused it (`status: "awaiting_input"`), as its row keeps them. */
export function approvalsOfReply(reply: ChatReply, askedAtMs: number): string {
  const approvals: RunApproval[] = (reply.approvals ?? []).map((pending) => ({
    id: pending.id,
    tool_call_id: pending.tool_call_id,
    tool: pending.tool,
    arguments: pending.arguments,
    asked_at_ms: askedAtMs,
  }));
  return JSON.stringify(approvals);
}

/**
 * The run's approvals with `answers` recorded, by `decidedBy` at `nowMs`. Throws the problem an
 * answer has: 404 `approval_not_found` for an id the run never asked about, 409
 * `approval_already_decided` for one decided before, 409 `approval_arguments_changed` when the
 * answer names arguments other than those asked about.
 */
export function decideApprovals(
  stored: string,
  answers: readonly RunApprovalAnswer[],
  decidedBy: string,
  nowMs: number,
): { readonly approvals: string; readonly complete: boolean; readonly decisions: readonly ApprovalDecided[] } {
  const approvals = JSON.parse(stored) as RunApproval[];
  const decisions: ApprovalDecided[] = [];
  const byId = new Map(approvals.map((approval) => [approval.id, approval]));
  for (const answer of answers) {
    const approval = byId.get(answer.id);
    if (approval === undefined)
      throw new ActorError('approval_not_found', {
        detail: `This run asked for no approval ${answer.id}; it waits for ${approvals
          .filter((pending) => pending.decision === undefined)
          .map((pending) => pending.id)
          .join(', ')}`,
      });
    if (approval.decision !== undefined)
      throw new ActorError('approval_already_decided', {
        detail: `Approval ${answer.id} was ${approval.decision.approved ? 'approved' : 'denied'} already`,
      });
    if (answer.arguments !== undefined && canonicalJson(answer.arguments) !== canonicalJson(approval.arguments))
      throw new ActorError('approval_arguments_changed', {
        detail: `The arguments of approval ${answer.id} are not those the run asked about`,
      });
    const decision: NonNullable<RunApproval['decision']> =
      answer.reason === undefined
        ? { approved: answer.approved, decided_by: decidedBy, decided_at_ms: nowMs }
        : { approved: answer.approved, reason: answer.reason, decided_by: decidedBy, decided_at_ms: nowMs };
    byId.set(answer.id, { ...approval, decision });
    decisions.push({
      id: approval.id,
      tool: approval.tool,
      decision: answer.approved ? 'approved' : decidedBy === EXPIRY ? 'expired' : 'denied',
      decidedBy,
      waitedMs: nowMs - approval.asked_at_ms,
    });
  }
  const decided = approvals.map((approval) => byId.get(approval.id) ?? approval);
  return {
    approvals: JSON.stringify(decided),
    complete: decided.every((approval) => approval.decision !== undefined),
    decisions,
  };
}

/** The decided calls of a run whose approvals are all decided, for the turn that continues it. */
export function decidedCalls(stored: string): DecidedToolCall[] {
  return (JSON.parse(stored) as RunApproval[]).map((approval) => {
    const call: DecidedToolCall = {
      approvalId: approval.id,
      toolCallId: approval.tool_call_id,
      name: approval.tool,
      arguments: approval.arguments,
      approved: approval.decision?.approved === true,
    };
    const reason = approval.decision?.reason;
    return reason === undefined ? call : { ...call, reason };
  });
}

/** The calls a run still waits for, as its row keeps them. */
export function pendingApprovals(stored: string): RunApproval[] {
  return (JSON.parse(stored) as RunApproval[]).filter((approval) => approval.decision === undefined);
}

/** The ids of the calls a run still waits for. */
export function pendingApprovalIds(stored: string): string[] {
  return pendingApprovals(stored).map((approval) => approval.id);
}

/** The ids of every call a run asked about, decided or not. */
export function askedApprovalIds(stored: string): string[] {
  return (JSON.parse(stored) as RunApproval[]).map((approval) => approval.id);
}
