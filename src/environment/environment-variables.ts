/** One row of the environment table: what a variable means, its default, whether its value is a secret. */
export interface EnvironmentVariable {
  /** The value used when the variable is unset (or empty, for numbers); undefined when there is none. */
  readonly default: string | number | boolean | undefined;
  /** The default as the README shows it, when the value alone does not say it. */
  readonly shownDefault?: string;
  /** One line for the README. */
  readonly meaning: string;
  /** A secret's value never appears in a message, a log line or `config.json`. */
  readonly secret: boolean;
}

/**
 * Every environment variable an actor reads, with its default: the one table behind the typed
 * environment (`EnvironmentConfig`), the runtime's defaults and the README's table
 * (`npm run docs:env`). The order is the README's.
 */
export const ENVIRONMENT_VARIABLES = {
  PORT: { default: 8080, meaning: 'listening port (`0` picks a free one)', secret: false },
  HOST: {
    default: '0.0.0.0',
    meaning:
      'listening address (`127.0.0.1` keeps the actor to this machine; `actorkit dev` sets it for the actor behind its proxy)',
    secret: false,
  },
  ALLOWED_HOSTS: {
    default: undefined,
    shownDefault: 'none (loopback names only)',
    meaning:
      'without an API key and off the platform, the `Host` names the actor answers besides loopback ones (DNS-rebinding guard): comma-separated, each `name` (any port) or `name:port`; a container run without a key needs it',
    secret: false,
  },
  ACTOR_PLATFORM: {
    default: false,
    meaning: '`true` on the platform: no auth layer, `PUT /settings` answers 403',
    secret: false,
  },
  PLATFORM_SECRET: {
    default: undefined,
    shownDefault: 'none',
    meaning:
      'with `ACTOR_PLATFORM=true`: the secret every request must carry in `X-Platform-Secret`, else 403 `not_from_platform` (`actorkit platform` sets a new one each run, so only its gateway and service addresses reach a replica)',
    secret: true,
  },
  API_KEY_ENABLED: {
    default: false,
    meaning: 'standalone key auth on `X-API-Key`; refuses to start without `API_KEY`',
    secret: false,
  },
  API_KEY: {
    default: undefined,
    shownDefault: 'none',
    meaning: 'the accepted keys, comma-separated for rotation',
    secret: true,
  },
  DATABASE_URL: {
    default: undefined,
    shownDefault: 'SQLite file under `DATA_DIR`',
    meaning: '`memory://` for an in-memory SQLite, `file:<path>`, `postgres://…` for PostgreSQL',
    secret: true,
  },
  DATA_DIR: { default: '.actorkit/data', meaning: 'where the SQLite file lives', secret: false },
  DATABASE_POOL_SIZE: { default: 10, meaning: 'PostgreSQL connection pool size', secret: false },
  DATABASE_STATEMENT_TIMEOUT_MS: { default: 10_000, meaning: 'PostgreSQL statement time-out', secret: false },
  DATABASE_TIMEOUT_MS: {
    default: 5_000,
    meaning:
      'longest wait for the database in one store call (PostgreSQL: connecting, a free pooled connection, each query); then `PUT /settings` and other calls that need the store answer 503 `store_unavailable`, an invoke answers without it',
    secret: false,
  },
  HEALTH_CHECK_TIMEOUT_MS: {
    default: 2_000,
    meaning:
      "longest wait for one of the actor's own health checks (a domain client's `healthCheck()`); `/health` reports the last known result and never waits, and a check that fails or takes longer makes it `degraded`",
    secret: false,
  },
  SETTINGS_REFRESH_MS: {
    default: 5_000,
    meaning:
      'how often the settings saved by `PUT /settings` are read back, so every replica serves a change another one saved (`0` never: one replica)',
    secret: false,
  },
  BODY_LIMIT_BYTES: { default: 1_048_576, meaning: 'largest request body', secret: false },
  IDEMPOTENCY_TTL_S: {
    default: 86_400,
    meaning: 'how long a completed `Idempotency-Key` is remembered',
    secret: false,
  },
  SHUTDOWN_GRACE_MS: {
    default: 10_000,
    meaning:
      'how long a SIGTERM waits for in-flight requests and runs; runs still going then end `failed` `runner_stopped`, their parts kept',
    secret: false,
  },
  RUN_ON_DISCONNECT: {
    default: 'continue',
    meaning:
      'what a dropped client does to its run when the request does not say (`on_disconnect`): `continue` (the run finishes and can be reconnected to) or `cancel` (the model call stops, the run ends `cancelled`)',
    secret: false,
  },
  RUN_RETENTION_S: {
    default: 86_400,
    meaning: 'how long a finished run and its stream parts are kept for `GET /agent/runs/{id}` and its stream',
    secret: false,
  },
  RUN_LEASE_MS: {
    default: 20_000,
    meaning:
      'how long a run stays with its instance without a renewal (renewed every quarter of it); a run whose instance died is taken over by another replica, or the restarted one, within 1.25 times this',
    secret: false,
  },
  APPROVAL_TIMEOUT_S: {
    default: 86_400,
    meaning:
      "how long a tool call waits for a person's approval (the run `awaiting_input`); past it the call counts as denied (`approval_expired`), the model is told, and the run goes on to its end",
    secret: false,
  },
  RUN_RETRY_READ_ONLY: {
    default: false,
    meaning:
      'a run taken over from a dead instance is run again from the start when every tool it ran was read-only; otherwise (and by default) it ends `failed` `runner_lost`',
    secret: false,
  },
  NODE_HEAP_TUNING: {
    default: true,
    meaning:
      "on Node, the V8 heap sizing the actor sets for itself so RSS under load stays near idle (old space grows by 20% of the live heap, semi-spaces stop at 8 MiB; [docs/runtimes.md](docs/runtimes.md#memory-on-node)); `false` leaves V8's own; a V8 flag given to `node` for either wins",
    secret: false,
  },
  LOG_LEVEL: {
    default: 'info',
    meaning: '`debug`, `info`, `warn`, `error` (anything else is `info`); logs are JSON lines',
    secret: false,
  },
  INSTANCE_ID: {
    default: undefined,
    shownDefault: '`HOSTNAME` or a random id',
    meaning: 'reported by `/health` and `/stats`',
    secret: false,
  },
  HOSTNAME: {
    default: undefined,
    shownDefault: 'set by the container runtime',
    meaning: 'the instance id when `INSTANCE_ID` is unset',
    secret: false,
  },
  LLM_PROVIDER: {
    default: undefined,
    shownDefault: 'the first model provider whose needs are set',
    meaning:
      'the name of a model provider of the agent (the table in [docs/agent.md](docs/agent.md#model-providers)); an unknown name refuses start-up',
    secret: false,
  },
  LLM_BASE_URL: {
    default: undefined,
    shownDefault: 'the OpenAI API',
    meaning: "the model server's `/v1` URL (http or https)",
    secret: false,
  },
  LLM_API_KEY: { default: undefined, shownDefault: 'none', meaning: "the model server's key", secret: true },
  LLM_MODEL: {
    default: undefined,
    shownDefault: 'none (offline model)',
    meaning: 'the model name at the model server',
    secret: false,
  },
  LLM_HEADERS: {
    default: undefined,
    shownDefault: 'none',
    meaning:
      'extra headers sent on every model call, as a JSON object of names to string values, e.g. `{"x-portkey-provider": "openai"}` for a gateway (not `Authorization`: the key is `LLM_API_KEY`); a value that is not such an object refuses the start',
    secret: true,
  },
  LLM_TIMEOUT_MS: { default: 60_000, meaning: 'model call time-out', secret: false },
  LLM_MAX_RETRIES: { default: 2, meaning: 'retries of a failed model call', secret: false },
  HISTORY_LIMIT: {
    default: 20,
    meaning: 'earlier messages of the session sent to the model (`0` sends none)',
    secret: false,
  },
  MAX_TOOL_STEPS: {
    default: 5,
    meaning: 'model calls whose tool calls run in one turn (`0` turns tools off)',
    secret: false,
  },
  MCP_SERVERS: {
    default: undefined,
    shownDefault: 'none',
    meaning: 'JSON object of MCP servers (Streamable HTTP or stdio) whose tools the agent may call',
    secret: false,
  },
  TOOL_APPROVAL: {
    default: 'none',
    meaning:
      "which tools of `MCP_SERVERS` need a person's approval before each call (the run waits `awaiting_input`): `all` (but those the server marks read-only), `none`, or their names as the agent sees them (`<server>_<tool>`), separated by commas; a domain tool says so itself (`needsApproval`)",
    secret: false,
  },
  MCP_MAX_BATCH: {
    default: 10,
    meaning: 'most JSON-RPC messages in one `POST /mcp` (`expose_mcp`); a larger batch answers 400 and none of it runs',
    secret: false,
  },
  MESH_KEY: {
    default: undefined,
    shownDefault: 'none',
    meaning: 'the fleet-mesh group key (comma-separated for rotation); required when the actor mounts peer reads',
    secret: true,
  },
  WORKFLOW_BASE_URL: {
    default: undefined,
    shownDefault: 'none',
    meaning: 'the n8n base URL; required when the actor mounts the workflow proxy',
    secret: false,
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    default: undefined,
    shownDefault: 'none (no traces; nothing of OpenTelemetry is loaded)',
    meaning:
      'the OTLP/HTTP base URL traces go to (`/v1/traces` is added), e.g. `http://127.0.0.1:4318`: each request and turn emits OpenTelemetry spans ([docs/agent.md](docs/agent.md#traces-opentelemetry)); needs the optional `@opentelemetry/*` packages',
    secret: false,
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: {
    default: 'http/protobuf',
    meaning: '`http/protobuf` or `http/json` (gRPC is not supported)',
    secret: false,
  },
  OTEL_EXPORTER_OTLP_HEADERS: {
    default: undefined,
    shownDefault: 'none',
    meaning:
      'headers sent with every export, `key=value` pairs separated by commas (values URL-encoded), e.g. an `authorization` key',
    secret: true,
  },
  OTEL_SERVICE_NAME: {
    default: undefined,
    shownDefault: "the actor's slug",
    meaning: 'the `service.name` of the spans',
    secret: false,
  },
  OTEL_TRACES_SAMPLER: {
    default: 'parentbased_always_on',
    meaning:
      '`always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off` or `parentbased_traceidratio`',
    secret: false,
  },
  OTEL_TRACES_SAMPLER_ARG: { default: 1, meaning: 'the ratio (0 to 1) of the `traceidratio` samplers', secret: false },
  PLAYGROUND_ENABLED: {
    default: false,
    meaning:
      'serve the chat playground at `/playground` (linked from `GET /`; on under `actorkit dev`); the page is open, every call it makes needs the key',
    secret: false,
  },
} as const satisfies Record<string, EnvironmentVariable>;

/** Names of the variables whose values are secrets. */
export const SECRET_ENVIRONMENT_VARIABLES: ReadonlySet<string> = new Set(
  Object.entries(ENVIRONMENT_VARIABLES as Record<string, EnvironmentVariable>)
    .filter(([, variable]) => variable.secret)
    .map(([name]) => name),
);

/** Variables read by pattern rather than by name: documented in the same README table. */
export const ENVIRONMENT_PATTERNS = [
  {
    name: 'OAUTH_<PROVIDER>_*',
    shownDefault: 'none',
    meaning: 'endpoints and client of a declared OAuth provider, see [docs/surfaces.md](docs/surfaces.md)',
  },
  {
    name: 'any settings key, upper-cased',
    shownDefault: "the schema's default",
    meaning:
      "e.g. `GREETING=Hi` sets the `greeting` setting; the agent's knobs above read the lower-cased setting first",
  },
] as const;
