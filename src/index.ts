// The runtime: `createActorApp` and what an actor's code touches around it.

export { createActorApp, type ActorApp, type ActorRuntime, type CreateActorAppOptions } from './app/create-actor-app.js';
export {
  defaultActorFeatures,
  type ActorDefinition,
  type ActorFeatures,
  type ActorMetadata,
  type SettingsSchema,
  type SettingsSection,
} from './app/actor-definition.js';
export type { ActorContext, ActorEnv, DatabaseHealth, ReadinessChecks, StatsRecorder } from './app/actor-context.js';
export type { ActorRouter } from './app/actor-router.js';
export { ActorLifecycle, type ActorPhase } from './app/actor-lifecycle.js';
export { ActorError, type ActorErrorOptions, type FieldProblem } from './app/actor-error.js';
export { PROBLEM_CONTENT_TYPE, problemResponse, problemType, type ProblemDocument } from './app/problem-response.js';
export { SECRET_MASK, type SettingsUpdateResult } from './app/actor-settings.js';
export type { ActorEnvironment, RuntimeConfig } from './app/runtime-config.js';

// Chat
export { ChatRequest, SessionId, TenantId } from './agent/chat-request.js';
export { ChatReply, type FinishReason, type ToolCallRecord } from './agent/chat-reply.js';
export type { ChatHandler, ChatInput, ChatResult } from './agent/chat-handler.js';
export { offlineChatHandler, OFFLINE_MODEL } from './agent/offline-chat-handler.js';

// Routes that plug-ins extend
export type { OAuthFlow } from './routes/oauth.js';
export type { DocumentedOperation } from './routes/openapi-document.js';

// State
export type { IdempotencyRecord, InvocationRecord, StatsSnapshot, Store, StoredMessage, StoredOAuthToken } from './store/store.js';
export { MemoryStore } from './store/memory-store.js';

// Logging
export { createLogger, jsonLinesSink, silentLogger, createMemorySink, type Logger, type LogLevel, type LogRecord, type LogSink } from './log/logger.js';
