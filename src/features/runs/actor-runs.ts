import { ActorError, clientClosedError } from '../../core/actor-error.js';
import type { ActorLifecycle } from '../../core/actor-lifecycle.js';
import type { LinkedAbort } from '../../core/linked-abort.js';
import type { ChatReply } from '../../invoke/chat-reply.js';
import * as v from 'valibot';
import { ChatRequest } from '../../invoke/chat-request.js';
import type { RunApprovalAnswer, ResumedRun, RunStart, RunStatus, TurnRun, TurnRuns } from '../../invoke/turn-runs.js';
import {
  approvalsOfReply,
  askedApprovalIds,
  decideApprovals,
  decidedCalls,
  EXPIRY,
  pendingApprovalIds,
} from './run-approvals.js';
import { runIdOfApproval } from '../../invoke/chat-handler.js';
import {
  impliedRunParts,
  problemErrorText,
  RUNNER_STOPPED,
  type RunEnding,
  SSE_DONE,
  sseFrame,
  type UiStreamPart,
} from '../../invoke/ui-message-stream.js';
import type { Mutable } from '../../core/mutable.js';
import type { Logger } from '../../log/logger.js';
import { isFinalRunState, type RunState, type RunStore, type RunWrite, type StoredRun } from '../../store/store.js';

/** How often a run's new parts are written: parts are batched, never written one token at a time. */
const FLUSH_INTERVAL_MS = 50;
/** How often a runner asks the shared database whether another replica cancelled one of its runs. */
const CANCEL_POLL_MS = 1_000;
/** How often a follower of a run on another replica reads its new parts (the stated bound of that stream's delay). */
const FOLLOW_POLL_MS = 250;
/** Most parts one read of a followed run returns. */
const FOLLOW_BATCH = 500;
/** After a failed write, the wait before the next try. */
const RETRY_WRITE_MS = 1_000;
/** `APPROVAL_TIMEOUT_S`'s default: a day. */
const DEFAULT_APPROVAL_TIMEOUT_MS = 86_400_000;
/** Most expired runs one sweep takes over. */
const TAKEOVER_BATCH = 20;

/** What the runs need of the actor. */
export interface ActorRunsOptions {
  readonly store: RunStore;
  /** `postgres` when replicas share the database: cancels and expired leases are then looked for there. */
  readonly storeKind: string;
  readonly lifecycle: Pick<ActorLifecycle, 'enter' | 'linkWork' | 'shutdownSignal'>;
  readonly logger: Logger;
  readonly instanceId: string;
  /** `RUN_LEASE_MS`: a run not renewed for this long may be taken over. */
  readonly leaseMs: number;
  /** `RUN_RETRY_READ_ONLY`: a taken-over run whose tools were all read-only is run again; otherwise it fails. */
  readonly retryReadOnly: boolean;
  /**
   * Runs a taken-over run again from its stored request, under the same id (the invoke's own
   * path): it must `begin` the run, with `firstSeq` one past the run's `lastSeq`, before it returns.
   */
  readonly rerun?: (run: StoredRun) => void;
  /** Counts decisions on approvals (`actor_tool_approvals_total`). */
  readonly metrics?: { readonly toolApprovals: { inc(labels: { tool: string; decision: string }): void } };
  /** `APPROVAL_TIMEOUT_S` in milliseconds (default 24 h): a waiting run's row holds its deadline as its lease. */
  readonly approvalTimeoutMs?: number;
  /** Continues, on this instance, a run whose approvals the sweep decided (they expired): the invoke's own path (`continueRun`). */
  readonly resume?: (tenantId: string, resumed: ResumedRun) => void;
}

/** The attempt before of a run taken over to be run again: its stored parts and its creation time. */
interface EarlierAttempt {
  readonly parts: readonly string[];
  readonly createdAtMs: number;
}

/** The problem a run ends with when its instance died or stopped before its end. */
function runnerProblem(code: 'runner_lost' | typeof RUNNER_STOPPED): { code: string; title: string; detail: string } {
  return code === 'runner_lost'
    ? {
        code,
        title: 'The instance running this run stopped',
        detail: 'The run was taken over after its instance stopped renewing it; send the request again',
      }
    : {
        code,
        title: 'The actor stopped before this run finished',
        detail: 'The actor shut down before the run finished; its parts so far are kept; send the request again',
      };
}

/** The problem a run ended with, from the error its turn failed with. */
function problemOf(error: unknown, stopped: boolean): { code: string; title: string; detail?: string } {
  if (stopped) return runnerProblem(RUNNER_STOPPED);
  if (error instanceof ActorError)
    return error.detail === undefined
      ? { code: error.code, title: error.title }
      : { code: error.code, title: error.title, detail: error.detail };
  return { code: 'internal_error', title: 'Internal error' };
}

/** The one run the answers' approval ids name; undefined when they name none, or several. */
function namedRun(answers: readonly RunApprovalAnswer[]): string | undefined {
  const runs = new Set(answers.map((answer) => runIdOfApproval(answer.id)));
  const [only] = runs;
  return runs.size === 1 ? only : undefined;
}

/** A stored run as `GET /agent/runs/{id}` shows it. */
export function statusOfStoredRun(run: StoredRun): RunStatus {
  const status: RunStatus = {
    id: run.id,
    session_id: run.sessionId,
    state: run.state,
    background: run.background,
    created_at: new Date(run.createdAtMs).toISOString(),
    finished_at: run.finishedAtMs === null ? null : new Date(run.finishedAtMs).toISOString(),
    usage: {
      input_tokens: run.inputTokens,
      output_tokens: run.outputTokens,
      total_tokens: run.inputTokens + run.outputTokens,
    },
    last_seq: run.lastSeq,
  };
  if (run.reply !== null) status.reply = JSON.parse(run.reply) as ChatReply;
  // A waiting run lists only the calls still waiting: those decided since (elsewhere) drop out.
  if (run.state === 'awaiting_input' && run.approvals !== null && status.reply?.approvals !== undefined) {
    const waiting = new Set(pendingApprovalIds(run.approvals));
    status.reply.approvals = status.reply.approvals.filter((approval) => waiting.has(approval.id));
  }
  if (run.problem !== null) status.problem = JSON.parse(run.problem) as NonNullable<RunStatus['problem']>;
  return status;
}

/** How a stored run ended, as `impliedRunParts` reads it. */
function endingOf(run: StoredRun): RunEnding {
  const status = statusOfStoredRun(run);
  const ending: Mutable<RunEnding> = { runId: run.id, state: run.state };
  if (status.reply !== undefined) ending.reply = status.reply;
  if (status.problem !== undefined) ending.problem = status.problem;
  return ending;
}

/** A reader of a run's stream: gets each part once, in order, then the end. */
interface Follower {
  /** Sends parts numbered `sent + 1` on, that many as are known. */
  readonly push: () => void;
}

/** A run of this instance: its parts in memory while it lives, written in batches. */
class LiveRun implements TurnRun {
  readonly id: string;
  readonly #owner: ActorRuns;
  readonly #start: RunStart;
  #createdAtMs = Date.now();
  readonly #link: LinkedAbort;
  readonly #leave: () => void;
  /** Every part so far, as JSON text; part n is `parts[n - 1]`. */
  readonly parts: string[] = [];
  readonly followers = new Set<Follower>();
  state: RunState = 'running';
  /** No part follows. */
  ended = false;
  cancelled = false;
  #sideEffects = false;
  #finishedAtMs: number | null = null;
  #reply: ChatReply | undefined;
  /** The tool calls it asked a person about (`StoredRun.approvals`), once it waits for them. */
  #approvals: string | null;
  #askedAtMs = 0;
  #problem: { code: string; title: string; detail?: string } | undefined;
  /** Its parts are told from its end (`impliedRunParts`), not stored: its row says `lastSeq` 0. */
  implied = false;
  #told = false;
  #replyText: string | undefined;
  #requestText: string | undefined;
  /** Parts written so far, and whether the row was. */
  storedSeq = 0;
  rowStored = false;
  /** Changed since the last write. */
  dirty = true;
  readonly #storedWaiters: (() => void)[] = [];
  /** `performance.now()` at the start: a run younger than one flush interval is written once it ends or ages. */
  readonly startedMs = performance.now();

  constructor(owner: ActorRuns, start: RunStart, link: LinkedAbort, leave: () => void) {
    this.#owner = owner;
    this.#start = start;
    this.id = start.id;
    // A run that goes on after approvals keeps them, decisions included, in its row.
    this.#approvals = start.approvals ?? null;
    this.#link = link;
    this.#leave = leave;
  }

  get tenantId(): string {
    return this.#start.tenantId;
  }

  get sessionId(): string {
    return this.#start.request.session_id;
  }

  /** A run run again after a takeover: the stored parts of the attempt before are its first ones, and it keeps its creation time. */
  continues(earlier: EarlierAttempt): void {
    this.parts.push(...earlier.parts);
    this.storedSeq = earlier.parts.length;
    this.#createdAtMs = earlier.createdAtMs;
  }

  get signal(): AbortSignal {
    return this.#link.signal;
  }

  get finished(): boolean {
    return isFinalRunState(this.state);
  }

  /** It ended, or waits for a person: nothing runs here any more (no lease, no heartbeat). */
  get settled(): boolean {
    return this.finished || this.state === 'awaiting_input';
  }

  part(part: UiStreamPart): void {
    if (this.ended) return;
    this.parts.push(JSON.stringify(part));
    this.#changed();
  }

  end(): void {
    this.ended = true;
    this.#changed();
  }

  toolRan(readOnly: boolean): void {
    if (!readOnly && !this.#sideEffects) {
      this.#sideEffects = true;
      this.dirty = true;
    }
  }

  settle(outcome: { readonly reply: ChatReply } | { readonly error: unknown }): void {
    if (this.settled) return;
    this.ended = true;
    if ('reply' in outcome && outcome.reply.status === 'awaiting_input') {
      // It waits for a person: not finished, held by no lease, its request kept to go on from.
      this.state = 'awaiting_input';
      this.#reply = outcome.reply;
      this.#askedAtMs = Date.now();
      this.#approvals = approvalsOfReply(outcome.reply, this.#askedAtMs);
      this.#owner.asked(this, outcome.reply);
    } else if ('reply' in outcome) {
      this.#finishedAtMs = Date.now();
      this.state = 'completed';
      this.#reply = outcome.reply;
    } else {
      this.#finishedAtMs = Date.now();
      const stopped = !this.cancelled && this.#owner.lifecycle.shutdownSignal.aborted;
      this.state = this.cancelled ? 'cancelled' : 'failed';
      this.#problem = problemOf(outcome.error, stopped);
    }
    if (!this.#start.observed) {
      // Nobody watched its events (a JSON invoke): after its start, its parts are told from its
      // end (`readableParts`, when someone reads them), never written.
      this.implied = true;
      this.storedSeq = this.parts.length;
    }
    this.#link.dispose();
    this.#leave();
    this.#changed();
  }

  /** Stops the run: its model call and tools are aborted, and it ends `cancelled`. */
  cancel(reason: ActorError): void {
    if (this.finished || this.cancelled) return;
    this.cancelled = true;
    this.#link.abort(reason);
  }

  stream(onClose?: () => void): ReadableStream<Uint8Array> {
    return this.#owner.followLive(this, (this.#start.firstSeq ?? 1) - 1, () => {
      onClose?.();
      // The invoke's own reader left before the end: with `on_disconnect: "cancel"`, so does the run.
      if (this.#start.clientSignal !== undefined && !this.ended)
        this.cancel(clientClosedError(new Error('The stream of the invoke was cancelled')));
    });
  }

  stored(): Promise<void> {
    if (this.rowStored && !this.dirty) return Promise.resolve();
    this.#owner.flushSoon(0);
    return new Promise((resolve) => this.#storedWaiters.push(resolve));
  }

  /** Someone waits for the run to be stored: the next write takes it however young. */
  get awaited(): boolean {
    return this.#storedWaiters.length > 0;
  }

  /** The parts a reader gets: as written, or, for an implied run once ended, told from its end. */
  readableParts(): readonly string[] {
    if (this.implied && !this.#told) {
      this.#told = true;
      const told = impliedRunParts(endingOf(this.row())).map((part) => JSON.stringify(part));
      this.parts.splice(0, this.parts.length, ...told);
    }
    return this.parts;
  }

  /** Called after a write that stored everything up to now. */
  wasStored(): void {
    for (const resolve of this.#storedWaiters.splice(0)) resolve();
  }

  status(): RunStatus {
    return statusOfStoredRun(this.row());
  }

  /** The run as the store keeps it now. */
  row(): StoredRun {
    const usage = this.#reply?.usage;
    return {
      id: this.id,
      tenantId: this.#start.tenantId,
      sessionId: this.sessionId,
      state: this.state,
      background: this.#start.background,
      createdAtMs: this.#createdAtMs,
      finishedAtMs: this.#finishedAtMs,
      inputTokens: usage?.input_tokens ?? 0,
      outputTokens: usage?.output_tokens ?? 0,
      reply: this.#reply === undefined ? null : (this.#replyText ??= JSON.stringify(this.#reply)),
      problem: this.#problem === undefined ? null : JSON.stringify(this.#problem),
      runner: this.#owner.instanceId,
      // A waiting run holds no instance: its "lease" is its approvals' deadline, which the sweep acts on.
      leaseExpiresAtMs:
        this.state === 'awaiting_input'
          ? this.#askedAtMs + this.#owner.approvalTimeoutMs
          : this.finished
            ? null
            : Date.now() + this.#owner.leaseMs,
      cancelRequested: this.cancelled,
      lastSeq: this.implied ? 0 : this.parts.length,
      // Kept for a retry after a takeover, which only a run whose events were watched can have.
      request:
        this.#start.observed || this.#approvals !== null
          ? (this.#requestText ??= JSON.stringify(this.#start.request))
          : '',
      sideEffects: this.#sideEffects,
      approvals: this.#approvals,
    };
  }

  #changed(): void {
    this.dirty = true;
    for (const follower of this.followers) follower.push();
    this.#owner.flushSoon(FLUSH_INTERVAL_MS);
  }
}

/**
 * The runs of one instance, and the way to the runs of every replica: each invoke begins a
 * run here (`TurnRuns`); its parts stay in memory while it lives and are written in batches
 * (every 50 ms, all runs in one transaction), with its row and a lease renewed every quarter of
 * `RUN_LEASE_MS`. A run's stream is read from memory on its own instance and from the store
 * elsewhere (polled every 250 ms). On PostgreSQL, cancels asked on another replica are looked
 * for every second, and expired leases are swept (`FOR UPDATE SKIP LOCKED`) every quarter lease.
 */
export class ActorRuns implements TurnRuns {
  readonly instanceId: string;
  readonly leaseMs: number;
  readonly approvalTimeoutMs: number;
  readonly lifecycle: ActorRunsOptions['lifecycle'];
  readonly #options: ActorRunsOptions;
  readonly #live = new Map<string, LiveRun>();
  /** Runs taken over to be run again, while `options.rerun` begins them. */
  readonly #retrying = new Map<string, EarlierAttempt>();
  readonly #shared: boolean;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #lastRenewalMs = 0;
  #closed = false;

  constructor(options: ActorRunsOptions) {
    this.#options = options;
    this.instanceId = options.instanceId;
    this.leaseMs = options.leaseMs;
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.lifecycle = options.lifecycle;
    this.#shared = options.storeKind === 'postgres';
  }

  /** Runs of this instance still in progress (`/health` reports it as `runs_in_progress`). */
  get inProgress(): number {
    let count = 0;
    for (const run of this.#live.values()) if (!run.settled) count += 1;
    return count;
  }

  begin(start: RunStart): TurnRun {
    const link = this.lifecycle.linkWork(start.clientSignal);
    const run = new LiveRun(this, start, link, this.lifecycle.enter());
    if (start.firstSeq !== undefined && start.firstSeq !== 1) {
      const earlier = this.#retrying.get(start.id);
      this.#retrying.delete(start.id);
      if (earlier?.parts.length !== start.firstSeq - 1)
        throw new TypeError(
          `Run ${start.id} cannot begin at part ${start.firstSeq}: it was not taken over with as many`,
        );
      run.continues(earlier);
    }
    if (start.clientSignal !== undefined) {
      const clientLeft = () => {
        if (!run.finished) run.cancelled = true;
      };
      if (start.clientSignal.aborted) clientLeft();
      else start.clientSignal.addEventListener('abort', clientLeft, { once: true });
    }
    this.#live.set(run.id, run);
    this.#startHeartbeat();
    return run;
  }

  /**
   * Starts what runs in the background: on PostgreSQL, the sweep of expired leases every
   * quarter lease; on SQLite, one sweep now that takes over every run left in progress by the
   * process before this one (one process owns an SQLite file).
   */
  start(): void {
    // Every quarter lease: expired leases (PostgreSQL's replicas) and approvals past their deadline (both engines).
    this.#sweeper = setInterval(() => void this.sweep(Date.now()), this.leaseMs / 4);
    this.#sweeper.unref?.();
    void this.sweep(this.#shared ? Date.now() : Number.MAX_SAFE_INTEGER, Date.now());
  }

  /** One run of this instance, while it lives here. */
  local(id: string): LiveRun | undefined {
    return this.#live.get(id);
  }

  /** Asks for a flush within `delayMs`. */
  flushSoon(delayMs: number): void {
    if (this.#closed) return;
    if (this.#flushTimer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.#flushTimer);
    }
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      void this.flush();
    }, delayMs);
    this.#flushTimer.unref?.();
  }

  /** Writes every changed run (its row and its new parts) in one transaction; a failure is retried. */
  flush(): Promise<void> {
    this.#flushing ??= this.#write().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #write(): Promise<void> {
    // A run that ends within a flush interval of its start is written once, ended: most turns.
    const youngSince = performance.now() - FLUSH_INTERVAL_MS;
    const changed = [...this.#live.values()].filter(
      (run) => run.dirty && (run.finished || run.awaited || run.startedMs <= youngSince),
    );
    if (changed.length === 0) {
      if ([...this.#live.values()].some((run) => run.dirty)) this.flushSoon(FLUSH_INTERVAL_MS);
      return;
    }
    const marks = changed.map((run) => ({
      run,
      seq: run.implied ? run.storedSeq : run.parts.length,
      finished: run.settled,
    }));
    const writes: RunWrite[] = marks.map(({ run, seq }) => {
      run.dirty = false;
      const write: { run: StoredRun; parts?: { firstSeq: number; parts: readonly string[] } } = { run: run.row() };
      if (seq > run.storedSeq)
        write.parts = { firstSeq: run.storedSeq + 1, parts: run.parts.slice(run.storedSeq, seq) };
      return write;
    });
    try {
      await this.#options.store.writeRuns(writes);
    } catch (error) {
      for (const { run } of marks) run.dirty = true;
      this.#options.logger.warn('runs_write_failed', { runs: marks.length, error });
      this.flushSoon(RETRY_WRITE_MS);
      return;
    }
    for (const { run, seq, finished } of marks) {
      run.storedSeq = seq;
      run.rowStored = true;
      if (!run.dirty) run.wasStored();
      // A finished (or waiting) run, all of it written, is read from the store from now on.
      if (finished && !run.dirty) this.#live.delete(run.id);
    }
    if ([...this.#live.values()].some((run) => run.dirty)) this.flushSoon(FLUSH_INTERVAL_MS);
    if (this.inProgress === 0) this.#stopHeartbeat();
  }

  async answerApprovals(
    tenantId: string,
    where: { readonly sessionId: string } | { readonly runId: string },
    answers: readonly RunApprovalAnswer[],
    decidedBy: string,
  ): Promise<ResumedRun | { readonly waiting: RunStatus }> {
    // A run that just paused here may not be written yet.
    for (const run of this.#live.values())
      if (
        run.state === 'awaiting_input' &&
        run.tenantId === tenantId &&
        ('runId' in where ? run.id === where.runId : run.sessionId === where.sessionId)
      )
        await run.stored();
    const store = this.#options.store;
    // An approval id names its run: an answer is checked against that run's tenant and session.
    const runId = 'runId' in where ? where.runId : namedRun(answers);
    const found =
      runId !== undefined
        ? await store.readRun(runId)
        : 'sessionId' in where
          ? await store.readActiveRun(tenantId, where.sessionId)
          : null;
    const ours =
      found !== null && found.tenantId === tenantId && ('runId' in where || found.sessionId === where.sessionId);
    if (found === null || !ours) {
      if ('runId' in where) throw new ActorError('run_not_found');
      throw new ActorError('approval_not_found', {
        detail: `No run of session ${where.sessionId} asked for approval ${answers[0]?.id ?? ''}`,
      });
    }
    const waiting = found;
    if (waiting.state !== 'awaiting_input' || waiting.approvals === null) {
      const asked = waiting.approvals === null ? [] : askedApprovalIds(waiting.approvals);
      if (answers.some((answer) => asked.includes(answer.id)))
        throw new ActorError('approval_already_decided', {
          detail: `Run ${waiting.id} is ${waiting.state}: its approvals were decided already`,
        });
      throw new ActorError('run_not_awaiting_input', {
        detail: `Run ${waiting.id} is ${waiting.state}, waiting for no approval`,
      });
    }
    const nowMs = Date.now();
    const decided = decideApprovals(waiting.approvals, answers, decidedBy, nowMs);
    const resume = decided.complete
      ? { runner: this.instanceId, leaseExpiresAtMs: Date.now() + this.leaseMs }
      : undefined;
    const taken = await this.#options.store.decideRunApprovals(
      waiting.id,
      waiting.approvals,
      decided.approvals,
      resume,
    );
    if (taken === null)
      throw new ActorError('run_not_awaiting_input', {
        detail: `Run ${waiting.id} was answered or went on meanwhile; read it with GET /agent/runs/${waiting.id}`,
      });
    for (const decision of decided.decisions) {
      this.#options.metrics?.toolApprovals.inc({ tool: decision.tool, decision: decision.decision });
      this.#options.logger.info('tool_approval_decided', {
        run_id: waiting.id,
        approval_id: decision.id,
        tool: decision.tool,
        decision: decision.decision,
        decided_by: decision.decidedBy,
        waited_ms: decision.waitedMs,
      });
    }
    if (!decided.complete) return { waiting: statusOfStoredRun(taken) };
    const earlier = await this.#storedParts(taken);
    if (earlier.length > 0) this.#retrying.set(taken.id, { parts: earlier, createdAtMs: taken.createdAtMs });
    return {
      id: taken.id,
      approvals: decided.approvals,
      request: v.parse(ChatRequest, JSON.parse(taken.request)),
      background: taken.background,
      lastSeq: earlier.length,
      decided: decidedCalls(decided.approvals),
      ...(taken.reply === null ? {} : { messageId: (JSON.parse(taken.reply) as ChatReply).message.id }),
    };
  }

  /**
   * The tenant's runs awaiting a person's approval, the longest waiting first, at most `limit`;
   * a run that just paused on this instance is written first, so it is among them.
   */
  async awaiting(tenantId: string, limit: number): Promise<StoredRun[]> {
    for (const run of this.#live.values())
      if (run.state === 'awaiting_input' && run.tenantId === tenantId) await run.stored();
    return this.#options.store.readAwaitingRuns(tenantId, limit);
  }

  /** Logs each tool call a run of this instance now waits for (`tool_approval_requested`). */
  asked(run: LiveRun, reply: ChatReply): void {
    for (const approval of reply.approvals ?? [])
      this.#options.logger.info('tool_approval_requested', {
        run_id: run.id,
        approval_id: approval.id,
        tool: approval.tool,
        tenant_id: run.tenantId,
        session_id: run.sessionId,
      });
  }

  /** Cancels a run of this instance; false when it is not here. */
  cancelLocal(id: string): boolean {
    const run = this.#live.get(id);
    if (run === undefined || run.finished) return false;
    run.cancel(new ActorError('run_cancelled', { detail: 'The run was cancelled before it answered' }));
    return true;
  }

  /**
   * Asks for a run to be cancelled, wherever it runs: here at once; on another replica through
   * the store, which its runner reads every second. Returns the run as it is now, or null.
   */
  async cancel(id: string): Promise<StoredRun | null> {
    const local = this.#live.get(id);
    if (local !== undefined) {
      this.cancelLocal(id);
      return local.row();
    }
    return this.#options.store.requestRunCancel(id);
  }

  /** The tenant's run of this id, or null (another tenant's included). */
  async #tenantRun(tenantId: string, id: string): Promise<StoredRun | null> {
    const run = id.length > 128 ? null : await this.read(id);
    return run === null || run.tenantId !== tenantId ? null : run;
  }

  async tenantRunStatus(tenantId: string, id: string): Promise<RunStatus | null> {
    const run = await this.#tenantRun(tenantId, id);
    return run === null ? null : statusOfStoredRun(run);
  }

  async followTenantRun(
    tenantId: string,
    id: string,
    after: number,
    onClose?: () => void,
  ): Promise<ReadableStream<Uint8Array> | null> {
    const run = await this.#tenantRun(tenantId, id);
    return run === null ? null : this.follow(run, after, onClose);
  }

  async cancelTenantRun(tenantId: string, id: string): Promise<RunStatus | null> {
    const run = await this.#tenantRun(tenantId, id);
    if (run === null) return null;
    if (isFinalRunState(run.state)) return statusOfStoredRun(run);
    return statusOfStoredRun((await this.cancel(run.id)) ?? run);
  }

  async listTenantRuns(
    tenantId: string,
    page: { readonly sessionId?: string; readonly beforeId?: string; readonly limit: number },
  ): Promise<RunStatus[]> {
    // This instance's runs are written first, so that the list has them.
    for (const run of this.#live.values()) if (run.tenantId === tenantId) await run.stored();
    const stored = await this.#options.store.readTenantRuns(tenantId, page);
    return stored.map((run) => statusOfStoredRun(this.#live.get(run.id)?.row() ?? run));
  }

  /** A run, from this instance's memory or the store. */
  async read(id: string): Promise<StoredRun | null> {
    return this.#live.get(id)?.row() ?? this.#options.store.readRun(id);
  }

  /** The newest run of a session still in progress, here or on any replica. */
  async active(tenantId: string, sessionId: string): Promise<StoredRun | null> {
    let newest: LiveRun | undefined;
    for (const run of this.#live.values())
      if (!run.finished && run.tenantId === tenantId && run.sessionId === sessionId) newest = run;
    return newest?.row() ?? this.#options.store.readActiveRun(tenantId, sessionId);
  }

  /** A run's parts after `after` as SSE, then its live ones until its end: from memory when it runs here, else from the store. */
  follow(run: StoredRun, after: number, onClose?: () => void): ReadableStream<Uint8Array> {
    const local = this.#live.get(run.id);
    return local === undefined ? this.#followStored(run.id, after, onClose) : this.followLive(local, after, onClose);
  }

  /** A live run's parts after `after`, from memory, each once, then `[DONE]`. */
  followLive(run: LiveRun, after: number, onClose?: () => void): ReadableStream<Uint8Array> {
    let sent = after;
    let follower: Follower | undefined;
    const detach = () => {
      if (follower !== undefined) run.followers.delete(follower);
      follower = undefined;
      onClose?.();
      onClose = undefined;
    };
    return new ReadableStream<Uint8Array>({
      start(controller) {
        follower = {
          push() {
            try {
              const parts = run.readableParts();
              while (sent < parts.length) {
                sent += 1;
                controller.enqueue(sseFrame(parts[sent - 1]!, sent));
              }
              if (run.ended) {
                controller.enqueue(SSE_DONE);
                controller.close();
                detach();
              }
            } catch {
              detach();
            }
          },
        };
        run.followers.add(follower);
        follower.push();
      },
      cancel: detach,
    });
  }

  /** A run of another replica (or finished): its stored parts after `after`, read every 250 ms until it ends. */
  #followStored(id: string, after: number, onClose?: () => void): ReadableStream<Uint8Array> {
    const store = this.#options.store;
    let sent = after;
    let stopped = false;
    const stop = () => {
      stopped = true;
      onClose?.();
      onClose = undefined;
    };
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          if (stopped) return;
          const run = await store.readRun(id);
          const finished = run === null || isFinalRunState(run.state);
          if (run !== null && finished && run.lastSeq === 0) {
            // A run whose parts were never written (a JSON invoke's): told from its end.
            impliedRunParts(endingOf(run)).forEach((part, index) => {
              if (index + 1 > sent) controller.enqueue(sseFrame(JSON.stringify(part), index + 1));
            });
            controller.enqueue(SSE_DONE);
            controller.close();
            stop();
            return;
          }
          const parts = await store.readRunParts(id, sent, FOLLOW_BATCH);
          const before = sent;
          for (const { seq, part } of parts) {
            if (seq !== sent + 1) break;
            sent = seq;
            controller.enqueue(sseFrame(part, seq));
          }
          if (finished && sent >= (run?.lastSeq ?? 0)) {
            controller.enqueue(SSE_DONE);
            controller.close();
            stop();
            return;
          }
          // Parts that do not follow on (a gap) are waited for, not read again at once.
          if (sent > before) return;
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
        }
      },
      cancel: stop,
    });
  }

  /**
   * Takes over runs whose lease expired (their instance died): each ends `failed`
   * `runner_lost`, with an `error` part that ends its stream — or, when `RUN_RETRY_READ_ONLY` is
   * set and every tool it ran was read-only, is run again from the start.
   */
  async sweep(nowMs: number, deadlineMs = nowMs): Promise<void> {
    let taken: StoredRun[];
    try {
      taken = await this.#options.store.takeExpiredRuns(
        this.instanceId,
        nowMs,
        Date.now() + this.leaseMs,
        TAKEOVER_BATCH,
        deadlineMs,
      );
    } catch (error) {
      this.#options.logger.warn('runs_sweep_failed', { error });
      return;
    }
    for (const run of taken) {
      if (run.state === 'awaiting_input') {
        await this.#expireApprovals(run);
        continue;
      }
      if (this.#options.retryReadOnly && !run.sideEffects && (await this.#retry(run))) continue;
      this.#options.logger.warn('run_taken_over', { run_id: run.id, outcome: 'runner_lost' });
      const problem = runnerProblem('runner_lost');
      const errorPart = JSON.stringify({ type: 'error', errorText: problemErrorText(problem) });
      await this.#options.store
        .writeRuns([
          {
            run: {
              ...run,
              state: 'failed',
              finishedAtMs: Date.now(),
              problem: JSON.stringify(problem),
              leaseExpiresAtMs: null,
              lastSeq: run.lastSeq + 1,
            },
            parts: { firstSeq: run.lastSeq + 1, parts: [errorPart] },
          },
        ])
        .catch((error: unknown) => this.#options.logger.warn('runs_write_failed', { runs: 1, error }));
    }
  }

  /**
   * Runs a taken-over run again (`options.rerun`), its parts numbered on after its stored ones;
   * false when it cannot be (no `rerun`, retried once already, its parts unreadable, or `rerun`
   * threw): it then fails.
   */
  async #retry(run: StoredRun): Promise<boolean> {
    const rerun = this.#options.rerun;
    if (rerun === undefined) return false;
    try {
      const parts = await this.#storedParts(run);
      // Once only: a run whose retry died too (a request that kills its runner, say) fails.
      if (parts.filter((part) => (JSON.parse(part) as { type?: string }).type === 'start').length > 1) return false;
      this.#retrying.set(run.id, { parts, createdAtMs: run.createdAtMs });
      rerun(run);
      this.#options.logger.info('run_taken_over', { run_id: run.id, outcome: 'retried' });
      return true;
    } catch (error) {
      this.#options.logger.warn('run_retry_failed', { run_id: run.id, error });
      return false;
    } finally {
      this.#retrying.delete(run.id);
    }
  }

  /**
   * Denies, as `approval_expired`, the calls a run still waits for past its deadline (its lease,
   * which the sweep just took), and continues the run here: the model is told, and it ends.
   */
  async #expireApprovals(run: StoredRun): Promise<void> {
    if (run.approvals === null) return;
    const answers = pendingApprovalIds(run.approvals).map((id) => ({
      id,
      approved: false,
      reason: 'approval_expired',
    }));
    try {
      const resumed = await this.answerApprovals(run.tenantId, { runId: run.id }, answers, EXPIRY);
      if ('waiting' in resumed) return;
      this.#options.resume?.(run.tenantId, resumed);
    } catch (error) {
      this.#options.logger.warn('approvals_expiry_failed', { run_id: run.id, error });
    }
  }

  /** A run's stored parts, all of them, in order; rejects when some are missing. */
  async #storedParts(run: StoredRun): Promise<string[]> {
    const parts: string[] = [];
    while (parts.length < run.lastSeq) {
      const batch = await this.#options.store.readRunParts(run.id, parts.length, FOLLOW_BATCH);
      if (batch.length === 0 || batch[0]!.seq !== parts.length + 1) break;
      for (const { seq, part } of batch) if (seq === parts.length + 1) parts.push(part);
    }
    if (parts.length !== run.lastSeq) throw new Error(`${parts.length} of its ${run.lastSeq} parts are stored`);
    return parts;
  }

  /** Every second while a run is in progress here: renews leases every quarter lease and, on PostgreSQL, looks for cancels. */
  #startHeartbeat(): void {
    if (this.#heartbeat !== undefined || this.#closed) return;
    // Often enough for both: the cancel poll (every second) and a renewal every quarter lease.
    this.#heartbeat = setInterval(() => void this.#beat(), Math.min(CANCEL_POLL_MS, this.leaseMs / 4));
    this.#heartbeat.unref?.();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat === undefined) return;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  async #beat(): Promise<void> {
    const running = [...this.#live.values()].filter((run) => !run.settled);
    if (running.length === 0) return;
    const nowMs = Date.now();
    if (nowMs - this.#lastRenewalMs >= this.leaseMs / 4) {
      this.#lastRenewalMs = nowMs;
      for (const run of running) run.dirty = true;
      this.flushSoon(0);
    }
    if (!this.#shared) return;
    try {
      const cancelled = await this.#options.store.cancelledRuns(running.map((run) => run.id));
      for (const id of cancelled) this.cancelLocal(id);
    } catch (error) {
      this.#options.logger.warn('runs_cancel_poll_failed', { error });
    }
  }

  /** Stops the timers and writes what is left (the shutdown calls it before the store closes). */
  async close(): Promise<void> {
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#stopHeartbeat();
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    await this.#flushing;
    await this.flush();
    this.#closed = true;
  }
}

/** The runs of an actor's context (`ctx.runs`, as the runs feature built it). */
export function actorRunsOf(ctx: { readonly runs: TurnRuns }): ActorRuns {
  if (!(ctx.runs instanceof ActorRuns))
    throw new TypeError('ctx.runs is not the runs feature: build the context with createActorApp');
  return ctx.runs;
}

/**
 * Reads runs from the store, turning an unreachable database into 503 `store_unavailable`.
 * @param read the store read
 */
export async function fromRunStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ActorError('store_unavailable', {
      detail: 'Runs are unavailable: the database is unreachable; try again shortly',
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
}
