import type { ModelHttpAnswer, ModelHttpTransport } from './model-http-transport.js';

/** A model server's answer with an error status, after the retries it was worth. */
export class ModelStatusError extends Error {
  /**
   * @param status the HTTP status
   * @param body the answer's body: its JSON when it is JSON, else its text
   */
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the model server answered with HTTP status ${status}`);
    this.name = 'ModelStatusError';
  }
}

/** A model server that could not be reached, or whose connection broke before it answered, after the retries. */
export class ModelConnectionError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ModelConnectionError';
  }
}

/** One non-streamed chat-completions call. */
export interface ChatCompletionCall {
  readonly transport: ModelHttpTransport;
  /** The server's `…/chat/completions` URL. */
  readonly url: URL;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON request. */
  readonly body: string;
  /** Ends the call (and any wait between tries) when it aborts. */
  readonly signal: AbortSignal;
  /** Retries of connection failures and of answers `isRetriedAnswer` accepts. */
  readonly maxRetries: number;
}

const parsedOrText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/**
 * Whether a model server's error answer is worth another try: what it says in `x-should-retry`,
 * else a request time-out (408), a lock time-out (409), a rate limit (429) or a server error
 * (5xx). The same rule as the `openai` SDK's.
 * @param status the HTTP status
 * @param shouldRetry the `x-should-retry` header
 */
function isRetriedAnswer(status: number, shouldRetry: string | undefined): boolean {
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
function retryDelayMs(retry: number, header?: (name: string) => string | undefined): number {
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
function waitBeforeRetry(ms: number, signal: AbortSignal): Promise<void> {
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

/**
 * Posts a chat-completions request and returns the parsed JSON answer, retrying connection
 * failures, 408, 409, 429 and 5xx answers with back-off (`retryDelayMs`). Rejects with a
 * `ModelStatusError` for an error answer, a `ModelConnectionError` when no answer came, the
 * signal's reason once it aborts, and a plain error for a 2xx answer that is not JSON.
 */
export async function callChatCompletions(call: ChatCompletionCall): Promise<unknown> {
  for (let retry = 1; ; retry += 1) {
    const retriesLeft = retry <= call.maxRetries;
    let answer: ModelHttpAnswer;
    try {
      answer = await call.transport({ url: call.url, headers: call.headers, body: call.body, signal: call.signal });
    } catch (error) {
      if (call.signal.aborted) throw call.signal.reason;
      if (!retriesLeft) throw new ModelConnectionError(error);
      await waitBeforeRetry(retryDelayMs(retry), call.signal);
      continue;
    }
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return JSON.parse(answer.body) as unknown;
      } catch {
        throw new Error(`the answer is not JSON: ${answer.body.slice(0, 200)}`);
      }
    }
    if (!retriesLeft || !isRetriedAnswer(answer.status, answer.header('x-should-retry')))
      throw new ModelStatusError(answer.status, parsedOrText(answer.body));
    await waitBeforeRetry(retryDelayMs(retry, answer.header), call.signal);
  }
}
