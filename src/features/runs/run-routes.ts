import type { Context } from 'hono';
import * as v from 'valibot';
import { readJson, validBody } from '../../core/read-json-body.js';
import { storableText } from '../../invoke/storable-text.js';
import { ActorError } from '../../core/actor-error.js';
import { DEFAULT_TENANT, headerTenant, parseTenantId } from '../../core/tenant-id.js';
import type { ActorEnv } from '../../context/actor-context.js';
import { INVOKE_PATH, SessionId } from '../../invoke/chat-request.js';
import { RUNS_PATH, RunStatus } from '../../invoke/turn-runs.js';
import { UI_MESSAGE_STREAM_HEADERS } from '../../invoke/ui-message-stream.js';
import { defineRoute } from '../../route-kit/actor-route.js';
import { eventStream, problem, schemaOf, TYPED_EVENT, tenantHeader } from '../../route-kit/openapi-parts.js';
import type { StoredRun } from '../../store/store.js';
import { continueRun } from '../../invoke/answer-invoke.js';
import type { TurnServices } from '../../invoke/turn-services.js';
import type { RunApprovalAnswer } from '../../invoke/turn-runs.js';
import { actorRunsOf, fromRunStore, statusOfStoredRun, type ActorRuns } from './actor-runs.js';
import { ApprovalReason } from './run-approvals.js';

/** A stream position: a whole number of parts, from 0. */
const CURSOR = /^\d{1,15}$/;

const runTenantHeader = tenantHeader(
  'The tenant (set by the platform), else `default`: a run of another tenant is not found',
);

const runIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The run id: the `id` of the invoke's reply (`inv_…`)",
  schema: { type: 'string', minLength: 1, maxLength: 128 },
} as const;

const lastEventIdHeader = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description: 'The `id` of the last part received: the stream resumes after it (wins over `after`)',
  schema: { type: 'string', pattern: '^\\d{1,15}$' },
} as const;

const afterQuery = {
  name: 'after',
  in: 'query',
  required: false,
  description: 'The number of the last part received (0: from the start)',
  schema: { type: 'string', pattern: '^\\d{1,15}$' },
} as const;

const notFound = problem("No run of this id for this tenant (another tenant's run included)", ['run_not_found']);
const storeUnavailable = problem('Database unreachable', ['store_unavailable']);

const sseContent = eventStream(
  TYPED_EVENT,
  'One event per AI SDK UI message stream part (JSON in `data`, its number in `id`), in order, each once; ends with `data: [DONE]` when the run has ended',
);

/** The tenant of a run route: `X-Tenant-Id`, else `default` (400 `invalid_header` when malformed). */
function tenantOf(c: Context<ActorEnv>): string {
  return headerTenant(c.req.header('X-Tenant-Id')) ?? DEFAULT_TENANT;
}

/** The run of `id` when it belongs to `tenantId`; 404 `run_not_found` otherwise, whoever's run it is. */
async function tenantRun(runs: ActorRuns, id: string, tenantId: string): Promise<StoredRun> {
  const run = id.length > 128 ? null : await fromRunStore(() => runs.read(id));
  if (run === null || run.tenantId !== tenantId)
    throw new ActorError('run_not_found', { detail: `No run ${id.slice(0, 128)} for this tenant` });
  return run;
}

/**
 * Where a reconnect starts: `Last-Event-ID` (what an EventSource sends), else `?after=`, else 0.
 * Each one given must be well-formed, the one that does not win included (400 `invalid_run_cursor`).
 */
function streamCursor(c: Context<ActorEnv>): number {
  const lastEventId = cursorOf('Last-Event-ID', c.req.header('Last-Event-ID'));
  const after = cursorOf('after', c.req.query('after'));
  return lastEventId ?? after ?? 0;
}

/** A cursor given as `name`: a whole number from 0, or `undefined` when not given. */
function cursorOf(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!CURSOR.test(value))
    throw new ActorError('invalid_run_cursor', {
      detail: `${name} must be the number of the last part received (a whole number from 0), got ${JSON.stringify(value.slice(0, 40))}`,
    });
  return Number(value);
}

/** `GET /agent/runs/{id}`: a run's state, times, usage, and its reply or problem once ended. */
export const runStatusRoute = defineRoute(
  {
    method: 'get',
    path: `${RUNS_PATH}/{id}`,
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'getRun',
      summary: 'A run: its state, times, usage, and its reply or problem',
      parameters: [runIdParameter, runTenantHeader],
      responses: {
        200: {
          description: 'The run',
          content: { 'application/json': { schema: schemaOf(RunStatus) } },
        },
        400: problem('Malformed X-Tenant-Id', ['invalid_header']),
        404: notFound,
        503: storeUnavailable,
      },
    },
  },
  (ctx) =>
    async function getRun(c) {
      const tenantId = tenantOf(c);
      const run = await tenantRun(actorRunsOf(ctx), c.req.param('id') ?? '', tenantId);
      return c.json(statusOfStoredRun(run));
    },
);

/** `GET /agent/runs/{id}/stream`: the run's parts after the cursor, then the live ones, each once. */
export const runStreamRoute = defineRoute(
  {
    method: 'get',
    path: `${RUNS_PATH}/{id}/stream`,
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'streamRun',
      summary: "Reconnect to a run's stream, from any replica",
      parameters: [runIdParameter, runTenantHeader, lastEventIdHeader, afterQuery],
      responses: {
        200: { description: 'The stream of the run from the cursor on', content: sseContent },
        400: problem('Malformed Last-Event-ID, after or X-Tenant-Id', ['invalid_run_cursor', 'invalid_header']),
        404: notFound,
        503: storeUnavailable,
      },
    },
  },
  (ctx) =>
    async function streamRun(c) {
      const after = streamCursor(c);
      const tenantId = tenantOf(c);
      const runs = actorRunsOf(ctx);
      const run = await tenantRun(runs, c.req.param('id') ?? '', tenantId);
      return c.body(runs.follow(run, after, c.env.keepInFlight()), 200, UI_MESSAGE_STREAM_HEADERS);
    },
);

/** `POST /agent/runs/{id}/cancel`: stops a run in progress, on whichever replica runs it; idempotent. */
export const cancelRunRoute = defineRoute(
  {
    method: 'post',
    path: `${RUNS_PATH}/{id}/cancel`,
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'cancelRun',
      summary: 'Cancel a run',
      parameters: [runIdParameter, runTenantHeader],
      responses: {
        202: {
          description:
            'The cancel is taken: the run stops within 2 s (at once on its own replica) and ends `cancelled`; the run as it is now. A run already cancelled answers the same',
          content: { 'application/json': { schema: schemaOf(RunStatus) } },
        },
        400: problem('Malformed X-Tenant-Id', ['invalid_header']),
        404: notFound,
        409: problem('The run already ended (completed or failed); the detail names its state', ['run_finished']),
        503: storeUnavailable,
      },
    },
  },
  (ctx) =>
    async function cancelRun(c) {
      const tenantId = tenantOf(c);
      const runs = actorRunsOf(ctx);
      const run = await tenantRun(runs, c.req.param('id') ?? '', tenantId);
      if (run.state === 'completed' || run.state === 'failed')
        throw new ActorError('run_finished', { detail: `The run already ended: state ${run.state}` });
      const after = run.state === 'cancelled' ? run : await fromRunStore(() => runs.cancel(run.id));
      return c.json(statusOfStoredRun(after ?? run), 202);
    },
);

/**
 * `GET /agent/invoke/{chat_id}/stream`: what the AI SDK's `useChat({ resume: true })` asks for
 * after a reload (its default reconnect request): the stream of the chat's run in progress,
 * from its first part; 204 when none is.
 */
export const resumeChatStreamRoute = defineRoute(
  {
    method: 'get',
    path: `${INVOKE_PATH}/{chat_id}/stream`,
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'resumeChatStream',
      summary: "Resume a chat's stream in progress (the AI SDK's useChat resume)",
      parameters: [
        {
          name: 'chat_id',
          in: 'path',
          required: true,
          description: "The chat's id (`useChat`'s `id`), which is the session id",
          schema: schemaOf(SessionId),
        },
        runTenantHeader,
        lastEventIdHeader,
        afterQuery,
      ],
      responses: {
        200: { description: 'The stream of the run in progress, from its first part', content: sseContent },
        204: { description: 'No run of this chat is in progress' },
        400: problem('Malformed Last-Event-ID, after or X-Tenant-Id', ['invalid_run_cursor', 'invalid_header']),
        422: problem('Malformed chat id', ['validation_failed']),
        503: storeUnavailable,
      },
    },
  },
  (ctx) =>
    async function resumeChatStream(c) {
      const runs = actorRunsOf(ctx);
      const tenantId = tenantOf(c);
      // A session id has the rules of a tenant id (`SessionId`).
      const chatId = parseTenantId(c.req.param('chat_id') ?? '', '/chat_id', 'The chat id in the path is malformed');
      const after = streamCursor(c);
      const run = await fromRunStore(() => runs.active(tenantId, chatId));
      if (run === null) return c.body(null, 204);
      return c.body(runs.follow(run, after, c.env.keepInFlight()), 200, UI_MESSAGE_STREAM_HEADERS);
    },
);

/** A person's answer to one tool call, as `POST /agent/runs/{id}/approvals/{approval_id}` takes it. */
const ApprovalDecisionBody = v.pipe(
  v.strictObject({
    approved: v.boolean('must be true or false'),
    reason: v.optional(ApprovalReason),
    decided_by: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1, 'must not be empty'),
        v.maxLength(256, 'must be at most 256 characters'),
        storableText,
        v.description('Who decided (kept with the decision); default `api`'),
      ),
    ),
  }),
  v.title('ApprovalDecision'),
);

/**
 * `POST /agent/runs/{id}/approvals/{approval_id}`: approves or denies one tool call a run waits
 * for, for surfaces that cannot send another invoke (MCP, the owner panel). Once every call is
 * decided the run goes on, in the background, on this instance.
 */
export const decideApprovalRoute = defineRoute(
  {
    method: 'post',
    path: `${RUNS_PATH}/{id}/approvals/{approval_id}`,
    security: 'apiKey',
    contract: 'always',
    operation: {
      operationId: 'decideApproval',
      summary: 'Approve or deny a tool call a run waits for',
      parameters: [
        runIdParameter,
        {
          name: 'approval_id',
          in: 'path',
          required: true,
          description: 'The approval id (`approvals[].id` of the reply that paused the run)',
          schema: { type: 'string', minLength: 1, maxLength: 200 },
        },
        runTenantHeader,
      ],
      requestBody: { required: true, content: { 'application/json': { schema: schemaOf(ApprovalDecisionBody) } } },
      responses: {
        200: {
          description:
            'The decision is recorded: the run as it is now, `running` when it was the last one the run waited for, else still `awaiting_input`',
          content: { 'application/json': { schema: schemaOf(RunStatus) } },
        },
        400: problem('Malformed body or X-Tenant-Id', ['invalid_json', 'invalid_header']),
        404: problem('No run of this id for this tenant, or no such approval in it', [
          'run_not_found',
          'approval_not_found',
        ]),
        409: problem('The run waits for no approval, or this one was decided already; the detail says which', [
          'run_not_awaiting_input',
          'approval_already_decided',
        ]),
        415: problem('The body is not JSON', ['unsupported_media_type']),
        422: problem('A field of the answer is malformed; the problem names it', ['validation_failed']),
        503: storeUnavailable,
      },
    },
  },
  (ctx) =>
    async function decideApproval(c) {
      const tenantId = tenantOf(c);
      const body = validBody(await readJson(c.req.raw), ApprovalDecisionBody);
      const answer =
        body.reason === undefined
          ? { id: c.req.param('approval_id') ?? '', approved: body.approved }
          : { id: c.req.param('approval_id') ?? '', approved: body.approved, reason: body.reason };
      return c.json(
        await decideRunApproval(ctx, tenantId, c.req.param('id') ?? '', answer, body.decided_by ?? 'api'),
        200,
      );
    },
);

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
  answer: RunApprovalAnswer,
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
