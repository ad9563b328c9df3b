import { ActorError } from '../../core/actor-error.js';
import { continueRun } from '../../invoke/answer-invoke.js';
import type { TurnServices } from '../../invoke/turn-services.js';
import type { ApprovalAnswer, RunStatus } from '../../invoke/turn-runs.js';
import { actorRunsOf, statusOfStoredRun } from './actor-runs.js';

/**
 * Records one person's answer to a tool call the run `runId` of `tenantId` waits for; once it
 * was the last one, the run goes on in the background on this instance (`continueRun`). What
 * `POST /agent/runs/{id}/approvals/{approval_id}` and the owner's approvals panel both do.
 * Throws the answer's problem (`run_not_found`, `approval_not_found`, `approval_already_decided`,
 * `run_not_awaiting_input`).
 * @param services the actor's turn services and runs
 * @param tenantId the tenant the run must belong to
 * @param runId the run
 * @param answer the approval id and the decision, with an optional reason
 * @param decidedBy who decided (kept with the decision and logged)
 * @returns the run as it is now: `running` after the last answer, else still `awaiting_input`
 */
export async function decideRunApproval(
  services: TurnServices,
  tenantId: string,
  runId: string,
  answer: ApprovalAnswer,
  decidedBy: string,
): Promise<RunStatus> {
  const runs = actorRunsOf(services);
  const decided = await runs.answerApprovals(tenantId, { runId }, [answer], decidedBy);
  if ('waiting' in decided) return decided.waiting;
  continueRun(services, tenantId, decided);
  const now = await runs.read(runId);
  if (now === null) throw new ActorError('run_not_found', { detail: `No run ${runId} for this tenant` });
  return statusOfStoredRun(now);
}
