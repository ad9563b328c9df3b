import { withTimeout } from '../../core/with-timeout.js';
import { createLogger, type Logger } from '../../log/logger.js';
import { DomainClientError } from './domain-client-error.js';

/** Options of `safeCall`; `TFallback` is the fallback's type, which may be wider than the call's (`null` for a number). */
export interface SafeCallOptions<TFallback> {
  /** Returned when the call throws, rejects or times out. */
  readonly fallback: TFallback;
  /** What the call does, logged as `action` (e.g. `fetch_forecast`). */
  readonly action: string;
  /** Gives up after this many milliseconds (default 10,000; `Infinity` waits for ever). */
  readonly timeoutMs?: number;
  /** Where the warning goes (default: JSON lines on the console). */
  readonly logger?: Logger;
}

/** Default time-out of `safeCall`, in milliseconds. */
export const SAFE_CALL_TIMEOUT_MS = 10_000;

/** The event `safeCall` logs, once, when it falls back. */
export const SAFE_CALL_FAILED_EVENT = 'safe_call_failed';

let defaultLogger: Logger | undefined;

/**
 * Calls a non-critical service without letting it take the actor down: a synchronous throw, a
 * rejection or a time-out logs one `safe_call_failed` warning (with `action`, `reason`, the
 * error with its cause chain — code, errno, address, port — and, for a `DomainClientError`, its
 * `error_event`) and resolves to `fallback`. Never rejects. The call receives an `AbortSignal`
 * that fires on time-out. The result's type is the call's or the fallback's.
 * @param call the service call
 * @param options `fallback`, `action`, optional `timeoutMs` and `logger`
 * @example
 * // forecast: Forecast | null
 * const forecast = await safeCall((signal) => client.forecast(city, { signal }), { fallback: null, action: 'fetch_forecast' });
 */
export async function safeCall<T, TFallback = T>(
  call: (signal: AbortSignal) => T | PromiseLike<T>,
  options: SafeCallOptions<TFallback>,
): Promise<T | TFallback> {
  const timeoutMs = options.timeoutMs ?? SAFE_CALL_TIMEOUT_MS;
  const controller = new AbortController();
  try {
    const pending = Promise.resolve().then(() => call(controller.signal));
    const outcome = await withTimeout(
      pending.then((value) => ({ value })),
      timeoutMs,
      () => 'timeout' as const,
    );
    if (outcome !== 'timeout') return outcome.value;
    controller.abort(new Error(`${options.action} timed out after ${timeoutMs} ms`));
    pending.catch(() => {});
    warn(options, { reason: 'timeout', timeout_ms: timeoutMs });
  } catch (error) {
    const details = error instanceof DomainClientError ? { ...error.fields, error_event: error.event } : {};
    warn(options, { ...details, reason: 'error', error });
  }
  return options.fallback;
}

function warn(options: SafeCallOptions<unknown>, fields: Record<string, unknown>): void {
  const logger = options.logger ?? (defaultLogger ??= createLogger());
  try {
    logger.warn(SAFE_CALL_FAILED_EVENT, { ...fields, action: options.action });
  } catch {
    // A broken log sink must not turn a safe call into a crash.
  }
}
