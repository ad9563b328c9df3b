/**
 * Whether a model server's error answer is worth another try: what it says in `x-should-retry`,
 * else a request time-out (408), a lock time-out (409), a rate limit (429) or a server error
 * (5xx). The same rule as the `openai` SDK's.
 * @param status the HTTP status
 * @param shouldRetry the `x-should-retry` header
 */
export function isRetriedAnswer(status: number, shouldRetry: string | undefined): boolean {
  if (shouldRetry === 'true') return true;
  if (shouldRetry === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * How long to wait before retry number `retry` (1 for the first): what the server asked for in
 * `retry-after-ms` or `Retry-After` (seconds or an HTTP date), else an exponential back-off from
 * 0.5 s up to 8 s with up to 25% jitter. The same rule as the `openai` SDK's.
 * @param retry the number of the retry about to be made, from 1
 * @param header the answer's header lookup, when the failure was an answer
 */
export function retryDelayMs(retry: number, header?: (name: string) => string | undefined): number {
  let ms: number | undefined;
  const afterMs = Number.parseFloat(header?.('retry-after-ms') ?? '');
  if (!Number.isNaN(afterMs)) ms = afterMs;
  const after = header?.('retry-after');
  if (after && !ms) {
    const seconds = Number.parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (ms !== undefined) return ms;
  return Math.min(0.5 * 2 ** (retry - 1), 8) * (1 - Math.random() * 0.25) * 1000;
}

/** Waits `ms` (none when not positive), or rejects with the signal's reason once it aborts. */
export function waitBeforeRetry(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (!(ms > 0)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
