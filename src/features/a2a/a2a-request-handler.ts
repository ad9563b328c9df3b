import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type {
  AgentCard,
  Artifact,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskState,
} from '@a2a-js/sdk';
import * as v from 'valibot';
import type { ActorContext } from '../../context/actor-context.js';
import { ActorError } from '../../core/actor-error.js';
import { answerInvoke } from '../../invoke/answer-invoke.js';
import type { ChatReply } from '../../invoke/chat-reply.js';
import { ApprovalAnswer, ChatRequest } from '../../invoke/chat-request.js';
import type { RunStatus } from '../../invoke/turn-runs.js';
import type { A2aSdk } from './load-a2a-sdk.js';

/** The user an A2A message is recorded under (A2A names no end user). */
const A2A_USER = 'a2a';

/** The key of `ServerCallContext.state` that holds the call's HTTP facts. */
export const A2A_CALL_KEY = 'actorkit.call';

/** What the HTTP request of an A2A call carried, as the route puts it in the call's context. */
export interface A2aCall {
  /** `X-Tenant-Id` (or `default`): the only tenant a call acts for; a `tenant` in the params is ignored. */
  readonly tenantId: string;
  readonly requestId: string;
  /** The `Idempotency-Key` header: a retried message with the same key replays its run's reply, as an invoke's does. */
  readonly idempotencyKey: string | undefined;
  readonly signal: AbortSignal;
  readonly keepInFlight: () => () => void;
  /** The card as this request's origin shows it. */
  readonly card: AgentCard;
}

/** The most tasks one ListTasks page holds (and its default size). */
const LIST_PAGE_SIZE = 100;

/** How long a cancel waits for the run to say `cancelled` before answering with it as it is. */
const CANCEL_WAIT_MS = 2_500;

/** One parsed frame of a run's UI message stream: its part, and its number when the frame has an `id:` (a run followed). */
async function* uiParts(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ seq?: number; part: Record<string, unknown> }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
        const lines = buffered.slice(0, end).split('\n');
        buffered = buffered.slice(end + 2);
        const data = lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data === '[DONE]') return;
        const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
        if (data !== '')
          yield { ...(id === undefined ? {} : { seq: Number(id) }), part: JSON.parse(data) as Record<string, unknown> };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * The actor's A2A request handler, for the SDK's JSON-RPC transport: a task is a run. A message
 * starts a run through the path of `POST /agent/invoke` (`answerInvoke`: the same validation,
 * tenant, idempotency, history and metrics) with `contextId` as its `session_id`; a task is read,
 * followed and cancelled through the runs (`TurnRuns`), on any replica, for its tenant only.
 */
export class A2aRequestHandler implements A2ARequestHandler {
  readonly #sdk: A2aSdk;
  readonly #ctx: ActorContext;

  constructor(sdk: A2aSdk, ctx: ActorContext) {
    this.#sdk = sdk;
    this.#ctx = ctx;
  }

  async getAgentCard(): Promise<AgentCard> {
    throw new this.#sdk.UnsupportedOperationError('The card is served at /.well-known/agent-card.json');
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new this.#sdk.ExtendedAgentCardNotConfiguredError('This agent has no extended card');
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const call = callOf(context);
    const { request, approvals } = await this.#chatRequest(params, call);
    const background = params.configuration?.returnImmediately === true;
    const answer = await this.#answer(call, request, approvals, { stream: false, background });
    if (answer.kind === 'accepted') return this.#task(answer.run);
    if (answer.kind === 'reply' || (answer.kind === 'replay' && answer.status === 200)) {
      // A replay (the same Idempotency-Key again) is the stored reply of the run that answered it.
      const reply = answer.kind === 'reply' ? answer.reply : (JSON.parse(answer.body) as ChatReply);
      const status = await this.#ctx.runs.tenantRunStatus(call.tenantId, reply.id);
      return this.#task(status ?? runOfReply(reply));
    }
    throw new this.#sdk.InvalidAgentResponseError(`The run answered ${answer.kind}`);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const call = callOf(context);
    const { request, approvals } = await this.#chatRequest(params, call);
    const answer = await this.#answer(call, request, approvals, { stream: true, background: false });
    if (answer.kind === 'accepted') {
      yield { payload: { $case: 'task', value: this.#task(answer.run) } };
      return;
    }
    if (answer.kind !== 'stream') throw new this.#sdk.InvalidAgentResponseError(`The run answered ${answer.kind}`);
    yield* this.#events(call, answer.body, { sessionId: request.session_id });
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#task(await this.#run(callOf(context), params.id));
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const call = callOf(context);
    const run = await this.#run(call, params.id);
    if (run.state === 'completed' || run.state === 'failed')
      throw new this.#sdk.TaskNotCancelableError(`Task ${run.id} already ended: ${run.state}`);
    let after = (await this.#ctx.runs.cancelTenantRun(call.tenantId, run.id)) ?? run;
    // A run on another replica stops within its cancel poll: wait for it to say so.
    for (const deadline = Date.now() + CANCEL_WAIT_MS; after.state !== 'cancelled' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = (await this.#ctx.runs.tenantRunStatus(call.tenantId, run.id)) ?? after;
    }
    return this.#task(after);
  }

  /**
   * SubscribeToTask (A2A 1.0, 3.1.6): the task as it is at the subscription first, the reply's
   * text so far as its `reply` artifact, then only the updates after it until the run ends; a
   * task input-required is that task alone. A task that already ended is UnsupportedOperation,
   * as the spec says: get it instead.
   */
  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const call = callOf(context);
    const run = await this.#run(call, params.id);
    if (run.state === 'completed' || run.state === 'failed' || run.state === 'cancelled')
      throw new this.#sdk.UnsupportedOperationError(`Task ${run.id} already ended (${run.state}): get it instead`);
    // Input-required is an interrupted state, where an A2A stream closes: nothing comes until a
    // message answers the task, and that message streams the rest.
    if (run.state === 'awaiting_input') {
      yield { payload: { $case: 'task', value: this.#task(run) } };
      return;
    }
    // The run from its first part: those up to the subscription's make the task it opens with.
    const body = await this.#ctx.runs.followTenantRun(call.tenantId, run.id, 0, call.keepInFlight());
    if (body === null) throw this.#notFound(params.id);
    yield* this.#events(call, body, { sessionId: run.session_id, subscribedTo: run });
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const call = callOf(context);
    const pageSize = params.pageSize === undefined || params.pageSize === 0 ? LIST_PAGE_SIZE : params.pageSize;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIST_PAGE_SIZE)
      throw new this.#sdk.RequestMalformedError(`pageSize must be a whole number from 1 to ${LIST_PAGE_SIZE}`);
    const runs = await this.#ctx.runs.listTenantRuns(call.tenantId, {
      limit: pageSize,
      ...(params.contextId === '' ? {} : { sessionId: params.contextId }),
      ...(params.pageToken === '' ? {} : { beforeId: params.pageToken }),
    });
    const tasks = runs
      .map((run) => this.#task(run))
      .filter((task) => params.status === 0 || task.status?.state === params.status)
      .map((task) => (params.includeArtifacts === true ? task : { ...task, artifacts: [] }));
    return {
      tasks,
      nextPageToken: runs.length === pageSize ? (runs.at(-1)?.id ?? '') : '',
      pageSize,
      totalSize: tasks.length,
    };
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new this.#sdk.PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new this.#sdk.PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new this.#sdk.PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw new this.#sdk.PushNotificationNotSupportedError();
  }

  /** The tenant's run of this task id; TaskNotFound otherwise (another tenant's included). */
  async #run(call: A2aCall, id: string): Promise<RunStatus> {
    if (id.trim() === '') throw new this.#sdk.RequestMalformedError('The task id is missing');
    const run = await this.#ctx.runs.tenantRunStatus(call.tenantId, id);
    if (run === null) throw this.#notFound(id);
    return run;
  }

  #notFound(id: string): Error {
    return new this.#sdk.TaskNotFoundError(`No task ${id.slice(0, 128)} for this tenant`);
  }

  /**
   * The chat request of a message: its text parts joined, its file parts (`url` or `raw`, with a
   * media type) as attachments; `contextId` is the session. A message to a task that waits for
   * input carries the decisions as a data part `{ approved, reason? }` (every pending call) or
   * `{ approvals: [{ id, approved, reason? }] }`. Any other part is ContentTypeNotSupported.
   */
  async #chatRequest(
    params: SendMessageRequest,
    call: A2aCall,
  ): Promise<{ request: ChatRequest; approvals?: readonly ApprovalAnswer[] }> {
    const sdk = this.#sdk;
    const message = params.message;
    if (message === undefined || message.parts.length === 0)
      throw new sdk.RequestMalformedError('The message needs at least one part');
    const sessionId = message.contextId === '' ? `a2a-${crypto.randomUUID()}` : message.contextId;
    if (message.taskId !== '') {
      const task = await this.#run(call, message.taskId);
      if (task.session_id !== sessionId && message.contextId !== '')
        throw new sdk.RequestMalformedError(`Task ${task.id} belongs to another contextId`);
      if (task.state === 'awaiting_input') {
        const approvals = approvalsOf(message.parts, task);
        if (approvals === undefined)
          throw new sdk.RequestMalformedError(
            'The task waits for approvals: answer with a data part {"approved": true|false, "reason"?: "…"}',
          );
        return {
          request: { session_id: task.session_id, user_identifier: A2A_USER, message: '', role: 'user' },
          approvals,
        };
      }
    }
    const texts: string[] = [];
    const attachments: Record<string, unknown>[] = [];
    for (const part of message.parts) {
      const content = part.content;
      if (content?.$case === 'text') texts.push(content.value);
      else if (content?.$case === 'url' || content?.$case === 'raw')
        attachments.push({
          name: part.filename === '' ? 'attachment' : part.filename,
          mime_type: part.mediaType,
          ...(content.$case === 'url' ? { url: content.value } : { data: base64Of(content.value) }),
        });
      else
        throw new sdk.ContentTypeNotSupportedError(
          `A part of kind ${content?.$case ?? 'none'} is not taken: send text, or a file (url or raw) of a type the card lists`,
        );
    }
    const parsed = v.safeParse(ChatRequest, {
      session_id: sessionId,
      user_identifier: A2A_USER,
      message: texts.join('\n'),
      ...(attachments.length === 0 ? {} : { attachments }),
    });
    if (!parsed.success) {
      const pathOf = (issue: v.BaseIssue<unknown>) => issue.path?.map((item) => String(item.key)).join('.') ?? '';
      const unsupported = parsed.issues.find((issue) => pathOf(issue).endsWith('mime_type'));
      if (unsupported !== undefined) throw new sdk.ContentTypeNotSupportedError(unsupported.message);
      const issue = parsed.issues[0];
      throw new sdk.RequestMalformedError(`${pathOf(issue) || 'message'}: ${issue.message}`);
    }
    return { request: parsed.output };
  }

  /** Runs the message through `answerInvoke`; the actor's own refusals become A2A errors. */
  async #answer(
    call: A2aCall,
    request: ChatRequest,
    approvals: readonly ApprovalAnswer[] | undefined,
    how: { stream: boolean; background: boolean },
  ) {
    try {
      return await answerInvoke(this.#ctx, {
        request,
        ...(approvals === undefined ? {} : { approvals }),
        tenantId: call.tenantId,
        requestId: call.requestId,
        stream: how.stream,
        background: how.background,
        idempotencyKey: call.idempotencyKey,
        requestSignal: call.signal,
        keepInFlight: call.keepInFlight,
      });
    } catch (error) {
      if (!(error instanceof ActorError)) throw error;
      if (error.code === 'run_not_found' || error.code === 'approval_not_found')
        throw new this.#sdk.TaskNotFoundError(error.message);
      if (error.status === 400 || error.status === 404 || error.status === 409 || error.status === 422)
        throw new this.#sdk.RequestMalformedError(`${error.code}: ${error.message}`);
      throw error;
    }
  }

  /**
   * A run's stream as A2A events: the task first (working), each text delta as an update of the
   * `reply` artifact, a tool call or approval request as a working or input-required status,
   * then the task's final status as the run ended (read from the run, the truth on any replica).
   * Following a run (`subscribedTo`, the run as it was at the subscription), the parts up to the
   * run's `last_seq` then are not sent one by one: their text is in the artifact of the task the
   * stream opens with, and the updates after it append to that artifact.
   */
  async *#events(
    call: A2aCall,
    body: ReadableStream<Uint8Array>,
    where: { sessionId: string; subscribedTo?: RunStatus },
  ): AsyncGenerator<StreamResponse> {
    const { TaskState: State, Role } = this.#sdk;
    let taskId = where.subscribedTo?.id;
    let appended = false;
    /** The subscription's task while it is still being made: the text of the parts up to it. */
    let opening = where.subscribedTo === undefined ? undefined : { run: where.subscribedTo, text: '' };
    // The run was in progress at the subscription, so its task has no artifact of its own yet.
    const openingTask = (made: { run: RunStatus; text: string }): StreamResponse => {
      appended = made.text !== '';
      const artifacts = appended ? [replyArtifact([textPart(made.text)])] : [];
      return { payload: { $case: 'task', value: { ...this.#task(made.run), artifacts } } };
    };
    const status = (state: TaskState, text?: string): StreamResponse => ({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: taskId ?? '',
          contextId: where.sessionId,
          status: {
            state,
            message:
              text === undefined ? undefined : agentMessage(Role.ROLE_AGENT, taskId ?? '', where.sessionId, text),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        },
      },
    });
    if (opening !== undefined && opening.run.last_seq === 0) {
      yield openingTask(opening);
      opening = undefined;
    }
    for await (const { seq, part } of uiParts(body)) {
      if (taskId === undefined) {
        const meta = part.messageMetadata as { run_id?: string } | undefined;
        if (part.type !== 'start' || typeof meta?.run_id !== 'string') continue;
        taskId = meta.run_id;
        const run = await this.#ctx.runs.tenantRunStatus(call.tenantId, taskId);
        yield { payload: { $case: 'task', value: this.#task(run ?? pendingRun(taskId, where.sessionId)) } };
        continue;
      }
      if (part.type === 'text-delta' && typeof part.delta === 'string' && part.delta !== '') {
        if (opening !== undefined) opening.text += part.delta;
        else {
          yield {
            payload: {
              $case: 'artifactUpdate',
              value: {
                taskId,
                contextId: where.sessionId,
                artifact: replyArtifact([{ ...textPart(part.delta), mediaType: '' }]),
                append: appended,
                lastChunk: false,
                metadata: undefined,
              },
            },
          };
          appended = true;
        }
      } else if (part.type === 'tool-input-available' && opening === undefined)
        yield status(State.TASK_STATE_WORKING, `Calling ${String(part.toolName)}`);
      if (opening !== undefined && (seq === undefined || seq >= opening.run.last_seq)) {
        yield openingTask(opening);
        opening = undefined;
      }
      if (part.type === 'finish' && opening === undefined) {
        // The message ended: the run ended, or it waits for approvals (input-required, an
        // interrupted state where the stream closes). A run of another replica is followed from
        // the store until it ends, which a waiting run does not until a person answers it.
        break;
      }
    }
    if (opening !== undefined) yield openingTask(opening);
    if (taskId === undefined) return;
    const run = await this.#ctx.runs.tenantRunStatus(call.tenantId, taskId);
    if (run === null) return;
    const final = this.#task(run);
    yield {
      payload: {
        $case: 'statusUpdate',
        value: { taskId, contextId: where.sessionId, status: final.status, metadata: undefined },
      },
    };
  }

  /** A run as an A2A task: its state, its reply as the `reply` artifact, its problem or pending approvals as the status message. */
  #task(run: RunStatus): Task {
    const { TaskState: State, Role } = this.#sdk;
    const states: Record<RunStatus['state'], TaskState> = {
      queued: State.TASK_STATE_SUBMITTED,
      running: State.TASK_STATE_WORKING,
      awaiting_input: State.TASK_STATE_INPUT_REQUIRED,
      completed: State.TASK_STATE_COMPLETED,
      failed: State.TASK_STATE_FAILED,
      cancelled: State.TASK_STATE_CANCELED,
    };
    const approvals = run.state === 'awaiting_input' ? (run.reply?.approvals ?? []) : [];
    const statusText =
      run.problem !== undefined
        ? `${run.problem.title}${run.problem.detail === undefined ? '' : `: ${run.problem.detail}`} (${run.problem.code})`
        : approvals.length > 0
          ? `Waiting for a person to approve: ${approvals.map((approval) => `${approval.tool} ${JSON.stringify(approval.arguments)} (${approval.id})`).join('; ')}. Answer with a message to this task carrying a data part {"approved": true|false, "reason"?: "…"}.`
          : undefined;
    const message =
      statusText === undefined ? undefined : agentMessage(Role.ROLE_AGENT, run.id, run.session_id, statusText);
    if (message !== undefined && approvals.length > 0)
      message.parts.push({
        content: { $case: 'data', value: { approvals } },
        metadata: undefined,
        filename: '',
        mediaType: 'application/json',
      });
    const content = run.state === 'completed' ? run.reply?.message.content : undefined;
    return {
      id: run.id,
      contextId: run.session_id,
      status: { state: states[run.state], message, timestamp: run.finished_at ?? run.created_at },
      artifacts: content === undefined ? [] : [replyArtifact([textPart(content)])],
      history: [],
      metadata: { usage: run.usage },
    };
  }
}

/** The call's HTTP facts, which the route put in its context. */
function callOf(context: ServerCallContext): A2aCall {
  const call = context.state.get(A2A_CALL_KEY) as A2aCall | undefined;
  if (call === undefined) throw new Error('An A2A call without its HTTP facts');
  return call;
}

/** An agent message of one text part. */
function agentMessage(role: Message['role'], taskId: string, contextId: string, text: string): Message {
  return {
    messageId: `msg_${crypto.randomUUID()}`,
    contextId,
    taskId,
    role,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A text part. */
function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** The artifact that holds the reply's text. */
function replyArtifact(parts: Part[]): Artifact {
  return { artifactId: 'reply', name: 'reply', description: 'The answer', parts, metadata: undefined, extensions: [] };
}

/** A run just begun, as a task shows it before its row is read. */
function pendingRun(id: string, sessionId: string): RunStatus {
  const now = new Date().toISOString();
  return {
    id,
    session_id: sessionId,
    state: 'running',
    background: false,
    created_at: now,
    finished_at: null,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    last_seq: 0,
  };
}

/** A completed reply as a run, for when its row is not found (never, but typed). */
function runOfReply(reply: NonNullable<RunStatus['reply']>): RunStatus {
  return {
    ...pendingRun(reply.id, reply.session_id),
    state: reply.status === 'awaiting_input' ? 'awaiting_input' : 'completed',
    reply,
  };
}

/** The answers a message's data part gives the approvals a task waits for; undefined when it carries none. */
function approvalsOf(parts: readonly Part[], task: RunStatus): ApprovalAnswer[] | undefined {
  const data = parts.find((part) => part.content?.$case === 'data')?.content?.value as
    | Record<string, unknown>
    | undefined;
  if (data === undefined || typeof data !== 'object' || data === null) return undefined;
  if ('approvals' in data) {
    const answers = v.safeParse(v.array(ApprovalAnswer), data.approvals);
    return answers.success ? answers.output : undefined;
  }
  if (typeof data.approved !== 'boolean') return undefined;
  const reason = typeof data.reason === 'string' ? { reason: data.reason } : {};
  return (task.reply?.approvals ?? []).map((approval) => ({
    id: approval.id,
    approved: data.approved as boolean,
    ...reason,
  }));
}

/** The base64 of a file part's bytes. */
function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
