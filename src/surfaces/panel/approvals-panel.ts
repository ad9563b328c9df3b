import * as v from 'valibot';
import type { ActorContext } from '../../context/actor-context.js';
import { DEFAULT_TENANT, headerTenant } from '../../core/tenant-id.js';
import { actorRunsOf } from '../../features/runs/actor-runs.js';
import { fromRunStore } from '../../features/runs/actor-runs.js';
import { decideRunApproval } from '../../features/runs/run-routes.js';
import { ApprovalReason, pendingApprovals } from '../../features/runs/run-approvals.js';
import { renderApprovalsPanelPage } from './approvals-panel-page.js';
import { panelAction, type Panel } from './panel-definition.js';

/** How many waiting runs the panel lists, the longest waiting first. */
const LISTED_RUNS = 50;

/** Who the decisions of this panel are recorded as (`decided_by`): the owner, whose panel it is. */
const PANEL_DECIDER = 'owner';

/** An id as the panel's form takes it: a run id (`inv_…`) or an approval id (`apr_…`). */
const PanelId = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(200, 'must be at most 200 characters'),
);

/** The tenant whose approvals the panel shows: `X-Tenant-Id` (the owner's, behind the platform's relay), else `default`. */
function tenantOfPanel(request: Request): string {
  return headerTenant(request.headers.get('X-Tenant-Id') ?? undefined) ?? DEFAULT_TENANT;
}

/** The pending approvals of the tenant's waiting runs, keyed by approval id (what the page's table lists). */
async function pendingOfTenant(ctx: ActorContext, tenantId: string) {
  const runs = await fromRunStore(() => actorRunsOf(ctx).awaiting(tenantId, LISTED_RUNS));
  const approvals: Record<string, unknown> = {};
  for (const run of runs)
    for (const approval of pendingApprovals(run.approvals ?? '[]'))
      approvals[approval.id] = {
        run_id: run.id,
        session_id: run.sessionId,
        tool: approval.tool,
        arguments: approval.arguments,
        asked_at: new Date(approval.asked_at_ms).toISOString(),
      };
  return { tenant_id: tenantId, waiting_runs: runs.length, pending: Object.keys(approvals).length, approvals };
}

/**
 * The owner's approvals panel: the tool calls the tenant's runs wait for (tool, arguments, run,
 * session, when asked; the page shows each with Approve and Deny), and the action `decide` that approves or denies one, recorded as decided
 * by the owner; after the last answer of a run, it goes on in the background, as after
 * `POST /agent/runs/{id}/approvals/{approval_id}`.
 * @param options another slug or title
 * @example
 * panelRouter({ panels: [statsPanel(), approvalsPanel()] });
 */
export function approvalsPanel(options: { slug?: string; title?: string } = {}): Panel {
  return {
    slug: options.slug ?? 'approvals',
    title: options.title ?? 'Approvals',
    description: 'Tool calls waiting for a person: approve or deny each one.',
    data: (ctx, request) => pendingOfTenant(ctx, tenantOfPanel(request)),
    page: renderApprovalsPanelPage,
    actions: {
      decide: panelAction({
        title: 'Approve or deny',
        description:
          'Approves (checked) or denies one pending call, by its run id and approval id; a denial tells the model the reason.',
        payload: v.strictObject({
          run_id: PanelId,
          approval_id: PanelId,
          approved: v.boolean('must be true or false'),
          reason: v.optional(ApprovalReason),
        }),
        async run({ run_id, approval_id, approved, reason }, ctx, request) {
          const answer =
            reason === undefined || reason === ''
              ? { id: approval_id, approved }
              : { id: approval_id, approved, reason };
          const run = await decideRunApproval(ctx, tenantOfPanel(request), run_id, answer, PANEL_DECIDER);
          return { run_id, approval_id, decision: approved ? 'approved' : 'denied', state: run.state };
        },
      }),
    },
  };
}
