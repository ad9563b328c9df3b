import * as v from 'valibot';
import { withoutCredentials } from '../core/without-credentials.js';
import { parseLogLevel } from '../log/logger.js';
import { ENVIRONMENT_VARIABLES as VARIABLES } from './environment-variables.js';
import { parseOnOff } from './parse-on-off.js';

/** Environment variables, as the runtime reads them (`process.env` on Node and Bun, `Deno.env` on Deno). */
export type ActorEnvironment = Readonly<Record<string, string | undefined>>;

const shown = (raw: string) => JSON.stringify(raw);

/** An on/off variable: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, any case; empty is false. */
const flag = (fallback: boolean) =>
  v.optional(
    v.pipe(
      v.string(),
      v.rawTransform<string, boolean>(({ dataset, addIssue, NEVER }) => {
        const value = parseOnOff(dataset.value);
        if (value !== undefined) return value;
        addIssue({ message: `must be true or false, got ${shown(dataset.value)}` });
        return NEVER;
      }),
    ),
    String(fallback),
  );

/** A whole number of at least `min` (`min` 1: a positive integer); unset or blank is `fallback`. */
const integer = (fallback: number, min: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.rawTransform<string, number>(({ dataset, addIssue, NEVER }) => {
        const raw = dataset.value.trim();
        if (raw === '') return fallback;
        const value = Number(raw);
        if (Number.isSafeInteger(value) && value >= min) return value;
        addIssue({ message: min === 1 ? `must be a positive integer, got ${shown(dataset.value)}` : `must be an integer of at least ${min}, got ${shown(raw)}` });
        return NEVER;
      }),
    ),
    String(fallback),
  );

/** A TCP port: digits only, 0 to 65535; unset or blank is the default. */
const port = v.optional(
  v.pipe(
    v.string(),
    v.rawTransform<string, number>(({ dataset, addIssue, NEVER }) => {
      const raw = dataset.value.trim();
      if (raw === '') return VARIABLES.PORT.default;
      if (/^\d+$/.test(raw) && Number(raw) <= 65_535) return Number(raw);
      addIssue({ message: `must be an integer from 0 to 65535, got ${shown(dataset.value)}` });
      return NEVER;
    }),
  ),
  String(VARIABLES.PORT.default),
);

/** A listening address: an IP address or a host name; unset or blank is the default. */
const listenAddress = v.optional(
  v.pipe(
    v.string(),
    v.rawTransform<string, string>(({ dataset, addIssue, NEVER }) => {
      const raw = dataset.value.trim();
      if (raw === '') return VARIABLES.HOST.default;
      if (/^[A-Za-z0-9.:[\]-]{1,253}$/.test(raw)) return raw;
      addIssue({ message: `must be an IP address or a host name, got ${shown(dataset.value)}` });
      return NEVER;
    }),
  ),
  VARIABLES.HOST.default,
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
    v.transform((raw) => raw.split(',').map((key) => key.trim()).filter(Boolean)),
  ),
  '',
);

/** An http(s) URL; undefined when unset or blank. */
const httpUrl = v.pipe(
  trimmed,
  v.check((url) => url === undefined || (/^https?:\/\//i.test(url) && URL.canParse(url)), (issue) => `must be an http(s) URL, got ${shown(withoutCredentials(String(issue.input)))}`),
);

/** One of the built-in model providers; undefined when unset or blank. */
const provider = v.pipe(
  trimmed,
  v.check((name) => name === undefined || name === 'openai-compatible' || name === 'offline', (issue) => `must be openai-compatible or offline, got ${shown(String(issue.input))}`),
  v.transform((name) => name as 'openai-compatible' | 'offline' | undefined),
);

/**
 * The environment of an actor: every variable of `ENVIRONMENT_VARIABLES`, parsed to its type
 * with its default applied. Parse it once, at start, with `parseEnvironment`.
 */
export const EnvironmentConfig = v.object({
  PORT: port,
  HOST: listenAddress,
  ACTOR_PLATFORM: flag(VARIABLES.ACTOR_PLATFORM.default),
  API_KEY_ENABLED: flag(VARIABLES.API_KEY_ENABLED.default),
  API_KEY: keyList,
  DATABASE_URL: text,
  DATA_DIR: v.optional(v.string(), VARIABLES.DATA_DIR.default),
  DATABASE_POOL_SIZE: integer(VARIABLES.DATABASE_POOL_SIZE.default, 1),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(VARIABLES.DATABASE_STATEMENT_TIMEOUT_MS.default, 1),
  BODY_LIMIT_BYTES: integer(VARIABLES.BODY_LIMIT_BYTES.default, 1),
  IDEMPOTENCY_TTL_S: integer(VARIABLES.IDEMPOTENCY_TTL_S.default, 1),
  SHUTDOWN_GRACE_MS: integer(VARIABLES.SHUTDOWN_GRACE_MS.default, 1),
  LOG_LEVEL: v.optional(v.pipe(v.string(), v.transform((level: string) => parseLogLevel(level))), VARIABLES.LOG_LEVEL.default),
  INSTANCE_ID: text,
  HOSTNAME: text,
  LLM_PROVIDER: provider,
  LLM_BASE_URL: httpUrl,
  LLM_API_KEY: trimmed,
  LLM_MODEL: trimmed,
  LLM_TIMEOUT_MS: integer(VARIABLES.LLM_TIMEOUT_MS.default, 1),
  LLM_MAX_RETRIES: integer(VARIABLES.LLM_MAX_RETRIES.default, 0),
  HISTORY_LIMIT: integer(VARIABLES.HISTORY_LIMIT.default, 0),
  MAX_TOOL_STEPS: integer(VARIABLES.MAX_TOOL_STEPS.default, 0),
  MCP_SERVERS: trimmed,
  MCP_MAX_SESSIONS: integer(VARIABLES.MCP_MAX_SESSIONS.default, 1),
  MCP_SESSION_IDLE_MS: integer(VARIABLES.MCP_SESSION_IDLE_MS.default, 1),
  MESH_KEY: text,
  WORKFLOW_BASE_URL: text,
  PLAYGROUND_ENABLED: flag(VARIABLES.PLAYGROUND_ENABLED.default),
});

/** The typed environment of an actor. */
export type EnvironmentConfig = v.InferOutput<typeof EnvironmentConfig>;
