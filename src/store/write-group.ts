/** How a `WriteGroup` reaches the database. */
export interface WriteGroupOptions<Trx> {
  /** Runs `task` when the connection is free (the store's queue). */
  readonly schedule: (task: () => Promise<void>) => Promise<void>;
  /** Runs `work` in one transaction, committing when it resolves and rolling back when it rejects. */
  readonly transaction: <T>(work: (trx: Trx) => Promise<T>) => Promise<T>;
}

interface WaitingWrite<Trx> {
  readonly work: (trx: Trx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for a single-writer database: the write transactions asked for while the
 * connection is busy (or in the same turn of the event loop) run together in one transaction,
 * in call order, so they share one begin and one commit. Each call stays atomic: when any of
 * them fails the group is rolled back and every call runs again in a transaction of its own,
 * so a failure fails only its own call.
 */
export class WriteGroup<Trx> {
  readonly #schedule: WriteGroupOptions<Trx>['schedule'];
  readonly #transaction: WriteGroupOptions<Trx>['transaction'];
  #waiting: WaitingWrite<Trx>[] = [];
  #settled: Promise<void> = Promise.resolve();

  constructor(options: WriteGroupOptions<Trx>) {
    this.#schedule = options.schedule;
    this.#transaction = options.transaction;
  }

  /** Runs `work` in a transaction, possibly shared with other calls; resolves or rejects as `work` does. */
  run<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#waiting.length > 1) return;
      this.#settled = this.#schedule(() => this.#commit())
        .catch((error: unknown) => {
          for (const waiting of this.#waiting.splice(0)) waiting.reject(error);
        });
    });
  }

  /** Resolves once every write asked for so far has settled (before closing the connection). */
  settled(): Promise<void> {
    return this.#settled;
  }

  async #commit(): Promise<void> {
    const group = this.#waiting.splice(0);
    if (group.length > 1) {
      let results: unknown[] | undefined;
      try {
        results = await this.#transaction(async (trx) => {
          const values: unknown[] = [];
          for (const { work } of group) values.push(await work(trx));
          return values;
        });
      } catch {
        // Rolled back: which call failed is unknown, so each runs alone below.
      }
      if (results !== undefined) {
        group.forEach(({ resolve }, index) => resolve(results[index]));
        return;
      }
    }
    for (const { work, resolve, reject } of group) await this.#transaction(work).then(resolve, reject);
  }
}
