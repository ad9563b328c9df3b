import type { EnvironmentConfig } from './environment-schema.js';
import { StartupRefusal } from './startup-refusal.js';

export type { ActorEnvironment } from './environment-schema.js';

/** What a running idempotency claim holds beyond the invoke's model calls: history, tools, the store. */
const CLAIM_MARGIN_MS = 60_000;

/** Runtime knobs read from the environment once, at setup. */
export interface RuntimeConfig {
  /** `ACTOR_PLATFORM=true`: the platform is the authorization boundary; no auth layer, settings read-only. */
  readonly platformMode: boolean;
  /** Accepted API keys (`API_KEY`, comma-separated for rotation) when `API_KEY_ENABLED=true`, else empty. */
  readonly apiKeys: readonly string[];
  /** Largest accepted request body in bytes (`BODY_LIMIT_BYTES`, default 1 MiB). */
  readonly bodyLimitBytes: number;
  /** How long a completed `Idempotency-Key` is remembered (`IDEMPOTENCY_TTL_S`, default 24 h). */
  readonly idempotencyTtlMs: number;
  /**
   * How long a running `Idempotency-Key` holds when its invoke never finishes (the instance
   * died mid-invoke): the invoke deadline, `LLM_TIMEOUT_MS` × (`MAX_TOOL_STEPS` + 1) plus a minute.
   */
  readonly idempotencyClaimTtlMs: number;
  /** Reported by `/health` and the metadata card when the definition gives none. */
  readonly instanceId: string;
}

/**
 * Reads the runtime configuration from the typed environment. Mistakes throw here, at setup:
 * `API_KEY_ENABLED=true` without a key refuses to start; a key without `API_KEY_ENABLED=true`
 * starts open with the warning `api_key_not_enabled`.
 */
export function readRuntimeConfig(env: EnvironmentConfig, warn: (event: string, fields: Record<string, unknown>) => void): RuntimeConfig {
  const platformMode = env.ACTOR_PLATFORM;
  const apiKeyEnabled = env.API_KEY_ENABLED;
  const apiKeys = env.API_KEY;
  if (apiKeyEnabled && apiKeys.length === 0 && !platformMode) {
    throw new StartupRefusal('API_KEY', 'API_KEY_ENABLED=true but API_KEY is empty: set API_KEY (comma-separated for rotation) or turn key authentication off');
  }
  if (!apiKeyEnabled && apiKeys.length > 0 && !platformMode) {
    warn('api_key_not_enabled', { reason: 'API_KEY is set but API_KEY_ENABLED is not true: every route is open; set API_KEY_ENABLED=true to require the key' });
  }
  if (apiKeyEnabled && platformMode) {
    warn('api_key_ignored_on_platform', { reason: 'ACTOR_PLATFORM=true: the platform is the authorization boundary' });
  }
  return {
    platformMode,
    apiKeys: apiKeyEnabled && !platformMode ? apiKeys : [],
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    idempotencyTtlMs: env.IDEMPOTENCY_TTL_S * 1000,
    idempotencyClaimTtlMs: env.LLM_TIMEOUT_MS * (env.MAX_TOOL_STEPS + 1) + CLAIM_MARGIN_MS,
    instanceId: env.INSTANCE_ID ?? env.HOSTNAME ?? crypto.randomUUID(),
  };
}
