import * as v from 'valibot';
import { isAcceptableHost } from '../core/host-header.js';
import { httpUrlProblem } from '../core/http-url.js';
import { parseLogLevel } from '../log/logger.js';
import { ENVIRONMENT_VARIABLES as VARIABLES } from './environment-variables.js';
import { parseOnOff } from './parse-on-off.js';

/** Environment variables, as the runtime reads them (`process.env` on Node and Bun, `Deno.env` on Deno). */
export type ActorEnvironment = Readonly<Record<string, string | undefined>>;

const shown = (raw: string) => JSON.stringify(raw);

/**
 * A variable read by `parse`, which returns undefined for a value it refuses; the refusal is
 * reported as `problem(raw)`. Unset is `fallback`.
 */
const parsedVariable = <T>(fallback: string, parse: (raw: string) => T | undefined, problem: (raw: string) => string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
        const value = parse(dataset.value);
        if (value !== undefined) return value;
        addIssue({ message: problem(dataset.value) });
        return NEVER;
      }),
    ),
    fallback,
  );

/** `parse` of the trimmed value, or `fallback` when it is blank. */
const blankIs =
  <T>(fallback: T, parse: (trimmed: string) => T | undefined) =>
  (raw: string): T | undefined => {
    const trimmed = raw.trim();
    return trimmed === '' ? fallback : parse(trimmed);
  };

/** An on/off variable: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, any case; empty is false. */
const flag = (fallback: boolean) =>
  parsedVariable(String(fallback), parseOnOff, (raw) => `must be true or false, got ${shown(raw)}`);

/** A whole number of at least `min` (`min` 1: a positive integer); unset or blank is `fallback`. */
const integer = (fallback: number, min: number) =>
  parsedVariable(
    String(fallback),
    blankIs(fallback, (trimmed) => {
      const value = Number(trimmed);
      return Number.isSafeInteger(value) && value >= min ? value : undefined;
    }),
    (raw) =>
      min === 1
        ? `must be a positive integer, got ${shown(raw)}`
        : `must be an integer of at least ${min}, got ${shown(raw.trim())}`,
  );

/** A TCP port: digits only, 0 to 65535; unset or blank is the default. */
const port = parsedVariable(
  String(VARIABLES.PORT.default),
  blankIs(VARIABLES.PORT.default, (trimmed) =>
    /^\d+$/.test(trimmed) && Number(trimmed) <= 65_535 ? Number(trimmed) : undefined,
  ),
  (raw) => `must be an integer from 0 to 65535, got ${shown(raw)}`,
);

/** A listening address: an IP address or a host name; unset or blank is the default. */
const listenAddress = parsedVariable(
  VARIABLES.HOST.default,
  blankIs(VARIABLES.HOST.default, (trimmed) => (/^[A-Za-z0-9.:[\]-]{1,253}$/.test(trimmed) ? trimmed : undefined)),
  (raw) => `must be an IP address or a host name, got ${shown(raw)}`,
);

/** Free text kept as given; undefined when unset. */
const text = v.optional(v.string());

/** Free text, trimmed; undefined when unset or blank. */
const trimmed = v.pipe(
  v.optional(v.string()),
  v.transform((raw) => (raw === undefined || raw.trim() === '' ? undefined : raw.trim())),
);

/** A comma-separated list of keys (for rotation), trimmed, empty entries dropped. */
const keyList = v.optional(
  v.pipe(
    v.string(),
    v.transform((raw) =>
      raw
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    ),
  ),
  '',
);

/** A comma-separated list of plain hosts with optional ports (`isAcceptableHost`), trimmed, empty entries dropped. */
const hostList = parsedVariable<string[]>(
  '',
  (raw) => {
    const hosts = raw
      .split(',')
      .map((host) => host.trim())
      .filter(Boolean);
    return hosts.every((host) => isAcceptableHost(host)) ? hosts : undefined;
  },
  (raw) =>
    `must be comma-separated host names or addresses, each with an optional port (e.g. actor.example,10.0.0.5:8080), got ${shown(raw)}`,
);

/** An http(s) URL; undefined when unset or blank. */
const httpUrl = v.pipe(
  trimmed,
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed && dataset.value !== undefined ? httpUrlProblem(dataset.value) : undefined;
    if (problem !== undefined) addIssue({ message: problem });
  }),
);

/** The samplers `OTEL_TRACES_SAMPLER` names (the OpenTelemetry SDK's own names). */
const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** The sampler of the actor's traces. */
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** One of `choices`, trimmed and lower-cased; unset or blank is `fallback`. */
const oneOf = <const T extends string>(fallback: T, choices: readonly T[]) =>
  parsedVariable<T>(
    fallback,
    blankIs(fallback, (trimmed) => choices.find((choice) => choice === trimmed.toLowerCase())),
    (raw) => `must be one of ${choices.join(', ')}, got ${shown(raw)}`,
  );

/** A ratio from 0 to 1; unset or blank is `fallback`. */
const ratio = (fallback: number) =>
  parsedVariable(
    String(fallback),
    blankIs(fallback, (trimmed) => {
      const value = Number(trimmed);
      return Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
    }),
    (raw) => `must be a number from 0 to 1, got ${shown(raw)}`,
  );

/** OTLP headers, `key=value,key2=value2` with URL-encoded values (the OpenTelemetry format); unset or blank is none. */
const otlpHeaders = parsedVariable<Readonly<Record<string, string>>>(
  '',
  (raw) => {
    const headers: Record<string, string> = {};
    for (const pair of raw.split(',')) {
      if (pair.trim() === '') continue;
      const at = pair.indexOf('=');
      const name = at > 0 ? pair.slice(0, at).trim() : '';
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return undefined;
      try {
        headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        return undefined;
      }
    }
    return headers;
  },
  // The value may hold a credential: it is never shown.
  () => 'must be key=value pairs separated by commas (values URL-encoded), e.g. authorization=Bearer%20token',
);

/**
 * The environment of an actor: every variable of `ENVIRONMENT_VARIABLES`, parsed to its type
 * with its default applied. Parse it once, at start, with `parseEnvironment`.
 */
export const EnvironmentConfig = v.object({
  PORT: port,
  HOST: listenAddress,
  ALLOWED_HOSTS: hostList,
  ACTOR_PLATFORM: flag(VARIABLES.ACTOR_PLATFORM.default),
  API_KEY_ENABLED: flag(VARIABLES.API_KEY_ENABLED.default),
  PLATFORM_SECRET: trimmed,
  API_KEY: keyList,
  DATABASE_URL: text,
  DATA_DIR: v.optional(v.string(), VARIABLES.DATA_DIR.default),
  DATABASE_POOL_SIZE: integer(VARIABLES.DATABASE_POOL_SIZE.default, 1),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(VARIABLES.DATABASE_STATEMENT_TIMEOUT_MS.default, 1),
  DATABASE_TIMEOUT_MS: integer(VARIABLES.DATABASE_TIMEOUT_MS.default, 1),
  HEALTH_CHECK_TIMEOUT_MS: integer(VARIABLES.HEALTH_CHECK_TIMEOUT_MS.default, 1),
  SETTINGS_REFRESH_MS: integer(VARIABLES.SETTINGS_REFRESH_MS.default, 0),
  BODY_LIMIT_BYTES: integer(VARIABLES.BODY_LIMIT_BYTES.default, 1),
  IDEMPOTENCY_TTL_S: integer(VARIABLES.IDEMPOTENCY_TTL_S.default, 1),
  SHUTDOWN_GRACE_MS: integer(VARIABLES.SHUTDOWN_GRACE_MS.default, 1),
  RUN_ON_DISCONNECT: v.optional(
    v.picklist(['continue', 'cancel'], 'must be "continue" or "cancel"'),
    VARIABLES.RUN_ON_DISCONNECT.default as 'continue',
  ),
  RUN_RETENTION_S: integer(VARIABLES.RUN_RETENTION_S.default, 1),
  RUN_LEASE_MS: integer(VARIABLES.RUN_LEASE_MS.default, 1_000),
  RUN_RETRY_READ_ONLY: flag(VARIABLES.RUN_RETRY_READ_ONLY.default),
  APPROVAL_TIMEOUT_S: integer(VARIABLES.APPROVAL_TIMEOUT_S.default, 1),
  NODE_HEAP_TUNING: flag(VARIABLES.NODE_HEAP_TUNING.default),
  LOG_LEVEL: v.optional(
    v.pipe(
      v.string(),
      v.transform((level: string) => parseLogLevel(level)),
    ),
    VARIABLES.LOG_LEVEL.default,
  ),
  INSTANCE_ID: text,
  HOSTNAME: text,
  // A model provider's name, checked by the agent against its list (src/agent/model-providers.ts): this layer is below it.
  LLM_PROVIDER: trimmed,
  LLM_BASE_URL: httpUrl,
  LLM_API_KEY: trimmed,
  LLM_MODEL: trimmed,
  LLM_HEADERS: trimmed,
  LLM_TIMEOUT_MS: integer(VARIABLES.LLM_TIMEOUT_MS.default, 1),
  LLM_MAX_RETRIES: integer(VARIABLES.LLM_MAX_RETRIES.default, 0),
  HISTORY_LIMIT: integer(VARIABLES.HISTORY_LIMIT.default, 0),
  MAX_TOOL_STEPS: integer(VARIABLES.MAX_TOOL_STEPS.default, 0),
  MCP_SERVERS: trimmed,
  TOOL_APPROVAL: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check(
        (value) =>
          value === 'all' ||
          value === 'none' ||
          value.split(',').every((name) => /^[a-z][a-z0-9_]*$/.test(name.trim())),
        'must be all, none, or tool names separated by commas (e.g. docs_delete_page)',
      ),
    ),
    VARIABLES.TOOL_APPROVAL.default,
  ),
  MCP_MAX_BATCH: integer(VARIABLES.MCP_MAX_BATCH.default, 1),
  MESH_KEY: text,
  WORKFLOW_BASE_URL: text,
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(VARIABLES.OTEL_EXPORTER_OTLP_PROTOCOL.default, ['http/protobuf', 'http/json']),
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
  OTEL_SERVICE_NAME: trimmed,
  OTEL_TRACES_SAMPLER: oneOf(VARIABLES.OTEL_TRACES_SAMPLER.default, TRACES_SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: ratio(VARIABLES.OTEL_TRACES_SAMPLER_ARG.default),
  PLAYGROUND_ENABLED: flag(VARIABLES.PLAYGROUND_ENABLED.default),
});

/** The typed environment of an actor. */
export type EnvironmentConfig = v.InferOutput<typeof EnvironmentConfig>;
