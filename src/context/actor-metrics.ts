import { prometheus } from '@hono/prometheus';
import type { Context } from 'hono';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { HttpMetrics } from './http-metrics.js';

/** Invoke duration buckets in seconds, up to two minutes for slow models. */
const INVOKE_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** Token count buckets of `gen_ai_client_token_usage` (the OpenTelemetry GenAI convention). */
const TOKEN_USAGE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** What `GET /metrics` sends, whatever `@hono/prometheus` sets: Prometheus text format 0.0.4. */
const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The exposition without the blank line prom-client writes between metric families (a scrape read by eye had ~35 of them). */
const withoutBlankLines = (text: string) => text.replace(/\n{2,}/g, '\n');

/**
 * The Prometheus registry of one actor and the metrics it writes. Labels are bounded:
 * route templates, methods, statuses and outcomes — never user, session or tenant ids.
 * `@hono/prometheus` serves the registry (`printMetrics`); its request-counting middleware is
 * left off — `http_requests_total` and `http_request_duration_seconds`, in its names, labels
 * and buckets, are counted at the fetch edge (`HttpMetrics`, fed by `observeRequests`), which
 * keeps `/health` synchronous (docs/performance.md has the figures).
 */
export class ActorMetrics {
  readonly registry = new Registry();
  readonly #exposition = prometheus({
    registry: this.registry,
    metricOptions: { requestDuration: { disabled: true }, requestsTotal: { disabled: true } },
  });
  /** HTTP requests by method, route template and status (fed by `observeRequests`). */
  readonly http: HttpMetrics;
  readonly invocations = new Counter({
    name: 'actor_invocations_total',
    help: 'Invocations of POST /agent/invoke and of the MCP tool chat, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly invokeDuration = new Histogram({
    name: 'actor_invoke_duration_seconds',
    help: 'Time to answer POST /agent/invoke, in seconds',
    labelNames: ['outcome'] as const,
    buckets: INVOKE_DURATION_BUCKETS,
    registers: [this.registry],
  });
  /**
   * Tokens per model call, by `gen_ai_operation_name` (`chat`), `gen_ai_provider_name` (`openai`,
   * `offline`…), `gen_ai_token_type` (`input`, `output`) and the configured model name: the
   * OpenTelemetry GenAI client metric's attributes, dots as underscores.
   */
  readonly tokenUsage = new Histogram({
    name: 'gen_ai_client_token_usage',
    help: 'Tokens used per model call, by operation, provider, token type (input, output) and model',
    labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_token_type', 'gen_ai_request_model'] as const,
    buckets: TOKEN_USAGE_BUCKETS,
    registers: [this.registry],
  });
  /** Tool calls by tool name (`unknown` for a name the model made up) and outcome (`ok`, `error`, `invalid_arguments`, `unknown_tool`). */
  readonly toolCalls = new Counter({
    name: 'actor_tool_calls_total',
    help: 'Tool calls made by the model, by tool and outcome',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Invocation records set aside because the database refused their values (see `InvocationBuffer.setAside`). */
  readonly invocationRecordsSetAside = new Counter({
    name: 'actor_invocation_records_set_aside_total',
    help: 'Invocation records the database refused and that were set aside, uncounted, so the rest flow',
    registers: [this.registry],
  });

  constructor() {
    try {
      collectDefaultMetrics({ register: this.registry });
    } catch {
      // A runtime without the Node process APIs behind a default metric keeps the rest.
    }
    // Gauges named like counters: `promtool check metrics` rejects them.
    for (const name of MISNAMED_DEFAULT_GAUGES) this.registry.removeSingleMetric(name);
    this.http = new HttpMetrics(this.registry);
  }

  /** The exposition text, `text/plain; version=0.0.4`. */
  async render(): Promise<string> {
    return withoutBlankLines(await this.registry.metrics());
  }

  /**
   * Answers `GET /metrics` with the registry through `@hono/prometheus`'s `printMetrics`, as
   * `text/plain; version=0.0.4` and never cached.
   * @param c the request's Hono context
   */
  async respond(c: Context): Promise<Response> {
    const printed = await this.#exposition.printMetrics(c);
    return new Response(withoutBlankLines(await printed.text()), { status: printed.status, headers: { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Cache-Control': 'no-store' } });
  }
}
