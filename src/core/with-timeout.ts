/**
 * Settles like `work`, unless `timeoutMs` passes first: then it settles with `onTimeout()` —
 * its value, or the error it throws. The timer is cleared as soon as either happens and never
 * keeps a process alive; `Infinity` waits for ever.
 * @param work the promise to wait for
 * @param timeoutMs how long to wait, in milliseconds
 * @param onTimeout gives the value (or throws the error) of a time-out
 * @example
 * await withTimeout(store.ping(), 2_000, () => { throw new Error('ping timed out'); });
 */
export function withTimeout<T, TTimeout = never>(
  work: PromiseLike<T>,
  timeoutMs: number,
  onTimeout: () => TTimeout,
): Promise<T | TTimeout> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<TTimeout>((resolve, reject) => {
    if (!Number.isFinite(timeoutMs)) return;
    timer = setTimeout(
      () => {
        try {
          resolve(onTimeout());
        } catch (error) {
          reject(error);
        }
      },
      Math.max(0, timeoutMs),
    );
    (timer as { unref?: () => void }).unref?.();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
