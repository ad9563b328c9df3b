import { hostAllowList, type HostAllowList } from '../core/host-allow-list.js';
import type { LogEventAt } from '../log/log-events.js';
import type { EnvironmentConfig } from './environment-schema.js';
import type { ENVIRONMENT_VARIABLES } from './environment-variables.js';
import { StartupRefusal } from './startup-refusal.js';

export type { ActorEnvironment } from './environment-schema.js';

/** What a running idempotency claim holds beyond the invoke's model calls: history, tools, the store. */
const CLAIM_MARGIN_MS = 60_000;

/** Runtime knobs read from the environment once, at setup. */
export interface RuntimeConfig {
  /** `ACTOR_PLATFORM=true`: the platform is the authorization boundary; no auth layer, settings read-only. */
  readonly platformMode: boolean;
  /** `PLATFORM_SECRET` on the platform: every request must carry it in `X-Platform-Secret`; undefined off the platform or unset. */
  readonly platformSecret: string | undefined;
  /** Accepted API keys (`API_KEY`, comma-separated for rotation) when `API_KEY_ENABLED=true`, else empty. */
  readonly apiKeys: readonly string[];
  /**
   * The `Host` values the actor answers when it guards against DNS rebinding (no key, not on the
   * platform: see `guardsHostNames`): loopback names and `ALLOWED_HOSTS`; undefined when any `Host` is answered.
   */
  readonly allowedHosts: HostAllowList | undefined;
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
  /** Runs: what a dropped client does by default, how long finished runs are kept, the lease, retries. */
  readonly runs: {
    readonly onDisconnect: 'continue' | 'cancel';
    readonly retentionMs: number;
    readonly leaseMs: number;
    readonly retryReadOnly: boolean;
    /** `APPROVAL_TIMEOUT_S` in milliseconds: a tool call waits this long for a person's approval. */
    readonly approvalTimeoutMs: number;
  };
}

/** The variable listing the `Host` names a keyless actor answers besides loopback ones (see `guardsHostNames`). */
export const ALLOWED_HOSTS = 'ALLOWED_HOSTS' satisfies keyof typeof ENVIRONMENT_VARIABLES;

/**
 * Whether an actor answers only the `Host` names it knows (loopback ones and `ALLOWED_HOSTS`):
 * when it has no API key and is not on the platform. Without a key, a web page whose name a
 * DNS server re-points to the actor's address could otherwise call it from the user's browser;
 * with a key, the key is the boundary (the page cannot know it); on the platform, the platform
 * is, and it calls from its own network with any `Host`.
 * @param env the typed environment
 */
export function guardsHostNames(
  env: Pick<EnvironmentConfig, 'ACTOR_PLATFORM' | 'API_KEY_ENABLED' | 'API_KEY'>,
): boolean {
  return !env.ACTOR_PLATFORM && !(env.API_KEY_ENABLED && env.API_KEY.length > 0);
}

/**
 * Reads the runtime configuration from the typed environment. Mistakes throw here, at setup:
 * `API_KEY_ENABLED=true` without a key refuses to start; a key without `API_KEY_ENABLED=true`
 * starts open with the warning `api_key_not_enabled`.
 */
export function readRuntimeConfig(
  env: EnvironmentConfig,
  warn: (event: LogEventAt<'warn'>, fields: Record<string, unknown>) => void,
): RuntimeConfig {
  const platformMode = env.ACTOR_PLATFORM;
  const apiKeyEnabled = env.API_KEY_ENABLED;
  const apiKeys = env.API_KEY;
  if (apiKeyEnabled && apiKeys.length === 0 && !platformMode) {
    throw new StartupRefusal(
      'API_KEY',
      'API_KEY_ENABLED=true but API_KEY is empty: set API_KEY (comma-separated for rotation) or turn key authentication off',
    );
  }
  if (!apiKeyEnabled && apiKeys.length > 0 && !platformMode) {
    warn('api_key_not_enabled', {
      reason:
        'API_KEY is set but API_KEY_ENABLED is not true: every route is open; set API_KEY_ENABLED=true to require the key',
    });
  }
  if (apiKeyEnabled && platformMode) {
    warn('api_key_ignored_on_platform', { reason: 'ACTOR_PLATFORM=true: the platform is the authorization boundary' });
  }
  return {
    platformMode,
    platformSecret: platformMode ? env.PLATFORM_SECRET : undefined,
    apiKeys: apiKeyEnabled && !platformMode ? apiKeys : [],
    allowedHosts: guardsHostNames(env) ? hostAllowList(env.ALLOWED_HOSTS) : undefined,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    idempotencyTtlMs: env.IDEMPOTENCY_TTL_S * 1000,
    idempotencyClaimTtlMs: env.LLM_TIMEOUT_MS * (env.MAX_TOOL_STEPS + 1) + CLAIM_MARGIN_MS,
    instanceId: env.INSTANCE_ID ?? env.HOSTNAME ?? crypto.randomUUID(),
    runs: {
      onDisconnect: env.RUN_ON_DISCONNECT,
      retentionMs: env.RUN_RETENTION_S * 1000,
      leaseMs: env.RUN_LEASE_MS,
      retryReadOnly: env.RUN_RETRY_READ_ONLY,
      approvalTimeoutMs: env.APPROVAL_TIMEOUT_S * 1000,
    },
  };
}
