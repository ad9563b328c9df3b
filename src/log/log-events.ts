import type { LogLevel } from './log-record.js';

/** What the table says of one log event: the levels it is written at, and what it means. */
interface LogEventEntry {
  readonly levels: readonly LogLevel[];
  readonly meaning: string;
}

/**
 * Every event the runtime (`src/`) and the CLI (`cli/`) log, by its name on the wire (the
 * `event` field of a JSON log line), with the levels it is written at and what it means.
 * The logger accepts only these names, at these levels, so a typo or a rename fails the
 * compile — in the code that logs it and in `actorkit dev`, which reads some of them.
 * docs/logs.md is generated from it (`npm run docs:logs`). Operators query these names: keep
 * them as they are.
 */
export const LOG_EVENTS = {
  // the actor process (src/adapter)
  actor_listening: { levels: ['info'], meaning: 'the server listens (`runtime`, `hostname`, `port`, `url`)' },
  actor_listen_failed: { levels: ['error'], meaning: 'the server could not listen (`hostname`, `port`, `error`)' },
  actor_start_failed: {
    levels: ['error'],
    meaning: 'the actor could not start; the server closes and the process exits 1',
  },
  actor_shutdown_started: {
    levels: ['info'],
    meaning: 'a signal or `close()` began the graceful shutdown (`reason`, `grace_ms`)',
  },
  actor_shutdown_failed: { levels: ['error'], meaning: 'the graceful shutdown threw (`reason`, `error`)' },
  actor_shutdown_forced: {
    levels: ['warn'],
    meaning: 'a second signal came during the drain; the process exits 1 at once',
  },
  actor_server_closed: { levels: ['info'], meaning: 'the server is closed (`reason`, `duration_ms`, `clean`)' },
  allowed_hosts_needed: {
    levels: ['warn'],
    meaning: 'a keyless actor listens beyond loopback with an empty `ALLOWED_HOSTS`: other `Host` names get 421',
  },
  // the lifecycle (src/app)
  actor_ready: {
    levels: ['info'],
    meaning: 'the store is migrated and the saved settings applied: `/ready` says ready (`store`, `version`)',
  },
  actor_draining: { levels: ['info'], meaning: 'the drain began (`in_flight`, `grace_ms`)' },
  drain_timed_out: {
    levels: ['warn'],
    meaning: 'requests were still in flight when the grace period ended (`in_flight`)',
  },
  actor_stopped: { levels: ['info'], meaning: 'stats flushed and the store closed (`pending_stats`)' },
  stats_flush_failed: {
    levels: ['error'],
    meaning: 'the stats held in memory could not be written at shutdown (`pending`)',
  },
  store_close_failed: { levels: ['error'], meaning: 'closing the store at shutdown threw' },
  store_start_failed: {
    levels: ['error'],
    meaning: 'migrating or reading the store at start failed; retried (`attempt`, `retry_in_ms`)',
  },
  settings_reloaded: {
    levels: ['info'],
    meaning: 'the settings another replica saved were read back and applied (`changed`)',
  },
  settings_refresh_failed: {
    levels: ['debug'],
    meaning: 'reading the saved settings back failed; the next read-back tries again (`error`)',
  },
  stats_spilled: {
    levels: ['warn'],
    meaning:
      'counts that could not be flushed at shutdown were written to a file under `DATA_DIR` (`pending`, `path`, `reason`)',
  },
  stats_spill_merged: {
    levels: ['info'],
    meaning:
      'spilled or journaled counts were merged into the store, at start or when the database came back (`records`, `files`)',
  },
  stats_spill_merge_failed: {
    levels: ['debug'],
    meaning:
      'merging the journals of processes that are gone failed when the database came back; the next start retries (`error`)',
  },
  stats_spill_failed: {
    levels: ['warn'],
    meaning:
      'writing the spill file at shutdown failed (a full disk); retried until it succeeds or the grace period ends, logged once (`pending`, `error`)',
  },
  stats_journal_failed: {
    levels: ['error', 'warn'],
    meaning:
      'the journal of counts waiting for the database could not be written (error, once until a write succeeds: those counts are in memory only) or removed (warn) (`error`, `pending`)',
  },
  stats_spill_unreadable: {
    levels: ['error'],
    meaning: 'a spill file could not be read or stored; renamed `.unreadable`, never deleted (`files`)',
  },
  stats_spill_of_other_database: {
    levels: ['warn'],
    meaning: 'a spill file names another database; left in place (`files`)',
  },
  saved_settings_dropped: {
    levels: ['warn'],
    meaning: 'saved settings no longer valid for the settings schema were ignored (`keys`)',
  },
  router_mounted: { levels: ['debug'], meaning: 'a route group was mounted (`router`)' },
  request_failed: {
    levels: ['warn'],
    meaning: 'a request ended in a 5xx problem (`request_id`, `code`, `status`, `cause`)',
  },
  client_closed_request: { levels: ['debug'], meaning: 'the client went away before the answer (499)' },
  unhandled_error: {
    levels: ['error'],
    meaning: 'an error that is not an `ActorError` became a 500 `internal_error` (`error`, `stack`)',
  },
  api_key_not_enabled: {
    levels: ['warn'],
    meaning: '`API_KEY` is set but `API_KEY_ENABLED` is not: every route is open',
  },
  api_key_ignored_on_platform: {
    levels: ['warn'],
    meaning: '`ACTOR_PLATFORM=true`: the API key is not checked, the platform is the boundary',
  },
  // routes and surfaces (src/routes, src/surfaces)
  readiness_check_failed: { levels: ['warn'], meaning: 'a readiness check threw; `/ready` reports it failing' },
  settings_updated: { levels: ['info'], meaning: '`PUT /settings` applied values (`applied`, `restart_required`)' },
  mesh_key_rejected: {
    levels: ['warn'],
    meaning: 'a mesh request had a missing or wrong `X-Mesh-Key` (`code`, `path`); never the key',
  },
  mesh_key_weak: { levels: ['warn'], meaning: 'a `MESH_KEY` is shorter than 16 characters' },
  mcp_tool_failed: { levels: ['warn'], meaning: 'a tool called through `/mcp` threw (`tool`, `error`)' },
  mcp_elicitation_failed: {
    levels: ['warn'],
    meaning:
      'an MCP client answered the elicitation of a paused `chat` with an error or no approval (`run_id`, `error`); the call returned the pending approvals instead',
  },
  panel_action_run: {
    levels: ['info', 'warn'],
    meaning: 'a panel action ran (`panel`, `action`, `outcome`; `warn` with its `code` when it failed)',
  },
  // a turn (src/invoke)
  invoke_finished: {
    levels: ['info'],
    meaning: 'one invoke was recorded: outcome, model, tool calls, tokens, latency (see agent.md)',
  },
  invoke_tool_arguments: { levels: ['debug'], meaning: 'the argument keys of each tool call of an invoke' },
  idempotency_unavailable: {
    levels: ['warn'],
    meaning: 'the store could not claim an `Idempotency-Key`; the invoke runs without it',
  },
  idempotency_complete_failed: {
    levels: ['warn'],
    meaning: 'the reply of an idempotent invoke could not be saved under its key',
  },
  idempotency_release_failed: {
    levels: ['warn'],
    meaning: 'the key of a failed idempotent invoke could not be released',
  },
  // the agent (src/agent)
  chat_model_selected: {
    levels: ['info'],
    meaning:
      'the model the agent uses (`provider`, `model`, `base_url` without credentials, `headers`: the names of the `LLM_HEADERS` it sends, never their values; `transport`: how a whole answer is fetched, `node:http` on Node, `fetch` on Bun and Deno)',
  },
  model_call_failed: {
    levels: ['warn'],
    meaning:
      "the model server failed or answered nothing usable (`model`, `base_url`, `status`, `error`: the server's or gateway's own reason, with the key and header values struck out; `upstream_code` when its body names one); the invoke is a 502 `model_error`",
  },
  model_stream_ignored: {
    levels: ['warn'],
    meaning: 'the model server answered one JSON completion to `stream: true`; it is used as is',
  },
  model_client_log: {
    levels: ['debug', 'info', 'warn', 'error'],
    meaning: 'a line the OpenAI client library wrote (`message`)',
  },
  history_read_failed: { levels: ['warn'], meaning: 'the session history could not be read; the turn runs without it' },
  tool_call_failed: { levels: ['warn'], meaning: 'a tool threw; the model is told (`tool`, `error`)' },
  tool_registry_built: { levels: ['info'], meaning: 'the tools of the agent are known (`total`, `sources`)' },
  tool_source_failed: {
    levels: ['warn'],
    meaning: 'a tool source (domain or an MCP server) failed and contributes nothing (`source`, `error`)',
  },
  tool_duplicate_dropped: {
    levels: ['warn'],
    meaning: 'a tool whose name an earlier source took was dropped (`source`, `tool`)',
  },
  mcp_server_connected: { levels: ['info'], meaning: 'an MCP server answered with its tools (`server`, `tools`)' },
  mcp_server_stderr: {
    levels: ['debug'],
    meaning: 'what a stdio MCP server wrote on its standard error (`server`, `text`)',
  },
  mcp_tool_dropped: { levels: ['warn'], meaning: 'a malformed MCP tool was dropped (`server`, `tool`, `reason`)' },
  // traces (src/telemetry)
  tracer_started: {
    levels: ['info'],
    meaning:
      '`OTEL_EXPORTER_OTLP_ENDPOINT` is set: spans go to `url` (without credentials) over `protocol`, as `service_name`, sampled by `sampler`',
  },
  tracer_unavailable: {
    levels: ['error'],
    meaning:
      'traces are asked for but the OpenTelemetry packages could not be loaded (`missing`, `install`, `error`); the actor serves without traces',
  },
  tracer_diagnostic: {
    levels: ['warn'],
    meaning:
      'the OpenTelemetry SDK reported a problem, e.g. an export the collector refused or could not take (`message`)',
  },
  // OAuth (src/oauth)
  oauth_authorize_started: { levels: ['info'], meaning: 'a user was sent to the provider (`provider`, `tenant_id`)' },
  oauth_state_rejected: { levels: ['warn'], meaning: 'a callback came with an unknown, used or expired `state`' },
  oauth_authorization_denied: { levels: ['warn'], meaning: 'the provider answered the callback with an error' },
  oauth_callback_invalid: { levels: ['warn'], meaning: 'the callback did not validate (`reason`)' },
  oauth_token_exchange_failed: { levels: ['warn'], meaning: 'the code could not be exchanged for a token (`reason`)' },
  oauth_connected: { levels: ['info'], meaning: 'a token was saved (`scope`, `expires_at`, `refreshable`)' },
  oauth_token_refreshed: { levels: ['info'], meaning: 'an expiring token was renewed (`expires_at`)' },
  oauth_token_refresh_failed: { levels: ['warn'], meaning: 'an expiring token could not be renewed (`reason`)' },
  oauth_token_save_failed: { levels: ['error'], meaning: 'a renewed token could not be saved' },
  // state (src/store)
  store_opened: { levels: ['info'], meaning: 'the store is open (`store`, `driver`, `database`)' },
  store_database_unreachable: {
    levels: ['warn'],
    meaning: 'PostgreSQL did not answer at start; the actor starts and retries (`database`, `error`)',
  },
  store_migrated: { levels: ['info'], meaning: 'migrations were applied (`store`, `applied`)' },
  store_cleanup_failed: { levels: ['warn'], meaning: 'removing expired rows failed (`store`, `error`)' },
  runs_write_failed: {
    levels: ['warn'],
    meaning: 'writing runs and their stream parts failed (`runs`, `error`); retried every second, nothing is dropped',
  },
  runs_sweep_failed: { levels: ['warn'], meaning: 'looking for runs whose instance died failed (`error`)' },
  runs_cancel_poll_failed: {
    levels: ['warn'],
    meaning: 'looking for cancels asked on another replica failed (`error`); tried again every second',
  },
  run_taken_over: {
    levels: ['info', 'warn'],
    meaning:
      'a run whose instance stopped renewing it was taken over (`run_id`, `outcome`: `runner_lost` at warn, `retried` at info)',
  },
  tool_approval_requested: {
    levels: ['info'],
    meaning:
      "a tool call waits for a person's approval; its run is `awaiting_input` (`run_id`, `approval_id`, `tool`, `tenant_id`, `session_id`)",
  },
  tool_approval_decided: {
    levels: ['info'],
    meaning:
      'a tool call approval was decided (`run_id`, `approval_id`, `tool`, `decision`: `approved`, `denied` or `expired`, `decided_by`, `waited_ms`)',
  },
  tool_approval_rule_failed: {
    levels: ['warn'],
    meaning:
      "a tool's `needsApproval` rule threw (`tool`, `request_id`, `error`): the call waits for a person's approval",
  },
  approvals_expiry_failed: {
    levels: ['warn'],
    meaning:
      'denying the approvals a run waited for past `APPROVAL_TIMEOUT_S` failed (`run_id`, `error`); tried at the next sweep',
  },
  run_retry_failed: {
    levels: ['warn'],
    meaning:
      'a taken-over run could not be run again (`run_id`, `error`: its stored parts or request unreadable); it fails `runner_lost`',
  },
  sqlite_wal_unavailable: { levels: ['warn'], meaning: 'SQLite could not use WAL journaling (`journal_mode`, `path`)' },
  database_connection_lost: { levels: ['warn'], meaning: 'a pooled PostgreSQL connection broke' },
  database_unreachable: { levels: ['warn'], meaning: 'the database stopped answering (`store`, `error`)' },
  database_reachable: { levels: ['info'], meaning: 'the database answers again (`store`, `outage_ms`)' },
  invocation_store_unavailable: {
    levels: ['warn'],
    meaning: 'stats records are held in memory while the store fails (`store`, `pending`)',
  },
  invocation_store_recovered: {
    levels: ['info'],
    meaning: 'the held stats records were written (`store`, `outage_ms`, `deferred`)',
  },
  invocation_record_set_aside: {
    levels: ['error'],
    meaning: 'a stats record the store keeps refusing was set aside (`tenant_id`, `record_id`)',
  },
  invocation_record_invalid: { levels: ['error'], meaning: 'a stats record that is not valid was dropped' },
  invocation_history_invalid: { levels: ['error'], meaning: 'a history that is not valid was dropped, the count kept' },
  store_disk_full: {
    levels: ['error'],
    meaning:
      'the disk under the store is full (SQLITE_FULL, PostgreSQL 53100): logged once; `/health` degraded until rows are stored again (`store`, `error`, `effect`)',
  },
  store_disk_space_recovered: {
    levels: ['info'],
    meaning: 'rows are stored again after a full disk (`store`, `full_ms`)',
  },
  history_write_failed: { levels: ['error'], meaning: 'a session history could not be written (`tenant_id`)' },
  stats_read_from_memory: { levels: ['debug'], meaning: '`GET /stats` answered from memory while the store fails' },
  // the SDK (src/sdk)
  safe_call_failed: {
    levels: ['warn'],
    meaning:
      '`safeCall` fell back: its call threw, rejected or timed out (`action`, `reason`, `error` with its cause chain)',
  },
  // the CLI (cli/)
  actor_validation_started: {
    levels: ['info'],
    meaning: '`actorkit validate` began (`actor_dir`, `actorkit_origin`, `actorkit_version`)',
  },
  actor_validated: { levels: ['info'], meaning: '`actorkit validate` ended (`actor_dir`, `problems`)' },
  template_source_resolved: {
    levels: ['info'],
    meaning: '`actorkit new` found its template (`kind`, `location`, `ref`, `commit`)',
  },
  actor_rendered: { levels: ['info'], meaning: '`actorkit new` wrote the actor (`target`, `files`)' },
  actor_render_stopped: { levels: ['warn'], meaning: '`actorkit new` stopped (`status`, `code`)' },
  actor_update_planned: {
    levels: ['info'],
    meaning: '`actorkit update` planned its writes (`from`, `to`, `dry_run`, `writes`)',
  },
  actor_update_stopped: { levels: ['warn'], meaning: '`actorkit update` stopped (`status`, `code`)' },
  actor_version_bumped: { levels: ['info'], meaning: '`actorkit publish` bumped the version (`from`, `to`)' },
  container_command_started: {
    levels: ['info'],
    meaning: '`actorkit publish` ran the container tool (`cli`, `command`)',
  },
  actor_published: { levels: ['info'], meaning: '`actorkit publish` pushed the image (`image`)' },
  actor_publish_stopped: { levels: ['warn'], meaning: '`actorkit publish` stopped (`status`, `code`)' },
} as const satisfies Record<string, LogEventEntry>;

/** The event a domain client logs once when it is built, `<prefix>_client_initialized` (see `DomainClient`). */
type ClientInitializedEvent = `${string}_client_initialized`;

/** The pattern of {@link ClientInitializedEvent}, as the table's docs show it. */
export const CLIENT_INITIALIZED_EVENT = {
  name: '<prefix>_client_initialized',
  level: 'info',
  meaning: 'a domain client was built (`client`); the prefix is its snake_case class name without `Client`',
} as const;

type TableEvent = keyof typeof LOG_EVENTS;

/** A name the runtime or the CLI logs: one of `LOG_EVENTS` (docs/logs.md), or a domain client's `<prefix>_client_initialized`. */
export type LogEvent = TableEvent | ClientInitializedEvent;

/** The events the table lists at `level`. */
export type LogEventAt<Level extends LogLevel> =
  | { [Event in TableEvent]: Level extends (typeof LOG_EVENTS)[Event]['levels'][number] ? Event : never }[TableEvent]
  | (Level extends typeof CLIENT_INITIALIZED_EVENT.level ? ClientInitializedEvent : never);

/**
 * Whether `name` is an event the runtime or the CLI logs (a line of another program, or of a
 * newer actorkit, may carry any name).
 * @param name the `event` field of a log line
 */
export function isLogEvent(name: string): name is LogEvent {
  return Object.hasOwn(LOG_EVENTS, name) || /^[a-z0-9_]+_client_initialized$/.test(name);
}
