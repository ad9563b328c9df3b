import type { ActorEnvironment } from '../core/runtime-config.js';
import { DEFAULT_MODEL_TIMEOUT_MS } from './openai-compatible-model.js';

/** Which built-in model answers. */
export type ModelProvider = 'openai-compatible' | 'offline';

/** The agent's knobs for one invoke. */
export interface AgentConfig {
  /** `LLM_PROVIDER`; by default `openai-compatible` when `LLM_MODEL` is set, else `offline`. */
  readonly provider: ModelProvider;
  /** `LLM_BASE_URL`: the server's `/v1` URL; unset means the OpenAI API. */
  readonly baseUrl: string | undefined;
  /** `LLM_API_KEY` (a secret: never logged). */
  readonly apiKey: string | undefined;
  /** `LLM_MODEL`. */
  readonly model: string;
  /** `LLM_TIMEOUT_MS` (default 60,000). */
  readonly timeoutMs: number;
  /** `LLM_MAX_RETRIES` (default 2). */
  readonly maxRetries: number;
  /** `HISTORY_LIMIT`: earlier messages of the session sent to the model (default 20; 0 sends none). */
  readonly historyLimit: number;
  /** `MAX_TOOL_STEPS`: model calls whose tool calls are run in one turn (default 5; 0 turns tools off). */
  readonly maxToolSteps: number;
}

/** Defaults of the agent's knobs. */
export const AGENT_DEFAULTS = { timeoutMs: DEFAULT_MODEL_TIMEOUT_MS, maxRetries: 2, historyLimit: 20, maxToolSteps: 5 } as const;

/**
 * Looks a knob up: the actor's setting of the lower-cased name when it declares one and it is
 * not empty (settings already take the upper-cased environment variable, then `PUT /settings`),
 * else the environment variable.
 */
export function agentValue(env: ActorEnvironment, settings: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const setting = settings[name.toLowerCase()];
  if (setting !== undefined && setting !== null && setting !== '') return typeof setting === 'string' ? setting : JSON.stringify(setting);
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function integer(env: ActorEnvironment, settings: Readonly<Record<string, unknown>>, name: string, fallback: number, min: number): number {
  const raw = agentValue(env, settings, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Reads the agent's configuration from the actor's settings and environment. Mistakes throw,
 * naming the variable.
 * @example
 * readAgentConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.1' }, {});
 */
export function readAgentConfig(env: ActorEnvironment, settings: Readonly<Record<string, unknown>>): AgentConfig {
  const model = agentValue(env, settings, 'LLM_MODEL') ?? '';
  const provider = agentValue(env, settings, 'LLM_PROVIDER') ?? (model === '' ? 'offline' : 'openai-compatible');
  if (provider !== 'openai-compatible' && provider !== 'offline') throw new Error(`LLM_PROVIDER must be openai-compatible or offline, got ${JSON.stringify(provider)}`);
  if (provider === 'openai-compatible' && model === '') throw new Error('LLM_PROVIDER=openai-compatible needs LLM_MODEL');
  const baseUrl = agentValue(env, settings, 'LLM_BASE_URL');
  if (baseUrl !== undefined && !(/^https?:\/\//i.test(baseUrl) && URL.canParse(baseUrl))) throw new Error(`LLM_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  return {
    provider,
    baseUrl,
    apiKey: agentValue(env, settings, 'LLM_API_KEY'),
    model,
    timeoutMs: integer(env, settings, 'LLM_TIMEOUT_MS', AGENT_DEFAULTS.timeoutMs, 1),
    maxRetries: integer(env, settings, 'LLM_MAX_RETRIES', AGENT_DEFAULTS.maxRetries, 0),
    historyLimit: integer(env, settings, 'HISTORY_LIMIT', AGENT_DEFAULTS.historyLimit, 0),
    maxToolSteps: integer(env, settings, 'MAX_TOOL_STEPS', AGENT_DEFAULTS.maxToolSteps, 0),
  };
}
