import { errorFirstLine } from '../core/error-first-line.js';
import { withTimeout } from '../core/with-timeout.js';
import { createLogger, type Logger } from '../log/logger.js';
import { isDiskFull } from './database-errors.js';
import type { Store } from './store.js';

/** The database check of `/health`: `pass`, `warn` (unknown, or failing briefly) or `fail`, and the store's kind. */
export interface DatabaseStatus {
  readonly status: 'pass' | 'warn' | 'fail';
  readonly output: string;
  /** The store's kind, e.g. `sqlite`. */
  readonly kind: string;
}

/** Options of a `DatabaseMonitor`. */
export interface DatabaseMonitorOptions {
  readonly logger?: Logger;
  /** `refresh()` pings only when the last known state is older than this (default 5,000 ms). */
  readonly maxAgeMs?: number;
  /** A ping that takes longer counts as a failure (default 2,000 ms). */
  readonly pingTimeoutMs?: number;
  /** Failing for less than this is `warn`, longer is `fail` (default 30,000 ms). */
  readonly failAfterMs?: number;
  /** The clock, for tests. */
  readonly now?: () => number;
}

/**
 * The last known state of the database, for `/health`. Reading it never touches the
 * database: `refresh()` starts a background ping when the state is stale, and the
 * group commit reports every write through `noteSuccess()` / `noteFailure()`.
 * Until the first check (call `noteSuccess()` after migrating) the status is `warn`.
 * @example
 * const database = new DatabaseMonitor(store, { logger });
 * database.refresh();
 * const { status, output } = database.status();
 */
export class DatabaseMonitor {
  readonly #store: Pick<Store, 'ping' | 'kind'>;
  readonly #logger: Logger;
  readonly #maxAgeMs: number;
  readonly #pingTimeoutMs: number;
  readonly #failAfterMs: number;
  readonly #now: () => number;
  #checkedAtMs: number | null = null;
  #failingSinceMs: number | null = null;
  #failures = 0;
  #lastError = '';
  /** Since when writes fail for want of space (see `isDiskFull`); reads and pings still answer then. */
  #diskFullSinceMs: number | null = null;
  #ping: Promise<void> | undefined;
  /** The `pass` status last answered: the same object while the database stays reachable, as `/health` asks on every probe. */
  #reachable: DatabaseStatus | undefined;

  constructor(store: Pick<Store, 'ping' | 'kind'>, options: DatabaseMonitorOptions = {}) {
    this.#store = store;
    this.#logger = options.logger ?? createLogger();
    this.#maxAgeMs = options.maxAgeMs ?? 5_000;
    this.#pingTimeoutMs = options.pingTimeoutMs ?? 2_000;
    this.#failAfterMs = options.failAfterMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  /** The last known state; never touches the database. */
  status(): DatabaseStatus {
    const kind = this.#store.kind;
    if (this.#diskFullSinceMs !== null) {
      const fullMs = this.#now() - this.#diskFullSinceMs;
      return {
        status: fullMs < this.#failAfterMs ? 'warn' : 'fail',
        output: `${kind}: disk full for ${Math.round(fullMs / 1000)} s: writes fail (history not saved, counts deferred), reads answer; free space: ${this.#lastError}`,
        kind,
      };
    }
    if (this.#checkedAtMs === null) return { status: 'warn', output: `${kind}: not checked yet`, kind };
    if (this.#failingSinceMs === null) {
      if (this.#reachable?.kind !== kind)
        this.#reachable = Object.freeze({ status: 'pass', output: `${kind}: reachable`, kind });
      return this.#reachable;
    }
    const failingMs = this.#now() - this.#failingSinceMs;
    return {
      status: failingMs < this.#failAfterMs ? 'warn' : 'fail',
      output: `${kind}: unreachable for ${Math.round(failingMs / 1000)} s (${this.#failures} failed ${this.#failures === 1 ? 'check' : 'checks'}): ${this.#lastError}`,
      kind,
    };
  }

  /** Starts a background ping when the last known state is older than `maxAgeMs`; returns at once. */
  refresh(): void {
    if (this.#ping !== undefined) return;
    if (this.#checkedAtMs !== null && this.#now() - this.#checkedAtMs < this.#maxAgeMs) return;
    this.#ping = this.#pingOnce().finally(() => {
      this.#ping = undefined;
    });
  }

  /** Resolves once the background ping in flight, if any, has settled. */
  async settled(): Promise<void> {
    await this.#ping;
  }

  async #pingOnce(): Promise<void> {
    try {
      await withTimeout((async () => this.#store.ping())(), this.#pingTimeoutMs, () => {
        throw new Error(`ping timed out after ${this.#pingTimeoutMs} ms`);
      });
      this.noteSuccess();
    } catch (error) {
      this.noteFailure(error);
    }
  }

  /**
   * Records that the database just answered; with `stored`, that it took new rows (a turn's
   * messages), which ends a full disk: a ping or an update in place does not.
   */
  noteSuccess(options: { readonly stored?: boolean } = {}): void {
    if (options.stored === true && this.#diskFullSinceMs !== null) {
      this.#logger.info('store_disk_space_recovered', {
        store: this.#store.kind,
        full_ms: this.#now() - this.#diskFullSinceMs,
      });
      this.#diskFullSinceMs = null;
    }
    if (this.#failingSinceMs !== null) {
      this.#logger.info('database_reachable', {
        store: this.#store.kind,
        outage_ms: this.#now() - this.#failingSinceMs,
      });
    }
    this.#checkedAtMs = this.#now();
    this.#failingSinceMs = null;
    this.#failures = 0;
  }

  /**
   * Records that the database just failed to answer, or (a full disk, see `isDiskFull`) to
   * store what it was given: that is logged once, as an error, until space is back.
   */
  noteFailure(error: unknown): void {
    const now = this.#now();
    this.#lastError = errorFirstLine(error);
    if (isDiskFull(error)) {
      if (this.#diskFullSinceMs === null) {
        this.#diskFullSinceMs = now;
        this.#logger.error('store_disk_full', {
          store: this.#store.kind,
          error: this.#lastError,
          effect: 'writes fail until space is freed: history is not saved, counts wait in memory',
        });
      }
      return;
    }
    this.#failures += 1;
    if (this.#failingSinceMs === null) {
      this.#failingSinceMs = now;
      this.#logger.warn('database_unreachable', { store: this.#store.kind, error: this.#lastError });
    }
    this.#checkedAtMs = now;
  }
}
