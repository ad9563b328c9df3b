import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import { ENVIRONMENT_VARIABLES } from '../environment/environment-variables.js';
import { environmentOf } from '../environment/parse-environment.js';
import type { FieldProblem } from '../core/actor-error.js';
import { httpUrlProblem } from '../core/http-url.js';
import { jsonPointer } from '../core/json-pointer.js';
import { parseMcpServers } from './mcp-server-config.js';
import { parseModelHeaders, type ModelHeaders } from './model-headers.js';
import type { ModelProvider, ModelProviderNeed, ModelSettings } from './model-provider.js';
import { MODEL_PROVIDERS } from './model-providers.js';

/** The agent's knobs for one invoke. */
export interface AgentConfig extends ModelSettings {
  /**
   * `LLM_PROVIDER`: the name of one of the model providers; by default the first whose needs
   * are set (of the built-in ones, `openai-compatible` when `LLM_MODEL` is set, else `offline`).
   */
  readonly provider: string;
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
 * The provider `LLM_PROVIDER` names (the setting when it is not empty, else the environment), or,
 * when neither does, the first of `providers` whose needs are set; refuses an unknown name, listing
 * the known ones, and a provider that lacks a variable it needs.
 */
function chooseProvider(
  environment: EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
  providers: readonly ModelProvider[],
  values: Readonly<Record<ModelProviderNeed, string | undefined>>,
): ModelProvider {
  const setting = settingValue(settings, 'LLM_PROVIDER')?.trim() || undefined;
  const name = setting ?? environment.LLM_PROVIDER;
  const isSet = (need: ModelProviderNeed) => (values[need] ?? '') !== '';
  const names = providers.map((provider) => provider.name).join(', ');
  if (name === undefined) {
    const first = providers.find((provider) => provider.needs.every(isSet));
    return (
      first ?? refuse('LLM_PROVIDER', false, `is unset and none of the model providers has what it needs: ${names}`)
    );
  }
  const provider = providers.find((known) => known.name === name);
  if (provider === undefined)
    refuse('LLM_PROVIDER', setting !== undefined, `must be one of ${names}, got ${JSON.stringify(name)}`);
  const missing = provider.needs.find((need) => !isSet(need));
  if (missing !== undefined)
    refuse(
      missing,
      settingValue(settings, missing) !== undefined,
      `is empty but LLM_PROVIDER=${name} needs ${missing}`,
    );
  return provider;
}

/**
 * Reads the agent's configuration: each knob from the actor's setting when it declares one,
 * else from the typed environment. Mistakes throw `AgentConfigError`, naming the variable (and
 * the setting, when the value came from one).
 * @param env the typed environment, or a raw one
 * @param settings the actor's current settings
 * @param providers the model providers `LLM_PROVIDER` chooses from (`MODEL_PROVIDERS` by default)
 * @example
 * readAgentConfig(parseEnvironment({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.1' }), {});
 */
export function readAgentConfig(
  env: ActorEnvironment | EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
  providers: readonly ModelProvider[] = MODEL_PROVIDERS,
): AgentConfig {
  const environment = environmentOf(env);
  const model = (settingValue(settings, 'LLM_MODEL')?.trim() || undefined) ?? environment.LLM_MODEL ?? '';
  const baseUrlSetting = settingValue(settings, 'LLM_BASE_URL')?.trim() || undefined;
  const baseUrl = baseUrlSetting ?? environment.LLM_BASE_URL;
  const apiKey = (settingValue(settings, 'LLM_API_KEY')?.trim() || undefined) ?? environment.LLM_API_KEY;
  const provider = chooseProvider(environment, settings, providers, {
    LLM_MODEL: model,
    LLM_BASE_URL: baseUrl,
    LLM_API_KEY: apiKey,
  });
  const baseUrlProblem = baseUrlSetting === undefined ? undefined : httpUrlProblem(baseUrlSetting);
  if (baseUrlProblem !== undefined) refuse('LLM_BASE_URL', true, baseUrlProblem);
  return {
    provider: provider.name,
    baseUrl,
    apiKey,
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
 * @param providers the model providers `LLM_PROVIDER` chooses from
 */
export function agentSettingsProblems(
  env: EnvironmentConfig,
  settings: Readonly<Record<string, unknown>>,
  providers: readonly ModelProvider[] = MODEL_PROVIDERS,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  try {
    readAgentConfig(env, settings, providers);
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
