import { withoutCredentials } from '../core/without-credentials.js';
import { withTimeout } from '../core/with-timeout.js';
import type { Logger } from '../log/logger.js';
import { NO_TRACER, type ActorTracer, type StartSpanOptions, type TraceSpan } from './actor-tracer.js';
import { startOtelTracer, TRACING_PACKAGES, type OtelTracer } from './otel-tracer.js';
import type { TracingConfig } from './tracing-config.js';

/** How long a shutdown waits by default for the last spans to be exported: a collector that is down must not hold the actor's exit. */
const EXPORT_AT_SHUTDOWN_MS = 5_000;

/** The `@opentelemetry/*` package an import failed to find (Node's `ERR_MODULE_NOT_FOUND`), looked for in the error and its causes. */
function missingPackage(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 3; cause = cause.cause, depth += 1) {
    const found = /Cannot find (?:package|module) '(@opentelemetry\/[^'/]+)/.exec(cause.message)?.[1];
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The tracer of one actor: records nothing until `start()` has loaded the OpenTelemetry SDK, which
 * it does only when the actor is configured for traces (`tracingConfigOf`). Without a
 * configuration nothing of OpenTelemetry is imported, ever. A missing package is logged
 * (`tracer_unavailable`, with the `npm install` line) and the actor serves without traces.
 */
export class ActorTracing implements ActorTracer {
  readonly #config: TracingConfig | undefined;
  readonly #logger: Logger;
  #active: ActorTracer = NO_TRACER;
  #running: OtelTracer | undefined;
  #starting: Promise<void> | undefined;
  readonly #exportAtShutdownMs: number;

  /**
   * @param config the tracing configuration; undefined: no traces
   * @param logger where `tracer_started`, `tracer_unavailable` and the SDK's diagnostics go
   * @param options `exportAtShutdownMs`: the longest wait for the last export (default 5 s)
   */
  constructor(config: TracingConfig | undefined, logger: Logger, options: { exportAtShutdownMs?: number } = {}) {
    this.#config = config;
    this.#logger = logger;
    this.#exportAtShutdownMs = options.exportAtShutdownMs ?? EXPORT_AT_SHUTDOWN_MS;
  }

  get enabled(): boolean {
    return this.#active.enabled;
  }

  startSpan(name: string, options: StartSpanOptions): TraceSpan {
    return this.#active.startSpan(name, options);
  }

  traceHeaders(): Record<string, string> {
    return this.#active.traceHeaders();
  }

  /** Loads the SDK and starts exporting, when configured; once, however often it is called. Never rejects. */
  start(): Promise<void> {
    const config = this.#config;
    if (config === undefined) return Promise.resolve();
    this.#starting ??= (async () => {
      try {
        this.#running = await startOtelTracer(config, this.#logger);
        this.#active = this.#running;
        this.#logger.info('tracer_started', {
          url: withoutCredentials(config.tracesUrl),
          protocol: config.protocol,
          service_name: config.service.name,
          sampler: config.sampler,
        });
      } catch (error) {
        this.#logger.error('tracer_unavailable', {
          missing: missingPackage(error),
          install: `npm install ${TRACING_PACKAGES.join(' ')}`,
          error,
        });
      }
    })();
    return this.#starting;
  }

  /**
   * Exports the spans still buffered (waiting at most 5 s) and stops; the tracer records nothing
   * afterwards. Never rejects: an export that fails is logged as `tracer_diagnostic`.
   */
  async shutdown(): Promise<void> {
    await this.#starting;
    const running = this.#running;
    this.#active = NO_TRACER;
    this.#running = undefined;
    if (running === undefined) return;
    const report = (reason: unknown) =>
      this.#logger.warn('tracer_diagnostic', {
        message: `spans not exported at shutdown: ${reason instanceof Error ? reason.message : String(reason)}`,
      });
    try {
      await withTimeout(running.shutdown(), this.#exportAtShutdownMs, () =>
        report(`no answer from the collector within ${this.#exportAtShutdownMs} ms`),
      );
    } catch (error) {
      report(error);
    }
  }
}
