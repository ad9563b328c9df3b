import type { EnvironmentConfig, TracesSampler } from '../environment/environment-schema.js';

/** Where and how the actor exports its spans, read from the `OTEL_*` variables. */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL: `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` added. */
  readonly tracesUrl: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  /** `OTEL_EXPORTER_OTLP_HEADERS` (secret values). */
  readonly headers: Readonly<Record<string, string>>;
  readonly sampler: TracesSampler;
  /** The ratio of the `traceidratio` samplers. */
  readonly samplerRatio: number;
  /** The resource of every span: `service.name`, `service.version`, `service.instance.id`. */
  readonly service: { readonly name: string; readonly version: string; readonly instanceId: string };
}

/** The signal path the OTLP/HTTP specification adds to `OTEL_EXPORTER_OTLP_ENDPOINT` for traces. */
const TRACES_PATH = 'v1/traces';

/**
 * The tracing configuration of an actor, or undefined when `OTEL_EXPORTER_OTLP_ENDPOINT` is unset
 * (no traces, nothing of OpenTelemetry loaded).
 * @param env the typed environment
 * @param actor the actor's slug and version (`service.name` when `OTEL_SERVICE_NAME` is unset) and its instance id
 */
export function tracingConfigOf(
  env: EnvironmentConfig,
  actor: { readonly slug: string; readonly version: string; readonly instanceId: string },
): TracingConfig | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined) return undefined;
  return {
    tracesUrl: `${endpoint.replace(/\/+$/, '')}/${TRACES_PATH}`,
    protocol: env.OTEL_EXPORTER_OTLP_PROTOCOL,
    headers: env.OTEL_EXPORTER_OTLP_HEADERS,
    sampler: env.OTEL_TRACES_SAMPLER,
    samplerRatio: env.OTEL_TRACES_SAMPLER_ARG,
    service: { name: env.OTEL_SERVICE_NAME ?? actor.slug, version: actor.version, instanceId: actor.instanceId },
  };
}
