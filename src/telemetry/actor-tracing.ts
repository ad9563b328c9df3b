import { withoutCredentials } from '../core/without-credentials.js';
import type { Logger } from '../log/logger.js';
import { NO_TRACER, type ActorTracer, type StartSpanOptions, type TraceSpan } from './actor-tracer.js';
import { startOtelTracer, TRACING_PACKAGES, type OtelTracer } from './otel-tracer.js';
import type { TracingConfig } from './tracing-config.js';

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

  /**
   * @param config the tracing configuration; undefined: no traces
   * @param logger where `tracer_started`, `tracer_unavailable` and the SDK's diagnostics go
   */
  constructor(config: TracingConfig | undefined, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
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
        this.#logger.info('tracer_started', { url: withoutCredentials(config.tracesUrl), protocol: config.protocol, service_name: config.service.name, sampler: config.sampler });
      } catch (error) {
        const missing = error instanceof Error && /Cannot find (package|module) '(@opentelemetry\/[^'/]+)/.exec(error.message)?.[2];
        this.#logger.error('tracer_unavailable', { missing: missing || undefined, install: `npm install ${TRACING_PACKAGES.join(' ')}`, error });
      }
    })();
    return this.#starting;
  }

  /** Exports the spans still buffered and stops; the tracer records nothing afterwards. */
  async shutdown(): Promise<void> {
    await this.#starting;
    const running = this.#running;
    this.#active = NO_TRACER;
    this.#running = undefined;
    await running?.shutdown();
  }
}
