/** A value of a span attribute. */
type SpanAttributeValue = string | number | boolean | readonly string[];

/** The attributes of a span; an undefined value is left out. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue | undefined>>;

/** One span of a trace, as the actor's code writes it. */
export interface TraceSpan {
  /** Adds or replaces attributes. */
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed: status `ERROR` with `message`, and the attribute `error.type`. */
  fail(errorType: string, message?: string): void;
  /** Runs `work` with this span active: spans started inside are its children, and outgoing requests carry its `traceparent`. */
  run<T>(work: () => T): T;
  /** Ends the span; it is exported with the next batch. */
  end(): void;
}

/** How a span starts. */
export interface StartSpanOptions {
  /** `server` for a request the actor answers, `client` for a call it makes, `internal` otherwise. */
  readonly kind: 'internal' | 'server' | 'client';
  readonly attributes?: SpanAttributes;
  /** Reads a header of the request being answered: its `traceparent` (and `tracestate`) become the span's parent. */
  readonly incomingHeader?: (name: string) => string | null | undefined;
}

/**
 * What the actor's code traces with, whatever does the tracing: `NO_TRACER` when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is unset, the OpenTelemetry SDK when it is (`ActorTracing`).
 */
export interface ActorTracer {
  /** Whether spans are recorded; when false every call does nothing. */
  readonly enabled: boolean;
  /** Starts a span whose parent is the active span (or the request's `traceparent`, see `incomingHeader`). */
  startSpan(name: string, options: StartSpanOptions): TraceSpan;
  /** The W3C `traceparent` (and `tracestate`) of the active span, for an outgoing request; empty without one. */
  traceHeaders(): Record<string, string>;
}

const NO_SPAN: TraceSpan = {
  setAttributes() {},
  fail() {},
  run: (work) => work(),
  end() {},
};

/** The tracer of an actor without traces: records nothing, costs a function call. */
export const NO_TRACER: ActorTracer = { enabled: false, startSpan: () => NO_SPAN, traceHeaders: () => ({}) };
