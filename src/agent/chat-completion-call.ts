import type { ModelHttpAnswer, ModelHttpTransport } from './model-http-transport.js';
import { isRetriedAnswer, retryDelayMs, waitBeforeRetry } from './model-call-retries.js';

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
