import { createActorAgent, type ActorAgent } from '../agent/actor-agent.js';
import type { ActorContext } from '../context/actor-context.js';
import { ActorMetrics } from '../context/actor-metrics.js';
import { ActorSettings } from '../context/actor-settings.js';
import { ActorLifecycle } from '../core/actor-lifecycle.js';
import { parsePositiveInteger, readRuntimeConfig, type ActorEnvironment } from '../core/runtime-config.js';
import { createLogger, parseLogLevel } from '../log/logger.js';
import { DatabaseMonitor } from '../store/database-monitor.js';
import { parseDatabaseUrl } from '../store/database-url.js';
import { InvocationBuffer } from '../store/invocation-buffer.js';
import { DEFAULT_DATA_DIR, openStore } from '../store/open-store.js';
import type { CreateActorAppOptions } from './create-actor-app-options.js';
import { deferStore } from './deferred-store.js';

const processEnv = (): ActorEnvironment => (globalThis as { process?: { env?: ActorEnvironment } }).process?.env ?? {};

/** The context every route shares, and the agent behind its chat handler when the actor brings none. */
export interface BuiltActorContext {
  readonly ctx: ActorContext;
  /** The default agent; undefined when the options bring their own chat handler. */
  readonly agent: ActorAgent | undefined;
  /** The database health the lifecycle reports a successful start to. */
  readonly database: DatabaseMonitor;
}

/**
 * Builds an actor's context from its options and the environment: logger, runtime
 * configuration, settings, store (opened lazily), database health, metrics, stats recorder and
 * the chat handler. Configuration mistakes throw here, at setup.
 */
export function buildActorContext(options: CreateActorAppOptions): BuiltActorContext {
  const env = options.env ?? processEnv();
  const logger = options.logger ?? createLogger({ level: parseLogLevel(env.LOG_LEVEL), fields: { actor: options.definition.metadata.slug } });
  const config = readRuntimeConfig(env, logger.warn);
  const settings = new ActorSettings(options.definition, env);
  const dataDir = env.DATA_DIR ?? DEFAULT_DATA_DIR;
  const storeKind = options.store?.kind ?? parseDatabaseUrl(env.DATABASE_URL, dataDir).engine;
  const poolSize = parsePositiveInteger(env, 'DATABASE_POOL_SIZE', 10);
  const statementTimeoutMs = parsePositiveInteger(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000);
  const store =
    options.store ??
    deferStore(
      () => openStore({ url: env.DATABASE_URL, dataDir, poolSize, statementTimeoutMs, logger }),
      storeKind,
    );
  const database = new DatabaseMonitor(store, { logger });
  const metrics = new ActorMetrics();
  const agent = options.chatHandler
    ? undefined
    : createActorAgent({
        env,
        settings: () => settings.values,
        history: store,
        logger,
        metrics,
        clientInfo: { name: options.definition.metadata.slug, version: options.definition.metadata.version },
        ...(options.model ? { model: options.model } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.instructions ? { instructions: options.instructions } : {}),
      });
  const ctx: ActorContext = {
    definition: options.definition,
    config,
    settings,
    lifecycle: new ActorLifecycle(),
    store,
    stats: new InvocationBuffer(store, { logger, monitor: database }),
    database,
    metrics,
    logger,
    chatHandler: options.chatHandler ?? agent!.chatHandler,
    readinessChecks: options.readinessChecks ?? (() => ({})),
    platformConfig: options.platformConfig,
  };
  return { ctx, agent, database };
}
