import type { Context } from 'hono';
import type { Registry } from 'prom-client';
import { HttpMetrics } from './http-metrics.js';
import { ScrapedCounter } from './scraped-counter.js';
import { ScrapedHistogram } from './scraped-histogram.js';
import type { ScrapedMetric } from './scraped-metric.js';

/** Invoke duration buckets in seconds, up to two minutes for slow models. */
const INVOKE_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** Token count buckets of `gen_ai_client_token_usage` (the OpenTelemetry GenAI convention). */
const TOKEN_USAGE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** prom-client's event-loop delay sampling period (its `eventLoopMonitoringPrecision` default), in milliseconds. */
const EVENT_LOOP_SAMPLING_MS = 10;

/** What `GET /metrics` sends, whatever `@hono/prometheus` sets: Prometheus text format 0.0.4. */
const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The exposition without the blank line prom-client writes between metric families (a scrape read by eye had ~35 of them). */
const withoutBlankLines = (text: string) => text.replace(/\n{2,}/g, '\n');

/** prom-client's registry of the actor's metrics and Node's default ones, and `@hono/prometheus`'s `printMetrics` of it. */
interface Exposition {
  readonly registry: Registry;
  readonly printMetrics: (c: Context) => Promise<Response>;
}

/**
 * Loads prom-client and `@hono/prometheus` and builds the registry: the actor's metrics, then
 * Node's default ones, then the HTTP ones (the order of the exposition). Together they are about
 * a tenth of a Node start, so the actor loads them on the first scrape, not before it is ready.
 * @param own the actor's metrics
 * @param http the HTTP metrics
 */
async function loadExposition(own: readonly ScrapedMetric[], http: readonly ScrapedMetric[]): Promise<Exposition> {
  const [{ collectDefaultMetrics, Registry }, { prometheus }] = await Promise.all([
    import('prom-client'),
    import('@hono/prometheus'),
  ]);
  const registry = new Registry();
  for (const metric of own) registry.registerMetric(metric as never);
  try {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLING_MS });
    // The event-loop delay gauges read a histogram that is empty until its first samples.
    await new Promise((resolve) => setTimeout(resolve, 2 * EVENT_LOOP_SAMPLING_MS));
  } catch {
    // A runtime without the Node process APIs behind a default metric keeps the rest.
  }
  // Gauges named like counters: `promtool check metrics` rejects them.
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  for (const metric of http) registry.registerMetric(metric as never);
  const { printMetrics } = prometheus({
    registry,
    metricOptions: { requestDuration: { disabled: true }, requestsTotal: { disabled: true } },
  });
  return { registry, printMetrics };
}

/**
 * The Prometheus metrics of one actor. Labels are bounded: route templates, methods, statuses
 * and outcomes — never user, session or tenant ids. Each metric counts into a map of its own
 * (`ScrapedCounter`, `ScrapedHistogram`, `HttpMetrics`, fed by `observeRequests`), and prom-client's
 * registry reads them when `/metrics` is scraped: prom-client, Node's default metrics and
 * `@hono/prometheus` (whose `printMetrics` serves the registry; its request-counting middleware
 * is left off, see docs/performance.md) are loaded on the first scrape, so a start does not pay
 * for them. Node's default metrics (GC durations, event-loop delay) count from that scrape on.
 */
export class ActorMetrics {
  /** HTTP requests by method, route template and status (fed by `observeRequests`). */
  readonly http = new HttpMetrics();
  readonly invocations = new ScrapedCounter(
    'actor_invocations_total',
    'Invocations of POST /agent/invoke and of the MCP tool chat, by outcome',
    ['outcome'],
  );
  readonly invokeDuration = new ScrapedHistogram(
    'actor_invoke_duration_seconds',
    'Time to answer POST /agent/invoke, in seconds',
    ['outcome'],
    INVOKE_DURATION_BUCKETS,
  );
  /**
   * Tokens per model call, by `gen_ai_operation_name` (`chat`), `gen_ai_provider_name` (`openai`,
   * `offline`…), `gen_ai_token_type` (`input`, `output`) and the configured model name: the
   * OpenTelemetry GenAI client metric's attributes, dots as underscores.
   */
  readonly tokenUsage = new ScrapedHistogram(
    'gen_ai_client_token_usage',
    'Tokens used per model call, by operation, provider, token type (input, output) and model',
    ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_token_type', 'gen_ai_request_model'],
    TOKEN_USAGE_BUCKETS,
  );
  /** Tool calls by tool name (`unknown` for a name the model made up) and outcome (`ok`, `error`, `invalid_arguments`, `unknown_tool`). */
  readonly toolCalls = new ScrapedCounter(
    'actor_tool_calls_total',
    'Tool calls made by the model, by tool and outcome',
    ['tool', 'outcome'],
  );
  /** Decisions on tool calls that waited for a person's approval, by tool and decision (`approved`, `denied`, `expired`). */
  readonly toolApprovals = new ScrapedCounter(
    'actor_tool_approvals_total',
    "Decisions on tool calls that waited for a person's approval, by tool and decision",
    ['tool', 'decision'],
  );
  /** Invocation records set aside because the database refused their values (see `GroupCommit.setAside`). */
  readonly invocationRecordsSetAside = new ScrapedCounter(
    'actor_invocation_records_set_aside_total',
    'Invocation records the database refused and that were set aside, uncounted, so the rest flow',
  );
  #exposition: Promise<Exposition> | undefined;

  #loaded(): Promise<Exposition> {
    const own = [
      this.invocations,
      this.invokeDuration,
      this.tokenUsage,
      this.toolCalls,
      this.toolApprovals,
      this.invocationRecordsSetAside,
    ].map((metric) => metric.metric);
    this.#exposition ??= loadExposition(own, this.http.metrics);
    return this.#exposition;
  }

  /** The exposition text, `text/plain; version=0.0.4`. */
  async render(): Promise<string> {
    const { registry } = await this.#loaded();
    return withoutBlankLines(await registry.metrics());
  }

  /**
   * Answers `GET /metrics` with the registry through `@hono/prometheus`'s `printMetrics`, as
   * `text/plain; version=0.0.4` and never cached.
   * @param c the request's Hono context
   */
  async respond(c: Context): Promise<Response> {
    const { printMetrics } = await this.#loaded();
    const printed = await printMetrics(c);
    return new Response(withoutBlankLines(await printed.text()), {
      status: printed.status,
      headers: { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Cache-Control': 'no-store' },
    });
  }
}
