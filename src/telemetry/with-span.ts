import { ActorError } from '../core/actor-error.js';
import type { ActorTracer, StartSpanOptions, TraceSpan } from './actor-tracer.js';

/**
 * The `error.type` of a failure: an `ActorError`'s code (`model_timeout`, `model_error`…), else
 * the error's class name; `_OTHER` for a thrown non-error (the OpenTelemetry fallback).
 * @param error what was thrown
 */
export function errorTypeOf(error: unknown): string {
  if (error instanceof ActorError) return error.code;
  return error instanceof Error ? error.name : '_OTHER';
}

/**
 * Runs `work` in a new span, active for everything it awaits, and ends the span when `work`
 * settles; a rejection marks it failed (`errorTypeOf`) and is passed on.
 * @param tracer the actor's tracer (`NO_TRACER`: `work` just runs)
 * @param name the span's name, e.g. `chat gpt-4o-mini`
 * @param options its kind and first attributes
 * @param work what the span times; it may add attributes or mark the span failed itself
 */
export async function withSpan<T>(
  tracer: ActorTracer,
  name: string,
  options: StartSpanOptions,
  work: (span: TraceSpan) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, options);
  try {
    return await span.run(() => work(span));
  } catch (error) {
    span.fail(
      errorTypeOf(error),
      error instanceof ActorError ? (error.detail ?? error.title) : error instanceof Error ? error.message : undefined,
    );
    throw error;
  } finally {
    span.end();
  }
}
