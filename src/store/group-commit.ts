import { timeOrderedId } from '../core/time-ordered-id.js';
import { withTimeout } from '../core/with-timeout.js';
import type { Mutable } from '../core/mutable.js';
import { createLogger, type Logger } from '../log/logger.js';
import { addTurnsToSnapshot } from './stats-tally.js';
import type { TurnToSave, SessionStore, StatsSnapshot, Store } from './store.js';
import { checkedTurnToSave, withoutHistory } from './store-input-validation.js';
import { isStoreTimeout, storeTimeoutError } from './store-deadline.js';
import { isDiskFull, isRefusedValue } from './database-errors.js';
import { throttledLog, type ThrottledLog } from '../log/throttled-log.js';
import { type InvocationJournal, replaySpilledInvocations } from './spilled-invocations.js';

/** Options of a `GroupCommit`. */
export interface GroupCommitOptions {
  readonly logger?: Logger;
  /** Told about every write that reached or missed the database (a `DatabaseMonitor`). */
  readonly monitor?: { noteSuccess(options?: { readonly stored?: boolean }): void; noteFailure(error: unknown): void };
  /** Time between two retries while turns wait (default 1,000 ms). */
  readonly retryIntervalMs?: number;
  /** A store call that takes longer counts as failed (default 3,000 ms); the retry cannot double count, turns carry ids. */
  readonly timeoutMs?: number;
  /** Most turns per retried write (default 500). */
  readonly batchSize?: number;
  /** Most snapshots kept for reading stats during an outage, one per tenant asked for (default 1,000). */
  readonly cachedSnapshots?: number;
  /** Told about every turn set aside because the database refused its values (a metric). */
  readonly onSetAside?: () => void;
  /**
   * Where waiting turns are journaled (synced before `saveTurn` resolves), so a killed process
   * loses none; when the database is back the journal is discarded and those of processes that
   * are gone are merged. Without one, waiting turns live in memory only.
   */
  readonly journal?: InvocationJournal;
}

interface PendingEntry {
  readonly seq: number;
  readonly turn: TurnToSave & { readonly id: string };
}

/** What became of one recorded invoke. */
export interface TurnSaveOutcome {
  /** False when the turn waits in memory for the database (or was invalid and dropped). */
  readonly persisted: boolean;
  /** Set when the turn carried `history`: whether those messages were stored. */
  readonly historySaved?: boolean;
  /**
   * Set when the turn carried an `idempotency` completion: whether it was committed with the
   * turn. When not, the caller completes the key on its own.
   */
  readonly idempotencyCompleted?: boolean;
}

/** A `TurnSaveOutcome` with only the fields that apply (undefined leaves one out): plain assignments, not a conditional spread's throwaway objects, on every turn. */
function recordOutcome(
  persisted: boolean,
  historySaved: boolean | undefined,
  idempotencyCompleted: boolean | undefined,
): TurnSaveOutcome {
  const outcome: Mutable<TurnSaveOutcome> = { persisted };
  if (historySaved !== undefined) outcome.historySaved = historySaved;
  if (idempotencyCompleted !== undefined) outcome.idempotencyCompleted = idempotencyCompleted;
  return outcome;
}

interface QueuedEntry {
  readonly entry: PendingEntry;
  /** Told whether the turn was written, and whether its history (and idempotency completion) was written with it. */
  readonly settle: (written: { readonly persisted: boolean; readonly historySaved: boolean }) => void;
}

/** Resolves after the I/O callbacks already due have run (`setImmediate` where the runtime has it). */
function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate === undefined ? setTimeout(resolve, 0) : immediate(resolve)));
}

const TOTAL_SCOPE = '';
/** Least time between two `history_write_failed` lines. */
const HISTORY_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Group commit over any store's sessions part, and the store's one batching layer: outage
 * queue, retry and flush (or spill) on shutdown. The engines only ever see `saveTurns` calls;
 * this wrapper decides which turns share one. Saves finished turns without ever losing a
 * count: `saveTurn()` writes through to the store (turns arriving while a write is in flight
 * share the next `saveTurns` call, one transaction); when the write fails it keeps the turn's
 * stats in memory, in order, logs once per outage, and retries on a timer and on every later
 * turn. `readStats()` adds the turns still waiting, so the counters stay exact during an
 * outage. While the database cannot be read
 * either, it answers from the last snapshot it read plus what this process wrote since, so
 * other replicas' writes after that read are missing until the database returns; the
 * distinct counts (sessions, users, tenants) are then a lower bound.
 * @example
 * const turns = new GroupCommit(store, { logger, monitor: database });
 * const { persisted } = await turns.saveTurn(turn);
 * await turns.flush(); // on shutdown
 */
export class GroupCommit {
  readonly #store: SessionStore & Pick<Store, 'kind'>;
  readonly #logger: Logger;
  readonly #monitor: GroupCommitOptions['monitor'];
  readonly #retryIntervalMs: number;
  readonly #timeoutMs: number;
  readonly #batchSize: number;
  readonly #cachedSnapshots: number;
  readonly #onSetAside: (() => void) | undefined;
  readonly #journal: InvocationJournal | undefined;
  /** Set while journal appends fail, so the failure is logged once until one succeeds. */
  #journalFailing = false;
  #setAside = 0;
  readonly #historyWriteFailed: ThrottledLog;
  #pending: PendingEntry[] = [];
  /** Turns waiting for the write in flight to finish, to go together in the next one. */
  #queued: QueuedEntry[] = [];
  #writingQueued: Promise<void> | undefined;
  #seq = 0;
  #writing = new Set<Promise<unknown>>();
  #draining: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #outage: { readonly sinceMs: number; deferred: number } | undefined;
  /** Incremented by every write that reached the store, to tell whether a snapshot read raced one. */
  #writeEpoch = 0;
  readonly #snapshots = new Map<string, StatsSnapshot>();

  constructor(store: SessionStore & Pick<Store, 'kind'>, options: GroupCommitOptions = {}) {
    this.#store = store;
    this.#logger = options.logger ?? createLogger();
    this.#monitor = options.monitor;
    this.#retryIntervalMs = options.retryIntervalMs ?? 1_000;
    this.#timeoutMs = options.timeoutMs ?? 3_000;
    this.#batchSize = options.batchSize ?? 500;
    this.#cachedSnapshots = options.cachedSnapshots ?? 1_000;
    this.#onSetAside = options.onSetAside;
    this.#journal = options.journal;
    this.#historyWriteFailed = throttledLog(
      this.#logger,
      'error',
      'history_write_failed',
      HISTORY_FAILURE_LOG_INTERVAL_MS,
    );
  }

  /** Turns waiting in memory for the database. */
  get pending(): number {
    return this.#pending.length;
  }

  /** The journal of the waiting turns, if any. */
  get journal(): InvocationJournal | undefined {
    return this.#journal;
  }

  /** Turns set aside since start because the database refused their values (never counted, never retried). */
  get setAside(): number {
    return this.#setAside;
  }

  /**
   * Saves one finished turn: counts its stats, stores its `history` and completes its
   * idempotency key in the same write. Never rejects:
   * `persisted` is false when the turn waits in memory (or was invalid, which is logged as
   * an error and dropped). Its history never waits in memory: when the turn cannot be
   * written at once, the history is written on its own or, failing that, not saved
   * (`historySaved: false`); a history that is not valid is dropped and the turn kept.
   */
  async saveTurn(input: TurnToSave): Promise<TurnSaveOutcome> {
    const turn = this.#admit(input);
    const completing = (input as TurnToSave | null)?.idempotency !== undefined;
    if (turn === undefined) {
      return recordOutcome(false, input?.history === undefined ? undefined : false, completing ? false : undefined);
    }
    const historyKept = turn.history !== undefined;
    const entry: PendingEntry = { seq: this.#seq++, turn };
    let persisted = false;
    let historySaved = false;
    let idempotencyCompleted = false;
    if (this.#outage !== undefined || this.#pending.length > 0) {
      const journaled = this.#defer(entry);
      void this.#drain();
      if (historyKept) historySaved = await this.#appendAlone(turn);
      await journaled;
    } else {
      const written = await new Promise<{ readonly persisted: boolean; readonly historySaved: boolean }>((settle) => {
        this.#queued.push({ entry, settle });
        this.#writingQueued ??= this.#writeQueued().finally(() => {
          this.#writingQueued = undefined;
        });
      });
      persisted = written.persisted;
      historySaved = written.historySaved && historyKept;
      idempotencyCompleted = written.historySaved && turn.idempotency !== undefined;
    }
    return recordOutcome(
      persisted,
      input.history === undefined ? undefined : historySaved,
      completing ? idempotencyCompleted : undefined,
    );
  }

  /**
   * The turn, checked once here for the store (see `checkedTurnToSave`) and given an id,
   * or undefined when its counts are not valid. A history that is not valid is dropped and the
   * turn kept; both cases are logged as errors.
   */
  #admit(input: TurnToSave): (TurnToSave & { readonly id: string }) | undefined {
    const id = (input as TurnToSave | null)?.id ?? timeOrderedId();
    const withId = (turn: TurnToSave) => checkedTurnToSave(turn, id) as TurnToSave & { readonly id: string };
    try {
      return withId(input);
    } catch (error) {
      if ((input as TurnToSave | null)?.history !== undefined) {
        try {
          const turn = withId(withoutHistory(input));
          this.#logger.error('invocation_history_invalid', { error });
          return turn;
        } catch {
          // The counts are bad too: the turn goes.
        }
      }
      this.#logger.error('invocation_record_invalid', { error });
      return undefined;
    }
  }

  /**
   * Writes queued turns, one call at a time: the turns that arrive while a write is in
   * flight go together in the next, so concurrent invokes share one transaction (group commit).
   * A group the database refuses is rolled back as a whole, so each of its turns is then
   * written alone and a failure fails only its own turn (see `#writeEachAlone`).
   */
  async #writeQueued(): Promise<void> {
    // Let the requests already received reach here too: SQLite answers synchronously, so
    // without one turn of the event loop no write would ever overlap another.
    await nextTurn();
    while (this.#queued.length > 0) {
      const group = this.#queued.splice(0, this.#batchSize);
      try {
        await this.#write(group.map(({ entry }) => entry.turn));
      } catch (error) {
        if (!(await this.#writeEachAlone(group, error))) return;
        continue;
      }
      for (const { settle } of group) settle({ persisted: true, historySaved: true });
    }
  }

  /**
   * Writes the turns of a refused group one by one, in order; false when the database is
   * away, after deferring the turns not written and everything still queued. A turn whose
   * write fails is written once more without its messages — the messages of a turn may be what
   * the database refused (PostgreSQL takes no NUL in text) — and only when that fails too is the
   * database taken for away — unless the database refused the turn's values: then that turn
   * is set aside (see `#putAside`) and the rest flow. Never after a time-out: the write may still commit, and a silent
   * database would be waited for again.
   */
  async #writeEachAlone(group: readonly QueuedEntry[], groupError: unknown): Promise<boolean> {
    for (const [index, { entry, settle }] of group.entries()) {
      let error = groupError;
      if (group.length > 1 && !isStoreTimeout(groupError)) {
        try {
          await this.#write([entry.turn]);
          settle({ persisted: true, historySaved: true });
          continue;
        } catch (aloneError) {
          error = aloneError;
        }
      }
      if (!isStoreTimeout(error) && entry.turn.history !== undefined) {
        try {
          await this.#write([withoutHistory(entry.turn)]);
          this.#historyNotSaved(entry.turn, error);
          settle({ persisted: true, historySaved: false });
          continue;
        } catch (withoutHistoryError) {
          error = withoutHistoryError;
        }
      }
      if (isRefusedValue(error)) {
        this.#putAside(entry.turn, error);
        settle({ persisted: false, historySaved: false });
        continue;
      }
      this.#failed(error);
      // The database is away: what is still queued waits in memory too, without a doomed write.
      // Each is answered once its count is journaled.
      for (const waiting of [...group.slice(index), ...this.#queued.splice(0)]) {
        void this.#defer(waiting.entry).then(() => waiting.settle({ persisted: false, historySaved: false }));
      }
      return false;
    }
    return true;
  }

  /** Tries once to write every turn waiting; rejects, naming how many still wait, when it cannot. */
  async flush(): Promise<void> {
    await this.#writingQueued;
    await this.#draining;
    if (this.#pending.length > 0) await this.#drain();
    if (this.#pending.length > 0) {
      throw new Error(
        `${this.#pending.length} invocation records could not be written to the ${this.#store.kind} store`,
      );
    }
  }

  /**
   * Hands every turn still waiting to `keep` (durable storage, on shutdown when `flush()`
   * failed) and forgets them once it resolved, discarding the journal when none waits any
   * more; when it rejects, they stay waiting (and journaled).
   * @returns how many turns were handed over
   */
  async spillPending(keep: (turns: readonly TurnToSave[]) => Promise<void>): Promise<number> {
    const spilled = [...this.#pending];
    if (spilled.length === 0) return 0;
    await keep(spilled.map((entry) => entry.turn));
    const kept = new Set(spilled);
    this.#pending = this.#pending.filter((entry) => !kept.has(entry));
    if (this.#pending.length === 0) await this.#discardJournal();
    return spilled.length;
  }

  /** Removes the journal once no turn waits (the database or a spill file has them all). */
  async #discardJournal(): Promise<void> {
    await this.#journal
      ?.discard(() => this.#pending.length === 0)
      .catch((error: unknown) => this.#logger.warn('stats_journal_failed', { error }));
  }

  /**
   * The store's counters (all tenants, or one) plus the turns waiting in memory. When the
   * store cannot be read, the last snapshot read for that scope plus this process's writes
   * since; rejects only when there is none.
   */
  async readStats(tenantId?: string): Promise<StatsSnapshot> {
    const scope = tenantId === undefined ? TOTAL_SCOPE : `tenant:${tenantId}`;
    const epoch = this.#writeEpoch;
    const quiet = this.#writing.size === 0;
    let base: StatsSnapshot;
    try {
      base = await this.#withTimeout(this.#store.readStats(tenantId));
      if (quiet && this.#writing.size === 0 && epoch === this.#writeEpoch) this.#remember(scope, base);
    } catch (error) {
      const remembered = this.#snapshots.get(scope);
      if (remembered === undefined) throw error;
      this.#logger.debug('stats_read_from_memory', { tenant_id: tenantId ?? null, error });
      base = remembered;
    }
    return addTurnsToSnapshot(
      base,
      this.#pending.map((entry) => entry.turn),
      tenantId,
    );
  }

  #remember(scope: string, snapshot: StatsSnapshot): void {
    this.#snapshots.delete(scope);
    this.#snapshots.set(scope, snapshot);
    if (this.#snapshots.size > this.#cachedSnapshots) {
      const oldest = this.#snapshots.keys().next().value;
      if (oldest !== undefined) this.#snapshots.delete(oldest);
    }
  }

  #withTimeout<T>(work: Promise<T>): Promise<T> {
    return withTimeout(work, this.#timeoutMs, () => {
      throw storeTimeoutError(this.#store.kind, this.#timeoutMs);
    });
  }

  async #write(turns: readonly (TurnToSave & { id: string })[]): Promise<void> {
    const write = this.#withTimeout(this.#store.saveTurns(turns));
    this.#writing.add(write);
    try {
      await write;
    } finally {
      this.#writing.delete(write);
    }
    this.#writeEpoch += 1;
    for (const [scope, snapshot] of this.#snapshots) {
      this.#snapshots.set(
        scope,
        addTurnsToSnapshot(snapshot, turns, scope === TOTAL_SCOPE ? undefined : scope.slice('tenant:'.length)),
      );
    }
    this.#monitor?.noteSuccess({ stored: turns.some((turn) => (turn.history?.length ?? 0) > 0) });
  }

  /** Writes a deferred turn's history on its own; true when it was stored. */
  async #appendAlone(turn: TurnToSave): Promise<boolean> {
    try {
      await this.#withTimeout(this.#store.appendMessages(turn.tenantId, turn.sessionId, turn.history ?? []));
      this.#monitor?.noteSuccess({ stored: true });
      return true;
    } catch (error) {
      this.#historyNotSaved(turn, error);
      return false;
    }
  }

  /**
   * Reports a turn whose messages were not stored: a full disk to the monitor (which names it
   * once and turns /health degraded), and `history_write_failed` at most once per minute, as
   * it would otherwise repeat on every turn while the cause lasts.
   */
  #historyNotSaved(turn: TurnToSave, error: unknown): void {
    if (isDiskFull(error)) this.#monitor?.noteFailure(error);
    this.#historyWriteFailed({ tenant_id: turn.tenantId, error });
  }

  /** Keeps a turn waiting (in order) and journals it; resolves once it is on disk, or could not be (logged once). */
  async #defer(queued: PendingEntry): Promise<void> {
    const entry = { seq: queued.seq, turn: withoutHistory(queued.turn) };
    if (this.#outage !== undefined) this.#outage.deferred += 1;
    const pending = this.#pending;
    let index = pending.length;
    while (index > 0 && (pending[index - 1]?.seq ?? -1) > entry.seq) index -= 1;
    pending.splice(index, 0, entry);
    this.#scheduleRetry();
    if (this.#journal === undefined) return;
    try {
      await this.#journal.append(entry.turn);
      this.#journalFailing = false;
    } catch (error) {
      if (this.#journalFailing) return;
      this.#journalFailing = true;
      this.#logger.error('stats_journal_failed', { error, pending: this.#pending.length });
    }
  }

  /**
   * Gives up on a turn the database refused (see `isRefusedValue`), so it never blocks the
   * turns behind it: counted in `setAside`, told to `onSetAside`, and logged as an error once.
   */
  #putAside(turn: TurnToSave, error: unknown): void {
    this.#setAside += 1;
    this.#onSetAside?.();
    this.#logger.error('invocation_record_set_aside', {
      store: this.#store.kind,
      tenant_id: turn.tenantId,
      record_id: turn.id ?? null,
      error,
    });
  }

  #failed(error: unknown): void {
    this.#monitor?.noteFailure(error);
    if (this.#outage === undefined) {
      this.#outage = { sinceMs: Date.now(), deferred: 0 };
      this.#logger.warn('invocation_store_unavailable', {
        store: this.#store.kind,
        error,
        pending: this.#pending.length + 1,
      });
    }
  }

  #scheduleRetry(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, this.#retryIntervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /**
   * Writes a refused batch of waiting turns one by one, setting aside each the database
   * refuses; true when every turn was written or set aside, false (written ones removed from
   * `pending`) when the database went away on the way.
   */
  async #drainEachAlone(batch: readonly PendingEntry[]): Promise<boolean> {
    for (const entry of batch) {
      try {
        await this.#write([entry.turn]);
      } catch (error) {
        if (!isRefusedValue(error)) return false;
        this.#putAside(entry.turn, error);
      }
      this.#pending = this.#pending.filter((waiting) => waiting !== entry);
    }
    return true;
  }

  #drain(): Promise<void> {
    this.#draining ??= this.#drainAll().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  async #drainAll(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.slice(0, this.#batchSize);
      try {
        await this.#write(batch.map((entry) => entry.turn));
      } catch (error) {
        if (!isRefusedValue(error) || !(await this.#drainEachAlone(batch))) {
          this.#failed(error);
          this.#scheduleRetry();
          return;
        }
      }
      const written = new Set(batch);
      this.#pending = this.#pending.filter((entry) => !written.has(entry));
    }
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const recovered = this.#outage !== undefined;
    if (this.#outage !== undefined) {
      this.#logger.info('invocation_store_recovered', {
        store: this.#store.kind,
        outage_ms: Date.now() - this.#outage.sinceMs,
        deferred: this.#outage.deferred,
      });
      this.#outage = undefined;
    }
    if (this.#journal !== undefined && recovered) {
      await this.#discardJournal();
      // The journals of processes killed during the outage are counted now, not at the next start:
      // in the background, each write under the store's deadline (a silent connection never holds it).
      void replaySpilledInvocations(
        this.#journal,
        { saveTurns: (turns) => this.#withTimeout(this.#store.saveTurns(turns)) },
        this.#logger,
      ).catch((error: unknown) => this.#logger.debug('stats_spill_merge_failed', { error }));
    }
  }
}
