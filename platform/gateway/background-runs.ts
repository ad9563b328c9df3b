import type { ActorPool } from '../actor-pool.js';
import { ACTOR_PATHS } from './actor-paths.js';

/** The states a run ends in; the others (`queued`, `running`, `awaiting_input`) are in progress. */
const FINAL_STATES: readonly string[] = ['completed', 'failed', 'cancelled'];

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The background runs the edge's `chat` started (`202 Accepted`), followed until they end: a
 * 202 is no answered turn yet, so the gateway keeps the turn under way while the run is in
 * progress and counts it only once the run has `completed` (a failed or cancelled one is not
 * counted), as reconciliation compares with the replicas' `/stats`. It polls the run's status
 * through the pool, so a run another replica takes over is still followed.
 */
export class BackgroundRunWatch {
  readonly #intervalMs: number;
  readonly #stop = new AbortController();
  readonly #following = new Set<Promise<void>>();

  /** @param intervalMs how often a run's status is read, in ms */
  constructor(intervalMs: number) {
    if (!Number.isInteger(intervalMs) || intervalMs < 1)
      throw new Error(`The run poll interval must be a whole number of milliseconds >= 1, got ${intervalMs}`);
    this.#intervalMs = intervalMs;
  }

  /**
   * Follows one run until it ends, then tells `onEnd` whether it completed. A run the replicas no
   * longer know (404) ends as not completed; an unreachable replica or database is read again
   * later. The first read is one interval after the call. Closing the watch ends every run followed as not completed.
   * @param pool the instance that runs it
   * @param id the run id
   * @param tenant the tenant the run belongs to
   * @param requestId the request id of the chat that started it
   * @param onEnd told once
   */
  follow(pool: ActorPool, id: string, tenant: string, requestId: string, onEnd: (completed: boolean) => void): void {
    const following: Promise<void> = this.#poll(pool, id, tenant, requestId)
      .catch(() => false)
      .then((completed) => {
        this.#following.delete(following);
        onEnd(completed);
      });
    this.#following.add(following);
  }

  /** How many runs are followed now. */
  get size(): number {
    return this.#following.size;
  }

  /** Stops following: every run still followed ends as not completed. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#following);
  }

  async #poll(pool: ActorPool, id: string, tenant: string, requestId: string): Promise<boolean> {
    const signal = this.#stop.signal;
    for (;;) {
      // The first read waits one interval too: a run started a moment ago is rarely over.
      await pause(this.#intervalMs, signal);
      if (signal.aborted) return false;
      const state = await this.#readState(pool, id, tenant, requestId);
      if (state === 'gone') return false;
      if (state !== undefined && FINAL_STATES.includes(state)) return state === 'completed';
    }
  }

  /** The run's state; `gone` when the replica answers it does not know it; undefined when it could not be read now. */
  async #readState(pool: ActorPool, id: string, tenant: string, requestId: string): Promise<string | undefined> {
    try {
      const answer = await pool.forward(
        new Request(new URL(ACTOR_PATHS.run(id), 'http://replica.invalid'), {
          headers: { Accept: 'application/json', 'X-Tenant-Id': tenant, 'X-Request-Id': requestId },
          signal: this.#stop.signal,
        }),
      );
      if (answer.status === 404 || answer.status === 400) {
        await answer.body?.cancel();
        return 'gone';
      }
      if (!answer.ok) {
        await answer.body?.cancel();
        return undefined;
      }
      const { state } = (await answer.json()) as { state?: unknown };
      return typeof state === 'string' ? state : undefined;
    } catch {
      return undefined;
    }
  }
}
