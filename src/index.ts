/**
 * `actorkit`: the runtime — `createActorApp` and what an actor's code touches around it.
 * @module actorkit
 */
export { createActorApp, type ActorApp } from './app/create-actor-app.js';
export type { CreateActorAppOptions } from './app/create-actor-app-options.js';
export type { ActorRuntime } from './app/run-actor-lifecycle.js';
export {
  defaultActorFeatures,
  type ActorDefinition,
  type ActorFeatures,
  type ActorMetadata,
  type PeerReadDeclaration,
  type SettingsSchema,
  type SettingsSection,
} from './core/actor-definition.js';
export type { PeerReadHandlers } from './app/definition-routers.js';
export type { ActorContext, ActorEnv, DatabaseHealth, ReadinessChecks } from './context/actor-context.js';
export type { StatsRecorder, TurnWriter } from './invoke/turn-services.js';
export type { ActorRouter } from './context/actor-router.js';
export { ActorLifecycle, type ActorPhase } from './core/actor-lifecycle.js';
export { ActorError, clientClosedError, type ActorErrorOptions, type FieldProblem } from './core/actor-error.js';
export {
  PROBLEM_CONTENT_TYPE,
  problemDocument,
  problemResponse,
  problemType,
  type ProblemDocument,
} from './core/problem-response.js';
export type { ProblemCode } from './core/problem-codes.js';
export type { Problem } from './core/problem.js';
export { SECRET_MASK, type SettingsUpdateResult } from './context/actor-settings.js';

// The environment an actor reads
export { readRuntimeConfig, type ActorEnvironment, type RuntimeConfig } from './environment/runtime-config.js';
export { parseEnvironment } from './environment/parse-environment.js';
export {
  ENVIRONMENT_VARIABLES,
  SECRET_ENVIRONMENT_VARIABLES,
  type EnvironmentVariable,
} from './environment/environment-variables.js';
export {
  fillEnvironmentPlaceholders,
  parseEnvironmentPlaceholder,
  type EnvironmentPlaceholder,
} from './environment/environment-placeholder.js';

// Chat
export { ChatRequest, SessionId } from './invoke/chat-request.js';
export { TenantId } from './core/tenant-id.js';
export { ChatReply, type FinishReason, type ToolCallRecord } from './invoke/chat-reply.js';
export type { ChatEvent, ChatHandler, ChatInput, ChatResult } from './invoke/chat-handler.js';
export { offlineChatHandler } from './agent/agent-chat-handler.js';

// Agent: models, the chat loop, tools and MCP
export type {
  ChatMessage,
  ChatModel,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ModelToolCall,
  TokenUsage,
  ToolDefinition,
} from './agent/chat-model.js';
export { createOfflineModel, OFFLINE_MODEL, OFFLINE_TOOL_SYNTAX } from './agent/providers/offline.js';
export {
  createOpenAICompatibleModel,
  DEFAULT_MODEL_TIMEOUT_MS,
  type OpenAICompatibleModelOptions,
} from './agent/providers/openai-compatible.js';
export { modelTimeoutError, modelUpstreamError } from './agent/model-errors.js';
export { AGENT_DEFAULTS, readAgentConfig, type AgentConfig } from './agent/agent-config.js';
export {
  defineModelProvider,
  type ModelProvider,
  type ModelProviderNeed,
  type ModelSettings,
} from './agent/model-provider.js';
export { MODEL_PROVIDERS, type ModelProviderName } from './agent/model-providers.js';
export {
  runChatLoop,
  MAX_TOOL_OUTPUT_CHARS,
  type ChatLoopMetrics,
  type ChatLoopOptions,
  type ChatLoopResult,
} from './agent/chat-loop.js';
export {
  createAgentChatHandler,
  type AgentChatHandlerOptions,
  type AgentTurnConfig,
} from './agent/agent-chat-handler.js';
export { createActorAgent, type ActorAgent, type ActorAgentOptions } from './agent/actor-agent.js';
export {
  ActorTool,
  SyncRunUnsupportedError,
  TOOL_NAME_PATTERN,
  type ActorToolOptions,
  type ToolArgsResult,
  type ToolRunContext,
} from './agent/actor-tool.js';
export {
  buildDefaultRegistry,
  ToolRegistry,
  type ToolRegistryOptions,
  type ToolSourceInput,
} from './agent/tool-registry.js';
export { McpToolSource, type McpToolSourceOptions } from './agent/mcp-tool-source.js';
export { McpServerConfig, McpServers, parseMcpServers } from './agent/mcp-server-config.js';

// The routes every actor serves: read a path from its route, never write it out again
export { CORE_ROUTES } from './routes/core-routes.js';
export type { ActorRoute } from './route-kit/actor-route.js';
export { healthRoute } from './routes/health.js';
export { invokeRoute } from './features/invoke/invoke-route.js';
export { A2A_CARD_PATH, A2A_JSON_RPC_PATH } from './features/a2a/a2a-agent-card.js';
export { oauthAuthorizeRoute } from './routes/oauth.js';
export { updateSettingsRoute } from './routes/settings.js';
export { instanceStatsRoute, tenantStatsRoute } from './routes/stats.js';
export { docsRoute, openApiRoute } from './routes/openapi.js';
export { readyRoute } from './routes/ready.js';

// Routes that plug-ins extend
export type { OAuthFlow } from './oauth/oauth-flow.js';
export type { DocumentedOperation } from './context/documented-operation.js';

// Conditional surfaces: owner panels, fleet-mesh peer reads, the workflow proxy
export {
  approvalsPanel,
  panelAction,
  panelRouter,
  statsPanel,
  type Panel,
  type PanelAction,
  type PanelActionView,
  type PanelPageView,
  type PanelRouterOptions,
} from './surfaces/panel/index.js';
export {
  createPeerClient,
  MESH_KEY_HEADER,
  meshRouter,
  PeerRequestError,
  type MeshRouterOptions,
  type PeerCheck,
  type PeerClient,
  type PeerClientOptions,
  type PeerFailure,
  type PeerRead,
  type PeerReadOptions,
  type PeerRoute,
} from './surfaces/mesh/index.js';
export { WORKFLOW_PREFIX, workflowProxyRouter, type WorkflowProxyOptions } from './surfaces/workflow/index.js';

// OAuth
export {
  createOAuthFlow,
  MemoryOAuthStateStore,
  StoreOAuthStateStore,
  oauthProvidersFromEnv,
  type ActorOAuthFlow,
  type CreateOAuthFlowOptions,
  type OAuthFlowContext,
  type OAuthProviderConfig,
  type OAuthStateRecord,
  type OAuthStateStore,
} from './oauth/index.js';

// State
export type {
  IdempotencyRecord,
  IdempotencyStore,
  OAuthStore,
  SessionStore,
  SettingsStore,
  StatsSnapshot,
  Store,
  StoredMessage,
  StoredOAuthState,
  StoredOAuthToken,
  TurnToSave,
} from './store/store.js';
export { MemoryStore } from './store/memory-store.js';
export { parseDatabaseUrl, redactDatabaseUrl, type DatabaseTarget } from './store/database-url.js';

// Logging
export { jsonLinesSink } from './log/json-lines-sink.js';
export {
  createLogger,
  parseLogLevel,
  silentLogger,
  createMemorySink,
  type Logger,
  type LogEvent,
  type LogLevel,
  type LogRecord,
  type LogSink,
} from './log/logger.js';
