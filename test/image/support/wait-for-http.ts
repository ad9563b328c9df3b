/** What `waitForHttp` waits for and how long. */
export interface WaitForHttpOptions {
  /** The status that ends the wait; 200 when left out. */
  readonly status?: number;
  /** Gives up after this long; 30 s when left out. */
  readonly timeoutMs?: number;
  /** An answer must also pass this check (e.g. a header only the expected server sends). */
  readonly accept?: (response: Response) => boolean;
  /** Called after each failed try; a message it returns ends the wait at once (e.g. the server process died). */
  readonly abort?: () => string | undefined | Promise<string | undefined>;
}

/**
 * Polls `GET url` until it answers `status` (and passes `accept`), resolving with that answer;
 * refused connections count as "not yet". Rejects after `timeoutMs` with the last answer or error.
 * @param url the full URL, e.g. `http://127.0.0.1:5000/v2/`
 * @param options status, bound, extra check and abort condition
 */
export async function waitForHttp(url: string, options: WaitForHttpOptions = {}): Promise<Response> {
  const status = options.status ?? 200;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (response.status === status && (options.accept?.(response) ?? true)) return response;
      last = `${response.status} ${(await response.text()).slice(0, 500)}`;
    } catch (error) {
      last =
        error instanceof Error
          ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`
          : String(error);
    }
    const aborted = await options.abort?.();
    if (aborted !== undefined) throw new Error(`GET ${url} gave up: ${aborted}; last: ${last}`);
    if (Date.now() > deadline)
      throw new Error(`GET ${url} did not answer ${status} within ${timeoutMs} ms; last: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
