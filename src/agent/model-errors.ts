import { ActorError } from '../core/actor-error.js';

/** The 504 problem of a model that did not answer in time. */
export function modelTimeoutError(timeoutMs: number, cause?: unknown): ActorError {
  return new ActorError('model_timeout', {
    detail: `The model server sent nothing for ${timeoutMs} ms`,
    cause,
  });
}

/** The 502 problem of a model server that failed or answered something unusable. */
export function modelUpstreamError(detail: string, cause?: unknown): ActorError {
  return new ActorError('model_error', { detail, cause });
}

/**
 * Rejects with the reason of an aborted signal (the caller went away or the actor shuts down),
 * so the abort is never mistaken for a model failure.
 */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortReason(signal);
}

/** The error that stands for an aborted signal: its reason when that is an error, else an `AbortError`. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}
