import { ActorError } from '../core/actor-error.js';
import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import { environmentOf } from '../environment/parse-environment.js';
import { StartupRefusal } from '../environment/startup-refusal.js';
import type { Logger } from '../log/logger.js';
import type { ActorTool } from './actor-tool.js';
import { AgentConfigError, agentValue, readAgentConfig, readHistoryLimit, type AgentConfig } from './agent-config.js';
import { createAgentChatHandler, type AgentTurnConfig } from './agent-chat-handler.js';
import type { ChatHandler } from '../invoke/chat-handler.js';
import type { ChatLoopMetrics } from './chat-loop.js';
import type { ChatModel } from './chat-model.js';
import { parseMcpServers } from './mcp-server-config.js';
import { McpToolSource, toolApprovalOf } from './mcp-tool-source.js';
import type { ModelProvider } from './model-provider.js';
import { MODEL_PROVIDERS } from './model-providers.js';
import { buildDefaultRegistry, ToolRegistry } from './tool-registry.js';
import { withoutCredentials } from '../core/without-credentials.js';
import type { ActorTracer } from '../telemetry/actor-tracer.js';

/** Options of `createActorAgent`. */
export interface ActorAgentOptions {
  /** The typed environment (`parseEnvironment`), or a raw one. */
  readonly env: ActorEnvironment | EnvironmentConfig;
  /** The actor's current settings. */
  readonly settings: () => Readonly<Record<string, unknown>>;
  /** Where a setting's value came from, for start-up refusals (see `ActorSettings.sourceOf`). */
  readonly settingSource?: (key: string) => string;
  readonly logger: Logger;
  readonly metrics?: ChatLoopMetrics;
  /** A model of the actor's own; by default the one `LLM_*` names, else the offline model. */
  readonly model?: ChatModel;
  /** The model providers `LLM_PROVIDER` chooses from: `MODEL_PROVIDERS` by default, or a list that adds the actor's own. */
  readonly modelProviders?: readonly ModelProvider[];
  /** Domain tools (the MCP servers of `MCP_SERVERS` are added after them), or a registry of the actor's own. */
  readonly tools?: readonly ActorTool[] | ToolRegistry;
  /** System instructions sent first on every turn. */
  readonly instructions?: string;
  /** How the actor introduces itself to MCP servers; its `name` is also the `gen_ai.agent.name` of the turn's span. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Traces turns, model calls and tool calls, and sends `traceparent` to the model server and the MCP servers. */
  readonly tracer?: ActorTracer;
}

/** The agent of an actor: its chat handler, plus start (build the tools) and close (stop MCP servers). */
export interface ActorAgent {
  readonly chatHandler: ChatHandler;
  /** The tools the last `start()` built. */
  readonly tools: readonly ActorTool[];
  /**
   * `HISTORY_LIMIT` under these settings: how many of the session's last messages the turn
   * reads for the agent (0 when the value is not valid: the turn then fails with
   * `agent_misconfigured` without reading).
   */
  historyLimit(settings: Readonly<Record<string, unknown>>): number;
  /** Builds the tool registry: domain tools, then the tools of the MCP servers. Never rejects. */
  start(): Promise<void>;
  /** Closes the MCP connections. */
  close(): Promise<void>;
}

/** The agent's knobs read from one settings object: the turn's configuration, or the problem that refuses every turn. */
interface TurnConfigOf {
  readonly settings: Readonly<Record<string, unknown>>;
  /** `HISTORY_LIMIT`, or 0 when it is not valid. */
  readonly historyLimit: number;
  readonly turn?: AgentTurnConfig;
  readonly problem?: Error;
}

function modelKey(config: AgentConfig): string {
  return JSON.stringify([
    config.provider,
    config.baseUrl,
    config.apiKey,
    config.model,
    config.headers,
    config.timeoutMs,
    config.maxRetries,
  ]);
}

/**
 * Checks the agent's knobs and `MCP_SERVERS` once, at setup: a mistake is a `StartupRefusal`
 * naming the setting and where its value came from (environment variable or settings default).
 */
function checkAtSetup(env: EnvironmentConfig, options: ActorAgentOptions, providers: readonly ModelProvider[]): void {
  const settings = options.settings();
  try {
    readAgentConfig(env, settings, providers);
  } catch (error) {
    if (!(error instanceof AgentConfigError)) throw error;
    const source = error.setting === undefined ? undefined : options.settingSource?.(error.setting);
    throw new StartupRefusal(
      error.setting ?? error.variable,
      source === undefined ? error.message : `${error.message} (from ${source})`,
      { cause: error },
    );
  }
  try {
    parseMcpServers(agentValue(env, settings, 'MCP_SERVERS'));
  } catch (error) {
    throw new StartupRefusal('MCP_SERVERS', (error as Error).message, { cause: error });
  }
}

/**
 * The model of a configuration, made by the provider it names and kept until a knob of the
 * model changes; `chat_model_selected` says which one answers from then on.
 */
function modelSelector(providers: readonly ModelProvider[], logger: Logger): (config: AgentConfig) => ChatModel {
  let cached: { key: string; model: ChatModel } | undefined;
  return (config) => {
    const key = modelKey(config);
    if (cached?.key === key) return cached.model;
    const provider = providers.find((known) => known.name === config.provider);
    // readAgentConfig chose the name from this list.
    if (provider === undefined) throw new Error(`No model provider is named ${config.provider}`);
    const model = provider.createModel(config, { logger });
    cached = { key, model };
    logger.info('chat_model_selected', {
      provider: config.provider,
      model: model.name,
      base_url: config.baseUrl === undefined ? undefined : withoutCredentials(config.baseUrl),
      ...(model.transport === undefined ? {} : { headers: Object.keys(config.headers), transport: model.transport }),
    });
    return model;
  };
}

/**
 * Reads the turn's configuration from a settings object: the model (`modelFor`), the history and
 * tool-step limits, or the problem that refuses every turn. A frozen settings object cannot
 * change (ActorSettings freezes each one and replaces it when a setting changes), so its knobs
 * are read once, not on every invoke; any other is read anew.
 */
function turnConfigReader(
  env: EnvironmentConfig,
  providers: readonly ModelProvider[],
  modelFor: (config: AgentConfig) => ChatModel,
): (settings: Readonly<Record<string, unknown>>) => TurnConfigOf {
  const historyLimitOrNone = (settings: Readonly<Record<string, unknown>>): number => {
    try {
      return readHistoryLimit(env, settings);
    } catch {
      return 0;
    }
  };
  const read = (settings: Readonly<Record<string, unknown>>): TurnConfigOf => {
    let config: AgentConfig;
    try {
      config = readAgentConfig(env, settings, providers);
    } catch (error) {
      return { settings, historyLimit: historyLimitOrNone(settings), problem: error as Error };
    }
    const { historyLimit, maxToolSteps } = config;
    return { settings, historyLimit, turn: { model: modelFor(config), historyLimit, maxToolSteps } };
  };
  let last: TurnConfigOf | undefined;
  return (settings) => {
    if (last?.settings === settings) return last;
    const config = read(settings);
    if (Object.isFrozen(settings)) last = config;
    return config;
  };
}

/** The MCP servers `MCP_SERVERS` names, as one tool source; undefined when it names none (or cannot be read: logged). */
function mcpSourceOf(env: EnvironmentConfig, options: ActorAgentOptions): McpToolSource | undefined {
  let servers = {};
  try {
    servers = parseMcpServers(agentValue(env, options.settings(), 'MCP_SERVERS'));
  } catch (error) {
    options.logger.warn('tool_source_failed', { source: 'mcp', error });
  }
  if (Object.keys(servers).length === 0) return undefined;
  return new McpToolSource(servers, {
    logger: options.logger,
    needsApproval: toolApprovalOf(env.TOOL_APPROVAL),
    ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
}

/**
 * Builds the default agent of `createActorApp`: model from `LLM_*` (settings first, then the
 * environment; re-read on every invoke, so `PUT /settings` takes effect) made by the provider
 * `LLM_PROVIDER` names, tools from the domain and `MCP_SERVERS`; the turn hands it the session's
 * history. A configuration mistake in the environment throws here, at setup.
 */
export function createActorAgent(options: ActorAgentOptions): ActorAgent {
  const { logger } = options;
  const env = environmentOf(options.env);
  const providers = options.modelProviders ?? MODEL_PROVIDERS;
  checkAtSetup(env, options, providers);
  const selectModel = modelSelector(providers, logger);
  const turnConfigOf = turnConfigReader(env, providers, (config) => options.model ?? selectModel(config));
  let tools: readonly ActorTool[] = [];
  let mcp: McpToolSource | undefined;

  return {
    chatHandler: createAgentChatHandler({
      configure(settings) {
        const { turn, problem } = turnConfigOf(settings);
        if (turn !== undefined) return turn;
        throw new ActorError('agent_misconfigured', { detail: problem?.message, cause: problem });
      },
      tools: () => tools,
      logger,
      ...(options.instructions ? { instructions: options.instructions } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.tracer ? { tracer: options.tracer } : {}),
      ...(options.clientInfo ? { agentName: options.clientInfo.name } : {}),
    }),
    get tools() {
      return tools;
    },
    historyLimit(settings) {
      return turnConfigOf(settings).historyLimit;
    },
    async start() {
      await mcp?.close();
      mcp = undefined;
      let registry: ToolRegistry;
      if (options.tools instanceof ToolRegistry) {
        registry = options.tools;
      } else {
        const source = mcpSourceOf(env, options);
        mcp = source;
        registry = buildDefaultRegistry(options.tools ?? [], source ? () => source.tools() : [], { logger });
      }
      tools = await registry.build();
    },
    async close() {
      await mcp?.close();
      mcp = undefined;
    },
  };
}
