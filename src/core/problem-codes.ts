/** What the catalogue says of one problem code: the HTTP status, the title every occurrence carries, and one line for the docs. */
export interface ProblemCodeEntry {
  readonly status: number;
  /** The RFC 9457 `title`: the same for every occurrence of the code. */
  readonly title: string;
  /** When a client meets it, one line (docs/http-api.md's error-code table). */
  readonly meaning: string;
}

/**
 * Every problem `code` actorkit answers with over HTTP, with its status and title: `ActorError`
 * builds its errors from it, docs/http-api.md's error-code table is generated from it (`npm run
 * docs:problems`), and the OpenAPI document reads it through `problemSchemaFor`. The codes are
 * a stable contract: clients branch on them, so a code is added here, never renamed.
 */
export const problemCatalogue = {
  // 400
  bad_request: { status: 400, title: 'Bad request', meaning: 'the request target is not a URL path (Node adapter)' },
  invalid_json: { status: 400, title: 'Malformed JSON', meaning: 'the body is empty or not JSON' },
  invalid_run_cursor: {
    status: 400,
    title: 'Invalid stream position',
    meaning: '`Last-Event-ID` or `after` of a run stream is not a whole number from 0',
  },
  invalid_header: { status: 400, title: 'Invalid header', meaning: 'a malformed `X-Tenant-Id` or `Idempotency-Key`' },
  invalid_host: {
    status: 400,
    title: 'Invalid Host header',
    meaning: 'the `Host` header is not a plain host with an optional port',
  },
  invalid_return_to: {
    status: 400,
    title: 'Invalid return_to',
    meaning: '`/oauth/authorize`: `return_to` is not a relative path on this site',
  },
  invalid_state: {
    status: 400,
    title: 'Invalid OAuth state',
    meaning: '`/oauth/callback`: the state is unknown, used or expired',
  },
  invalid_callback: {
    status: 400,
    title: 'Invalid OAuth callback',
    meaning: '`/oauth/callback`: the parameters are no authorization response',
  },
  oauth_provider_error: {
    status: 400,
    title: 'The provider refused the authorization',
    meaning: '`/oauth/callback`: the provider answered with an error',
  },
  http_error: {
    status: 400,
    title: 'Request failed',
    meaning: "a refusal of the HTTP framework itself; its status is the framework's",
  },
  // 401
  missing_api_key: {
    status: 401,
    title: 'Authentication required',
    meaning: 'API keys are on and the key header is missing',
  },
  invalid_api_key: { status: 401, title: 'Authentication failed', meaning: 'the key header holds no valid key' },
  missing_mesh_key: { status: 401, title: 'Mesh key required', meaning: 'a peer read without `X-Mesh-Key`' },
  invalid_mesh_key: { status: 401, title: 'Mesh key rejected', meaning: "`X-Mesh-Key` is not the group's key" },
  missing_edge_key: {
    status: 401,
    title: 'Edge key required',
    meaning: 'the local platform: a call of the external edge without `X-API-Key`',
  },
  invalid_edge_key: {
    status: 401,
    title: 'Edge key rejected',
    meaning: "the local platform: `X-API-Key` is not this instance's edge key (rotated, or another instance's)",
  },
  missing_owner_credentials: {
    status: 401,
    title: 'Owner credentials required',
    meaning: "the local platform: the dashboard, the panel relay or `/platform/*` without the owner's token or cookie",
  },
  invalid_owner_credentials: {
    status: 401,
    title: 'Owner credentials rejected',
    meaning: "the local platform: the owner token or cookie is not this platform's (an edge key is not one)",
  },
  // 403
  not_from_platform: {
    status: 403,
    title: 'Not from the platform',
    meaning: '`PLATFORM_SECRET` is set and the request does not carry it in `X-Platform-Secret`',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    meaning: "a state-changing request from another site's page",
  },
  settings_managed_by_platform: {
    status: 403,
    title: 'Settings are managed by the platform',
    meaning: '`PUT /settings` with `ACTOR_PLATFORM=true`',
  },
  tenant_mismatch: {
    status: 403,
    title: 'Tenant mismatch',
    meaning: '`tenant_id` differs from the `X-Tenant-Id` header',
  },
  never_exposed: {
    status: 403,
    title: 'Never exposed',
    meaning: 'the local platform: settings and OAuth are never reachable through the external edge',
  },
  // 404
  not_found: { status: 404, title: 'Not found', meaning: 'no route for this path' },
  unknown_provider: {
    status: 404,
    title: 'Unknown OAuth provider',
    meaning: 'no OAuth provider of that name is configured',
  },
  unknown_panel: { status: 404, title: 'Unknown panel', meaning: 'no panel of that slug' },
  platform_config_missing: {
    status: 404,
    title: 'No platform configuration',
    meaning: 'the actor was started without `src/platform/config.json`',
  },
  unknown_actor: { status: 404, title: 'Unknown actor', meaning: 'the local platform hosts no actor of that ref' },
  external_api_disabled: {
    status: 404,
    title: 'No external edge',
    meaning: 'the local platform: the actor has `external_api.enabled: false` (`platform_expose_external_api` off)',
  },
  operation_not_exposed: {
    status: 404,
    title: 'Operation not exposed',
    meaning: "the local platform: the actor's `external_api.operations` does not list this operation",
  },
  run_not_found: {
    status: 404,
    title: 'Run not found',
    meaning:
      "no run of this id for this tenant (another tenant's run is not found either), or it was removed after `RUN_RETENTION_S`",
  },
  approval_not_found: {
    status: 404,
    title: 'Approval not found',
    meaning:
      "the run asked for no approval of this id (the detail names those it waits for), or it is another tenant's or session's",
  },
  // 405
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    meaning: 'a known path asked with another method; `Allow` lists the methods',
  },
  // 409
  run_finished: {
    status: 409,
    title: 'Run finished',
    meaning: 'a cancel of a run that already ended; `state` says how',
  },
  run_cancelled: {
    status: 409,
    title: 'Run cancelled',
    meaning: 'the run of this invoke was cancelled (`POST /agent/runs/{id}/cancel`) before it answered',
  },
  approval_already_decided: {
    status: 409,
    title: 'Approval already decided',
    meaning: 'an answer to a tool call approval that was approved or denied before',
  },
  approval_arguments_changed: {
    status: 409,
    title: 'Approval arguments changed',
    meaning: 'an answer names arguments other than those the run asked about',
  },
  run_not_awaiting_input: {
    status: 409,
    title: 'Run not waiting',
    meaning: 'approvals sent to a run (or session) that waits for none; the detail names its state',
  },
  approval_pending: {
    status: 409,
    title: 'Approval pending',
    meaning: 'a new message to a session whose run waits for tool call approvals: answer them first (`approvals`)',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Request in progress',
    meaning: 'a request with this `Idempotency-Key` is still running',
  },
  oauth_reauthorization_required: {
    status: 409,
    title: 'OAuth reauthorization required',
    meaning: "the tenant's token expired or was revoked and cannot be refreshed",
  },
  eval_case_exists: {
    status: 409,
    title: 'Eval case exists',
    meaning: '`actorkit dev`, Save as eval case: `evals/<name>.yaml` exists; send `overwrite: true` to replace it',
  },
  oauth_not_connected: { status: 409, title: 'Not connected', meaning: 'the tenant has not connected this provider' },
  // 413, 415, 421
  payload_too_large: { status: 413, title: 'Payload too large', meaning: 'the body is over `BODY_LIMIT_BYTES`' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    meaning: 'the body is not `application/json`',
  },
  host_not_allowed: { status: 421, title: 'Host not allowed', meaning: 'a keyless actor does not answer this `Host`' },
  // 422
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    meaning: '`errors` names every bad field with a JSON pointer',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    meaning: 'the same `Idempotency-Key` with another body',
  },
  unknown_action: { status: 422, title: 'Unknown action', meaning: 'a panel action that panel does not have' },
  // 429, 499
  too_many_pending_oauth_flows: {
    status: 429,
    title: 'Too many pending OAuth flows',
    meaning: 'the pending-flow bound is reached; `Retry-After` says when one expires',
  },
  client_closed_request: {
    status: 499,
    title: 'The client closed the request',
    meaning: 'the client went away before the answer (logged, never seen by it)',
  },
  // 500
  internal_error: {
    status: 500,
    title: 'Internal server error',
    meaning: 'an unexpected failure; quote the `request_id`',
  },
  agent_misconfigured: {
    status: 500,
    title: 'The agent is misconfigured',
    meaning: "the agent's configuration cannot be read",
  },
  // 502
  model_error: { status: 502, title: 'The model failed', meaning: 'the model server failed' },
  oauth_provider_unavailable: {
    status: 502,
    title: 'OAuth provider unavailable',
    meaning: "the provider's metadata could not be loaded",
  },
  oauth_refresh_failed: { status: 502, title: 'OAuth token refresh failed', meaning: 'refreshing a token failed' },
  token_exchange_failed: {
    status: 502,
    title: 'Token exchange failed',
    meaning: 'exchanging the authorization code failed',
  },
  upstream_unavailable: {
    status: 502,
    title: 'Workflow tool unavailable',
    meaning: 'the workflow tool could not be reached',
  },
  peer_unavailable: { status: 502, title: 'Peer read failed', meaning: 'a sibling actor could not be reached' },
  peer_rejected: { status: 502, title: 'Peer read failed', meaning: 'a sibling actor refused the mesh key' },
  peer_error: { status: 502, title: 'Peer read failed', meaning: 'a sibling actor answered an error' },
  peer_invalid_response: {
    status: 502,
    title: 'Peer read failed',
    meaning: 'a sibling actor answered something that is not JSON',
  },
  replica_unavailable: {
    status: 502,
    title: 'Replica unavailable',
    meaning: 'the local platform: the replica the request went to closed the connection or could not be reached',
  },
  actor_connection_lost: {
    status: 502,
    title: 'Actor connection lost',
    meaning: '`actorkit dev`: the actor closed the connection while the request was sent',
  },
  // 503
  starting: { status: 503, title: 'The actor is starting', meaning: 'the actor is not serving yet; `Retry-After`' },
  draining: {
    status: 503,
    title: 'The actor is shutting down',
    meaning: 'send the request to another replica; `Retry-After`',
  },
  store_unavailable: {
    status: 503,
    title: 'The database is unavailable',
    meaning: 'the database is unreachable; nothing was changed',
  },
  oauth_provider_unconfigured: {
    status: 503,
    title: 'OAuth provider not configured',
    meaning: 'the provider has no client id or secret',
  },
  actor_starting: { status: 503, title: 'Actor is starting', meaning: '`actorkit dev` is (re)starting the actor' },
  actor_failed_to_start: {
    status: 503,
    title: 'Actor failed to start',
    meaning: '`actorkit dev`: the actor exited before it listened',
  },
  no_ready_replica: {
    status: 503,
    title: 'No ready replica',
    meaning: '`actorkit platform`: no replica of the actor passes its readiness probe; `Retry-After`',
  },
  // 504
  model_timeout: {
    status: 504,
    title: 'The model did not answer in time',
    meaning: 'the model server sent nothing within `LLM_TIMEOUT_MS`',
  },
  upstream_timeout: {
    status: 504,
    title: 'Workflow tool timed out',
    meaning: 'the workflow tool did not start its answer in time',
  },
  peer_timeout: { status: 504, title: 'Peer timed out', meaning: 'a sibling actor did not answer in time' },
} as const satisfies Record<string, ProblemCodeEntry>;

/** A problem code of the catalogue, e.g. `validation_failed`. */
export type ProblemCode = keyof typeof problemCatalogue;

/** Whether `code` is a code of the catalogue (an actor's own codes are not). */
export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(problemCatalogue, code);
}
