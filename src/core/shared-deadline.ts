/** A call that `SharedDeadline` bounds, until it settles or expires. */
interface Waiting {
  readonly expiresAt: number;
  readonly expire: () => void;
}

/**
 * One time limit for many calls, kept with a single timer between them: it settles a call like
 * its work, unless `timeoutMs` passes first, then with `onTimeout()` (its value, or the error it
 * throws), as `withTimeout` does. Every call waits the same time, so they expire in the order
 * they began: the timer is set for the oldest waiting call only, and a call that settles is
 * just taken off the list. Under load that is one timer every `timeoutMs` instead of a timer,
 * a race and two more promises per call. The timer never keeps a process alive; `Infinity`
 * waits for ever.
 * @example
 * const deadline = new SharedDeadline(5_000);
 * await deadline.bound(store.loadHistory(tenant, session, 20), () => { throw storeTimeoutError(); });
 */
export class SharedDeadline {
  readonly #timeoutMs: number;
  /** Waiting calls, oldest first (a Set keeps the order they were added in). */
  readonly #waiting = new Set<Waiting>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = Math.max(0, timeoutMs);
  }

  /** `work`, bounded by the time limit: settles like it, or with `onTimeout()` once the limit passes. */
  bound<T, TTimeout = never>(work: PromiseLike<T>, onTimeout: () => TTimeout): Promise<T | TTimeout> {
    if (!Number.isFinite(this.#timeoutMs)) return Promise.resolve(work);
    return new Promise<T | TTimeout>((resolve, reject) => {
      const waiting: Waiting = {
        expiresAt: performance.now() + this.#timeoutMs,
        expire: () => {
          try {
            resolve(onTimeout());
          } catch (error) {
            reject(error);
          }
        },
      };
      this.#waiting.add(waiting);
      this.#timer ??= this.#schedule(this.#timeoutMs);
      work.then(
        (value) => {
          this.#waiting.delete(waiting);
          resolve(value);
        },
        (error: unknown) => {
          this.#waiting.delete(waiting);
          reject(error);
        },
      );
    });
  }

  #schedule(delayMs: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(this.#sweep, delayMs);
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  /** Expires every call whose time is up, then sets the timer for the oldest one left. */
  readonly #sweep = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const waiting of this.#waiting) {
      if (waiting.expiresAt > now) {
        this.#timer = this.#schedule(waiting.expiresAt - now);
        return;
      }
      this.#waiting.delete(waiting);
      waiting.expire();
    }
  };
}
