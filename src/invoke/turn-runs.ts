import * as v from 'valibot';
import { RUN_STATES } from '../store/store.js';
import { ChatReply } from './chat-reply.js';
import type { ApprovalAnswer, ChatRequest } from './chat-request.js';
import type { DecidedToolCall } from './chat-handler.js';
import type { UiPartSink } from './ui-message-stream.js';

/** Where runs live: `GET {RUNS_PATH}/{id}` is a run (the `Location` of a background invoke). */
export const RUNS_PATH = '/agent/runs';

/** The problem a failed or cancelled run ended with. */
const RunProblem = v.object({
  code: v.string(),
  title: v.string(),
  detail: v.optional(v.string()),
});

/** A run, as `GET /agent/runs/{id}` and a background invoke's `202 Accepted` show it. */
export const RunStatus = v.pipe(
  v.object({
    id: v.pipe(v.string(), v.description('The invocation id; the reply carries it as `id`')),
    session_id: v.string(),
    state: v.picklist(RUN_STATES),
    background: v.boolean(),
    created_at: v.string(),
    finished_at: v.nullable(v.string()),
    usage: v.object({ input_tokens: v.number(), output_tokens: v.number(), total_tokens: v.number() }),
    last_seq: v.pipe(v.number(), v.description('The number of the last stream part so far')),
    reply: v.optional(ChatReply),
    problem: v.optional(RunProblem),
  }),
  v.title('RunStatus'),
);

/** A run as `GET /agent/runs/{id}` shows it. */
export type RunStatus = v.InferOutput<typeof RunStatus>;

/** What the turn tells a run when it begins. */
export interface RunStart {
  /** The invocation id, which the run takes as its own. */
  readonly id: string;
  readonly tenantId: string;
  readonly request: ChatRequest;
  readonly requestId: string;
  /** Started with `"background": true` or `Prefer: respond-async`. */
  readonly background: boolean;
  /**
   * False when the turn reports no events (a JSON invoke): the run writes its `start` part and
   * tells the rest of its stream from its end (`impliedRunParts`) instead of keeping it.
   */
  readonly observed: boolean;
  /** The client's signal when a dropped client cancels the run (`on_disconnect: "cancel"`); absent when the run outlives its client. */
  readonly clientSignal?: AbortSignal;
  /** The number of the run's first part, 1 unless the run is taken over and run again: its parts then follow those of the attempt before. */
  readonly firstSeq?: number;
  /** The approvals of a run that goes on after them (`ResumedRun.approvals`): its row keeps them, decisions included. */
  readonly approvals?: string;
}

/**
 * One run, as the turn drives it: the turn writes its stream parts into it (it is the sink of
 * the turn's `UiMessageStreamWriter`) and ends it once.
 */
export interface TurnRun extends UiPartSink {
  readonly id: string;
  /** Aborted when the run is cancelled (from any replica), its client leaves with `on_disconnect: "cancel"`, or a shutdown gives up on it. */
  readonly signal: AbortSignal;
  /** True once a cancel stopped the run: the turn ends its stream with a `finish` that says so. */
  readonly cancelled: boolean;
  /** Records the end: the reply, or the error the turn failed with. Called once, after the last part. */
  settle(outcome: { readonly reply: ChatReply } | { readonly error: unknown }): void;
  /** A tool ran; `readOnly` when it declared that it changes nothing (a taken-over run may then be retried). */
  toolRan(readOnly: boolean): void;
  /**
   * The parts of this attempt from its first (`firstSeq`: a continued run's earlier parts were
   * streamed to the request that began it), then the live ones, as SSE frames with `id:` lines,
   * ending `data: [DONE]`; `onClose` when it ends or its reader leaves.
   */
  stream(onClose?: () => void): ReadableStream<Uint8Array>;
  /** Resolves once the run is stored, so that every replica finds it (a background invoke answers after it). */
  stored(): Promise<void>;
  /** The run as `GET /agent/runs/{id}` shows it now. */
  status(): RunStatus;
}

/**
 * A person's answer to one tool call approval, as the runs take it: a validated `ApprovalAnswer`
 * (`approvals` of an invoke, the approvals route, the panel, MCP), and the arguments the person
 * saw when the answer carries them (the AI SDK's does): refused when they are not those asked about.
 */
export type RunApprovalAnswer = ApprovalAnswer & { readonly arguments?: unknown };

/** A run that waited for approvals, all now decided, taken by this instance to go on. */
export interface ResumedRun {
  readonly id: string;
  /** Its stored request, for the turn that continues it. */
  readonly request: ChatRequest;
  readonly background: boolean;
  /** The number of its last stored part: the continuation's parts follow. */
  readonly lastSeq: number;
  readonly decided: readonly DecidedToolCall[];
  /** Its approvals with every decision (the row's JSON text), kept by the run as it goes on. */
  readonly approvals: string;
  /** The id of the message it paused in: its continuation's stream goes on in that message, as the AI SDK's client expects. */
  readonly messageId?: string;
}

/**
 * How runs plug into the turn, the one interface between them: every invoke begins a run, and
 * the turn runs inside it. The runs feature (`src/features/runs`) implements it; the turn
 * never sees more of it.
 */
export interface TurnRuns {
  begin(start: RunStart): TurnRun;
  /**
   * Records a person's answers to the run that waits for approvals (the session's, or the one
   * of this id; another tenant's is not found: 404 `run_not_found`); when they
   * decide every call, takes the run (from any replica) to continue here and returns it, else
   * the run as it waits for the rest. Rejects with 409 `run_not_awaiting_input` when the session has
   * no such run, and with the answer's problem (see `decideApprovals`).
   */
  answerApprovals(
    tenantId: string,
    waiting: { readonly sessionId: string } | { readonly runId: string },
    answers: readonly ApprovalAnswer[],
    decidedBy: string,
  ): Promise<ResumedRun | { readonly waiting: RunStatus }>;
  /**
   * The run of this id as `GET /agent/runs/{id}` shows it, read on any replica; null when there
   * is none for this tenant (another tenant's run included), as the run routes answer 404.
   */
  tenantRunStatus(tenantId: string, id: string): Promise<RunStatus | null>;
  /**
   * The run's stream parts after `after`, then its live ones until it ends, as the SSE frames of
   * `GET /agent/runs/{id}/stream` (`id: <seq>`, `data: <part>`, ending `data: [DONE]`); null when
   * the tenant has no such run.
   */
  followTenantRun(
    tenantId: string,
    id: string,
    after: number,
    onClose?: () => void,
  ): Promise<ReadableStream<Uint8Array> | null>;
  /**
   * Cancels the tenant's run in progress wherever it runs, as `POST /agent/runs/{id}/cancel`
   * does: the run as it is after; a run that already ended as it is (its state says so); null
   * when the tenant has no such run.
   */
  cancelTenantRun(tenantId: string, id: string): Promise<RunStatus | null>;
  /**
   * The tenant's runs, the newest first, at most `limit`: of one session when `sessionId` is
   * given, and older than the run `beforeId` when it is (the next page), on any replica.
   */
  listTenantRuns(
    tenantId: string,
    page: { readonly sessionId?: string; readonly beforeId?: string; readonly limit: number },
  ): Promise<RunStatus[]>;
}
