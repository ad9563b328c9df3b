import type { Sampler } from '@opentelemetry/sdk-trace';
import type { Logger } from '../log/logger.js';
import type { ActorTracer, SpanAttributes, StartSpanOptions, TraceSpan } from './actor-tracer.js';
import type { TracingConfig } from './tracing-config.js';

/**
 * The optional packages tracing loads, as a user installs them (they are optional peer
 * dependencies of actorkit: an actor without traces never installs or loads them). The SDK's 2.x
 * line, the last that runs on Node 20, takes `@opentelemetry/api` below 1.10.
 */
export const TRACING_PACKAGES = [
  '@opentelemetry/api@~1.9.0',
  '@opentelemetry/context-async-hooks@^2.12.0',
  '@opentelemetry/core@^2.12.1',
  '@opentelemetry/resources@^2.12.1',
  '@opentelemetry/sdk-trace@^2.12.1',
  '@opentelemetry/exporter-trace-otlp-proto@^0.223.1',
  '@opentelemetry/exporter-trace-otlp-http@^0.223.1',
] as const;

/** A running OpenTelemetry tracer, flushed and stopped by `shutdown`. */
export interface OtelTracer extends ActorTracer {
  /** Exports the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

type OtelApi = typeof import('@opentelemetry/api');
type SdkTrace = typeof import('@opentelemetry/sdk-trace');

const defined = (attributes: SpanAttributes | undefined) => {
  const kept: Record<string, string | number | boolean | string[]> = {};
  for (const [key, value] of Object.entries(attributes ?? {}))
    if (value !== undefined) kept[key] = typeof value === 'object' ? [...value] : value;
  return kept;
};

function samplerOf(sdk: SdkTrace, config: TracingConfig): Sampler {
  const ratio = () => new sdk.TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: ratio() });
    default:
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
}

/**
 * Every import's module, once all have settled; rejects with the first failure only then, so a
 * missing package leaves no other import still loading after `startOtelTracer` has failed.
 */
async function allLoaded<T extends readonly unknown[]>(
  imports: { readonly [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const settled = await Promise.allSettled(imports);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * Loads the OpenTelemetry SDK (lazily: only this function imports it) and starts a tracer that
 * batches spans to `config.tracesUrl` over OTLP/HTTP. The active span follows the code through
 * `await`s (`AsyncLocalStorage`); W3C trace context reads incoming and writes outgoing
 * `traceparent` headers. The provider, context manager and propagator are also registered as
 * OpenTelemetry's globals when none is yet, so spans an actor's own code makes with
 * `@opentelemetry/api` join the turn's trace. Rejects when a package is missing.
 * @param config where and how to export
 * @param logger receives the SDK's own warnings and errors as `tracer_diagnostic`
 */
export async function startOtelTracer(config: TracingConfig, logger: Logger): Promise<OtelTracer> {
  const [
    api,
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator, hrTime },
    { resourceFromAttributes },
    sdk,
    { OTLPTraceExporter },
  ] = await allLoaded([
    import('@opentelemetry/api') as Promise<OtelApi>,
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace') as Promise<SdkTrace>,
    config.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ] as const);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({
      'service.name': config.service.name,
      'service.version': config.service.version,
      'service.instance.id': config.service.instanceId,
    }),
    sampler: samplerOf(sdk, config),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.tracesUrl, headers: { ...config.headers } }),
      }),
    ],
  });
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(propagator);
  api.trace.setGlobalTracerProvider(provider);
  const diagnostic = (message: string, ...rest: unknown[]) =>
    logger.warn('tracer_diagnostic', {
      message: [
        message,
        ...rest.map((item) =>
          item instanceof Error ? item.message : typeof item === 'string' ? item : JSON.stringify(item),
        ),
      ]
        .join(' ')
        .slice(0, 2000),
    });
  api.diag.setLogger(
    { error: diagnostic, warn: diagnostic, info() {}, debug() {}, verbose() {} },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );

  const tracer = provider.getTracer('actorkit');
  const kinds = { internal: api.SpanKind.INTERNAL, server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT } as const;
  const headerGetter: import('@opentelemetry/api').TextMapGetter<(name: string) => string | null | undefined> = {
    get: (read, key) => read(key) ?? undefined,
    keys: () => ['traceparent', 'tracestate'],
  };
  return {
    enabled: true,
    startSpan(name: string, options: StartSpanOptions): TraceSpan {
      const parent = options.incomingHeader
        ? propagator.extract(api.ROOT_CONTEXT, options.incomingHeader, headerGetter)
        : contextManager.active();
      // Every span starts and ends on one clock (the process's time origin plus its monotonic
      // clock): on its own the SDK anchors each span to Date.now() in whole milliseconds, which
      // can show a child outlasting its parent, or the next span starting before the last ended.
      const span = tracer.startSpan(
        name,
        { kind: kinds[options.kind], attributes: defined(options.attributes), startTime: hrTime() },
        parent,
      );
      const active = api.trace.setSpan(parent, span);
      return {
        setAttributes: (attributes) => span.setAttributes(defined(attributes)),
        fail(errorType, message) {
          span.setAttribute('error.type', errorType);
          span.setStatus(
            message === undefined ? { code: api.SpanStatusCode.ERROR } : { code: api.SpanStatusCode.ERROR, message },
          );
        },
        run: (work) => contextManager.with(active, work),
        end: () => span.end(hrTime()),
      };
    },
    traceHeaders() {
      const carrier: Record<string, string> = {};
      propagator.inject(contextManager.active(), carrier, api.defaultTextMapSetter);
      return carrier;
    },
    async shutdown() {
      await provider.shutdown();
      contextManager.disable();
    },
  };
}
