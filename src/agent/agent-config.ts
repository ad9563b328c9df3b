import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import { ENVIRONMENT_VARIABLES } from '../environment/environment-variables.js';
import { environmentOf } from '../environment/parse-environment.js';
import type { FieldProblem } from '../core/actor-error.js';
import { httpUrlProblem } from '../core/http-url.js';
import { jsonPointer } from '../core/json-pointer.js';
import { parseMcpServers } from './mcp-server-config.js';
import { parseModelHeaders, type ModelHeaders } from './model-headers.js';

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
  /** `LLM_HEADERS`: extra headers sent on every model call (their values are secrets). */
  readonly headers: ModelHeaders;
  /** `LLM_TIMEOUT_MS` (default 60,000). */
  readonly timeoutMs: number;
  /** `LLM_MAX_RETRIES` (default 2). */
  readonly maxRetries: number;
  /** `HISTORY_LIMIT`: earlier messages of the session sent to the model (default 20; 0 sends none). */
  readonly historyLimit: number;
  /** `MAX_TOOL_STEPS`: model calls whose tool calls are run in one turn (default 5; 0 turns tools off). */
  readonly maxToolSteps: number;
}

/** Defaults of the agent's knobs (from the environment table). */
export const AGENT_DEFAULTS = {
  timeoutMs: ENVIRONMENT_VARIABLES.LLM_TIMEOUT_MS.default,
  maxRetries: ENVIRONMENT_VARIABLES.LLM_MAX_RETRIES.default,
  historyLimit: ENVIRONMENT_VARIABLES.HISTORY_LIMIT.default,
  maxToolSteps: ENVIRONMENT_VARIABLES.MAX_TOOL_STEPS.default,
} as const;

/** The agent's knobs by variable name; each may also be a setting of the lower-cased name. */
type AgentVariable =
  | 'LLM_PROVIDER'
  | 'LLM_BASE_URL'
  | 'LLM_API_KEY'
  | 'LLM_MODEL'
  | 'LLM_HEADERS'
  | 'LLM_TIMEOUT_MS'
  | 'LLM_MAX_RETRIES'
  | 'HISTORY_LIMIT'
  | 'MAX_TOOL_STEPS'
  | 'MCP_SERVERS';

/** A bad value of one of the agent's knobs; `setting` is set when the value came from the actor's settings. */
export class AgentConfigError extends Error {
  constructor(
    readonly variable: AgentVariable,
    readonly setting: string | undefined,
    /** What is wrong, without the name: `must be an http(s) URL, got "…"`. */
    readonly problem: string,
  ) {
    super(`${setting === undefined ? variable : `setting ${setting} (${variable})`} ${problem}`);
    this.name = 'AgentConfigError';
  }
}

/** The non-empty setting of the lower-cased `name`, as text; undefined when the actor declares none or it is empty. */
function settingValue(settings: Readonly<Record<string, unknown>>, name: AgentVariable): string | undefined {
  const setting = settings[name.toLowerCase()];
  if (setting === undefined || setting === null || setting === '') return undefined;
  return typeof setting === 'string' ? setting : JSON.stringify(setting);
}

/**
 * Looks a knob up: the actor's setting of the lower-cased name when it declares one and it is
 * not empty (settings already take the upper-cased environment variable, then `PUT /settings`),
 * else the typed environment.
 */
export function agentValue(
  env: ActorEnvironment | EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
  name: AgentVariable,
): string | undefined {
  const fromEnvironment = environmentOf(env)[name];
  return settingValue(settings, name) ?? (fromEnvironment === undefined ? undefined : String(fromEnvironment));
}

function refuse(name: AgentVariable, fromSetting: boolean, problem: string): never {
  throw new AgentConfigError(name, fromSetting ? name.toLowerCase() : undefined, problem);
}

function integer(
  environment: EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
  name: 'LLM_TIMEOUT_MS' | 'LLM_MAX_RETRIES' | 'HISTORY_LIMIT' | 'MAX_TOOL_STEPS',
  min: number,
): number {
  const raw = settingValue(settings, name)?.trim();
  if (raw === undefined || raw === '') return environment[name];
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    refuse(name, true, `must be an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * `HISTORY_LIMIT` alone (the setting when it is not empty, else the environment): how many of
 * the session's last messages the turn reads for the agent. Throws `AgentConfigError` for a
 * bad value, as `readAgentConfig` does.
 */
export function readHistoryLimit(
  env: ActorEnvironment | EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
): number {
  return integer(environmentOf(env), settings, 'HISTORY_LIMIT', 0);
}

/** `LLM_HEADERS`, from the setting when it is not empty, else from the environment. */
function modelHeaders(environment: EnvironmentConfig, settings: Readonly<Record<string, unknown>>): ModelHeaders {
  const fromSetting = settingValue(settings, 'LLM_HEADERS');
  try {
    return parseModelHeaders(fromSetting ?? environment.LLM_HEADERS);
  } catch (error) {
    return refuse('LLM_HEADERS', fromSetting !== undefined, (error as Error).message);
  }
}

/**
 * Reads the agent's configuration: each knob from the actor's setting when it declares one,
 * else from the typed environment. Mistakes throw `AgentConfigError`, naming the variable (and
 * the setting, when the value came from one).
 * @example
 * readAgentConfig(parseEnvironment({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.1' }), {});
 */
export function readAgentConfig(
  env: ActorEnvironment | EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
): AgentConfig {
  const environment = environmentOf(env);
  const model = (settingValue(settings, 'LLM_MODEL')?.trim() || undefined) ?? environment.LLM_MODEL ?? '';
  const providerSetting = settingValue(settings, 'LLM_PROVIDER')?.trim() || undefined;
  const provider = providerSetting ?? environment.LLM_PROVIDER ?? (model === '' ? 'offline' : 'openai-compatible');
  if (provider !== 'openai-compatible' && provider !== 'offline')
    refuse('LLM_PROVIDER', true, `must be openai-compatible or offline, got ${JSON.stringify(provider)}`);
  if (provider === 'openai-compatible' && model === '')
    refuse(
      'LLM_MODEL',
      settingValue(settings, 'LLM_MODEL') !== undefined,
      'is empty but LLM_PROVIDER=openai-compatible needs LLM_MODEL',
    );
  const baseUrlSetting = settingValue(settings, 'LLM_BASE_URL')?.trim() || undefined;
  const baseUrlProblem = baseUrlSetting === undefined ? undefined : httpUrlProblem(baseUrlSetting);
  if (baseUrlProblem !== undefined) refuse('LLM_BASE_URL', true, baseUrlProblem);
  return {
    provider,
    baseUrl: baseUrlSetting ?? environment.LLM_BASE_URL,
    apiKey: (settingValue(settings, 'LLM_API_KEY')?.trim() || undefined) ?? environment.LLM_API_KEY,
    model,
    headers: modelHeaders(environment, settings),
    timeoutMs: integer(environment, settings, 'LLM_TIMEOUT_MS', 1),
    maxRetries: integer(environment, settings, 'LLM_MAX_RETRIES', 0),
    historyLimit: readHistoryLimit(environment, settings),
    maxToolSteps: integer(environment, settings, 'MAX_TOOL_STEPS', 0),
  };
}

/**
 * The field problems the agent would find in a configuration of settings (`PUT /settings`
 * checks them before saving, so a saved value never makes every invoke fail, nor the next
 * start refuse): its knobs as `readAgentConfig` reads them, and `MCP_SERVERS`. A problem with
 * a value from the environment, which the body cannot change, is not reported here.
 * @param env the typed environment
 * @param settings the whole configuration that would be saved
 */
export function agentSettingsProblems(
  env: EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  try {
    readAgentConfig(env, settings);
  } catch (error) {
    if (!(error instanceof AgentConfigError)) throw error;
    if (error.setting !== undefined) problems.push({ pointer: jsonPointer(error.setting), detail: error.problem });
  }
  const servers: AgentVariable = 'MCP_SERVERS';
  const serversSetting = settingValue(settings, servers);
  if (serversSetting !== undefined) {
    try {
      parseMcpServers(serversSetting);
    } catch (error) {
      problems.push({ pointer: jsonPointer(servers.toLowerCase()), detail: (error as Error).message });
    }
  }
  return problems;
}
