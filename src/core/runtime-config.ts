/** Environment variables, as the runtime reads them (`process.env` on Node and Bun, `Deno.env` on Deno). */
export type ActorEnvironment = Readonly<Record<string, string | undefined>>;

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
  /** Reported by `/health` and the metadata card when the definition gives none. */
  readonly instanceId: string;
}

const TRUE_VALUES = new Set(['1', 'true', 'yes', 'on']);
const FALSE_VALUES = new Set(['', '0', 'false', 'no', 'off']);

/** Reads `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off` (any case; empty is false), or undefined for anything else. */
export function parseOnOff(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase();
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  return undefined;
}

/** Parses an on/off environment variable; anything unrecognised is a setup error. */
function parseFlag(env: ActorEnvironment, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = parseOnOff(raw);
  if (value === undefined) throw new Error(`${name} must be true or false, got ${JSON.stringify(raw)}`);
  return value;
}

/** Parses a positive integer environment variable; anything else is a setup error. */
export function parsePositiveInteger(env: ActorEnvironment, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Reads the runtime configuration from the environment. Mistakes throw here, at setup:
 * `API_KEY_ENABLED=true` without a key refuses to start.
 */
export function readRuntimeConfig(env: ActorEnvironment, warn: (event: string, fields: Record<string, unknown>) => void): RuntimeConfig {
  const platformMode = parseFlag(env, 'ACTOR_PLATFORM', false);
  const apiKeyEnabled = parseFlag(env, 'API_KEY_ENABLED', false);
  const apiKeys = (env.API_KEY ?? '').split(',').map((key) => key.trim()).filter(Boolean);
  if (apiKeyEnabled && apiKeys.length === 0 && !platformMode) {
    throw new Error('API_KEY_ENABLED=true but API_KEY is empty: set API_KEY (comma-separated for rotation) or turn key authentication off');
  }
  if (apiKeyEnabled && platformMode) {
    warn('api_key_ignored_on_platform', { reason: 'ACTOR_PLATFORM=true: the platform is the authorization boundary' });
  }
  return {
    platformMode,
    apiKeys: apiKeyEnabled && !platformMode ? apiKeys : [],
    bodyLimitBytes: parsePositiveInteger(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    idempotencyTtlMs: parsePositiveInteger(env, 'IDEMPOTENCY_TTL_S', 24 * 60 * 60) * 1000,
    instanceId: env.INSTANCE_ID ?? env.HOSTNAME ?? crypto.randomUUID(),
  };
}
