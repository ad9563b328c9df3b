import * as v from 'valibot';
import { ActorError } from '../core/actor-error.js';
import { newRunId } from '../core/time-ordered-id.js';
import type { ChatEvent } from './chat-handler.js';
import { ChatReply } from './chat-reply.js';
import { ChatRequest, INVOKE_PATH } from './chat-request.js';
import { decideIdempotency, runIdempotent, type IdempotencyDecision } from './idempotency.js';
import { runTurn, type Turn } from './run-turn.js';
import type { TurnServices } from './turn-services.js';
import type { RunApprovalAnswer, ResumedRun, RunStatus, TurnRun } from './turn-runs.js';
import { problemErrorText, replayStream, startPart, UiMessageStreamWriter } from './ui-message-stream.js';
import type { StoredRun } from '../store/store.js';

/** One validated invoke, with what its HTTP request said around the body. */
export interface InvokeCall {
  readonly request: ChatRequest;
  readonly tenantId: string;
  readonly requestId: string;
  /** Answer as a UI message stream (see `wantsStream`). */
  readonly stream: boolean;
  /** Answer `202 Accepted` with the run at once (`"background": true` or `Prefer: respond-async`). */
  readonly background?: boolean;
  /** The `Idempotency-Key` header, undefined when absent. */
  readonly idempotencyKey: string | undefined;
  /** The HTTP request's signal: aborted when the client goes away. */
  readonly requestSignal: AbortSignal;
  /** Keeps the request in flight past its response headers, until the returned function is called: a stream calls it when it ends. */
  readonly keepInFlight: () => () => void;
  /** Answers to the approvals the session's run waits for (an `ApprovalsRequest`): that run goes on, instead of a new one. */
  readonly approvals?: readonly RunApprovalAnswer[];
  /** Sees each of the turn's events as it comes (the MCP tool `chat` sends them as progress); the run is then observed, as a streamed one is. */
  readonly onEvent?: (event: ChatEvent) => void;
}

/** How to answer an invoke: a reply, a stored reply replayed as JSON, a UI message stream, or a background run accepted. */
export type InvokeAnswer =
  | { readonly kind: 'reply'; readonly reply: ChatReply }
  | { readonly kind: 'replay'; readonly status: number; readonly body: string }
  | { readonly kind: 'stream'; readonly body: ReadableStream<Uint8Array>; readonly replayed: boolean }
  | { readonly kind: 'accepted'; readonly run: RunStatus };

/** How a run's events become its stream parts. */
interface RunParts {
  /** A streamed or background invoke, or one with an `observer`: the events are written as parts. */
  readonly observed: boolean;
  /** Sees each event too (the MCP tool `chat`). */
  readonly observer?: (event: ChatEvent) => void;
  /** The `start` part's message: the one a continued run paused in (the AI SDK's client goes on in it), else the reply's. */
  readonly messageId: string;
}

/**
 * Runs the turn inside its run: the turn's events (when `observed`) become the run's stream
 * parts as they come, ended as the run ended — the reply; or a cancel (a `finish` saying so), a
 * shutdown (`abort`), or an error (`error`). Resolves with the reply; rejects with the turn's error.
 */
async function driveRun(
  services: TurnServices,
  run: TurnRun,
  turn: Omit<Turn, 'signal' | 'onEvent' | 'claim'>,
  idempotency: Exclude<IdempotencyDecision, { kind: 'replay' }>,
  { observed, observer, messageId }: RunParts,
): Promise<ChatReply> {
  // A JSON invoke asks the handler for no events: the model answers whole (as before runs), the
  // run writes no parts (its stream is told from its end), and its tool calls are not seen, so
  // it counts as having had side effects (a taken-over JSON run is never retried).
  const writer = observed ? new UiMessageStreamWriter(run) : undefined;
  if (writer === undefined) {
    // Its first part names the run, as `impliedRunParts` begins; the rest is told from its end.
    run.part(startPart(undefined, run.id));
    run.toolRan(false);
  } else writer.start(messageId, run.id);
  try {
    const reply = await runIdempotent(idempotency, (claim) =>
      runTurn(services, {
        ...turn,
        signal: run.signal,
        ...(writer !== undefined
          ? {
              onEvent: (event: ChatEvent) => {
                if (event.type === 'tool-call') run.toolRan(event.readOnly === true);
                writer.event(event);
                observer?.(event);
              },
            }
          : {}),
        claim,
      }),
    );
    writer?.finish(reply);
    run.settle({ reply });
    return reply;
  } catch (error) {
    const known = error instanceof ActorError;
    if (!known)
      services.logger.error('unhandled_error', {
        request_id: turn.requestId,
        path: INVOKE_PATH,
        error: (error as Error).message,
        stack: (error as Error).stack,
      });
    if (writer === undefined) {
      // Nothing to write: the run's end tells its stream.
    } else if (run.cancelled) writer.cancelled(run.id);
    else if (services.lifecycle.shutdownSignal.aborted) writer.abort();
    else if (known) writer.error(problemErrorText(error));
    else writer.error(`internal_error: Something went wrong; quote request id ${turn.requestId} when reporting it`);
    run.settle({ error });
    throw error;
  }
}

/**
 * Answers one invoke: applies `Idempotency-Key` once around the turn (a completed retry is
 * replayed, counted as `replayed`), then begins its run and answers as JSON, as a stream of
 * the run, or, for a background invoke, with the run at once. A client that goes away leaves
 * the run going unless the request says `on_disconnect: "cancel"` (or `RUN_ON_DISCONNECT` does).
 */
export async function answerInvoke(services: TurnServices, call: InvokeCall): Promise<InvokeAnswer> {
  const { request, tenantId, requestId, stream } = call;
  const decided = decideIdempotency(services, call.idempotencyKey, tenantId, request);
  // Awaited only when it is a promise (a key was sent): an `await` of a value is one more hop.
  const idempotency = decided instanceof Promise ? await decided : decided;
  if (idempotency.kind === 'replay') {
    services.metrics.invocations.inc({ outcome: 'replayed' });
    if (!stream) return { kind: 'replay', status: idempotency.status, body: idempotency.body };
    return { kind: 'stream', body: replayStream(v.parse(ChatReply, JSON.parse(idempotency.body))), replayed: true };
  }
  // Answers to the approvals a run waits for: that run goes on (under its id, from its own request) once all are decided.
  const resumed =
    call.approvals === undefined
      ? undefined
      : await services.runs.answerApprovals(
          tenantId,
          { sessionId: request.session_id },
          call.approvals,
          request.user_identifier,
        );
  if (resumed !== undefined && 'waiting' in resumed) return { kind: 'accepted', run: resumed.waiting };
  const background = call.background === true || resumed?.background === true;
  const cancelOnDisconnect = !background && (request.on_disconnect ?? services.config.runs.onDisconnect) === 'cancel';
  const id = resumed?.id ?? newRunId();
  const runRequest = resumed?.request ?? request;
  const observed = stream || background || call.onEvent !== undefined;
  const run = services.runs.begin({
    id,
    observed,
    tenantId,
    request: runRequest,
    requestId,
    background,
    ...(cancelOnDisconnect ? { clientSignal: call.requestSignal } : {}),
    ...(resumed === undefined ? {} : { firstSeq: resumed.lastSeq + 1, approvals: resumed.approvals }),
  });
  const turn = {
    id,
    request: runRequest,
    tenantId,
    requestId,
    stream,
    messageId: `msg_${crypto.randomUUID()}`,
    idempotencyUnavailable: idempotency.kind === 'run' && idempotency.unavailable,
    ...(resumed === undefined ? {} : { decided: resumed.decided }),
  };
  const done = driveRun(services, run, turn, idempotency, {
    observed,
    messageId: resumed?.messageId ?? turn.messageId,
    ...(call.onEvent === undefined ? {} : { observer: call.onEvent }),
  });
  if (background || stream) {
    // The run records its own end; nobody awaits this promise.
    done.catch(() => {});
    if (background) {
      await run.stored();
      return { kind: 'accepted', run: run.status() };
    }
    const leave = call.keepInFlight();
    return { kind: 'stream', body: run.stream(leave), replayed: false };
  }
  const reply = await done;
  // Its answers may come at once, to any replica: the waiting run is stored before the reply says so.
  if (reply.status === 'awaiting_input') await run.stored();
  return { kind: 'reply', reply };
}

/**
 * Runs a taken-over run again from the start, on this instance: its stored request under its
 * id, as a background run records itself, its parts numbered on after `lastSeq` (the runs
 * feature calls it, through the app, for a run whose tools were all read-only). Its
 * `Idempotency-Key`, if it had one, is not claimed again.
 * @param services what the turn needs
 * @param stored the run as the store keeps it
 */
export function rerunInvoke(
  services: TurnServices,
  stored: Pick<StoredRun, 'id' | 'tenantId' | 'request' | 'background' | 'lastSeq'>,
): void {
  runAgain(services, { ...stored, request: v.parse(ChatRequest, JSON.parse(stored.request)) });
}

/**
 * Continues, in the background on this instance, a run whose approvals were all decided
 * through `POST /agent/runs/{id}/approvals/{approval_id}` (the runs feature calls it): the turn
 * runs or denies the decided calls, then goes on; its parts follow the stored ones.
 * @param services what the turn needs
 * @param tenantId the run's tenant
 * @param resumed the run as `TurnRuns.answerApprovals` took it
 */
export function continueRun(services: TurnServices, tenantId: string, resumed: ResumedRun): void {
  runAgain(services, { ...resumed, tenantId }, resumed.decided, resumed.messageId);
}

/** Runs a stored run's request again under its id, as a background run records itself, its parts numbered on after `lastSeq`. */
function runAgain(
  services: TurnServices,
  stored: Pick<StoredRun, 'id' | 'tenantId' | 'background' | 'lastSeq'> & {
    readonly request: ChatRequest;
    readonly approvals?: string;
  },
  decided?: ResumedRun['decided'],
  pausedMessageId?: string,
): void {
  const { request } = stored;
  const requestId = crypto.randomUUID();
  const { id, tenantId, background } = stored;
  const run = services.runs.begin({
    id,
    tenantId,
    request,
    requestId,
    background,
    observed: true,
    firstSeq: stored.lastSeq + 1,
    ...(stored.approvals === undefined ? {} : { approvals: stored.approvals }),
  });
  const turn = {
    id,
    request,
    tenantId,
    requestId,
    // Only an observed run is retried: a JSON invoke counts as having had side effects.
    stream: !background,
    messageId: `msg_${crypto.randomUUID()}`,
    idempotencyUnavailable: false,
    ...(decided === undefined ? {} : { decided }),
  };
  // The run records its own end; nobody awaits this promise.
  driveRun(
    services,
    run,
    turn,
    { kind: 'run', unavailable: false },
    {
      observed: true,
      messageId: pausedMessageId ?? turn.messageId,
    },
  ).catch(() => {});
}
