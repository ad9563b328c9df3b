import { createActorAgent, type ActorAgent } from '../agent/actor-agent.js';
import { agentSettingsProblems } from '../agent/agent-config.js';
import type { ActorContext } from '../context/actor-context.js';
import { ActorMetrics } from '../context/actor-metrics.js';
import { ActorSettings } from '../context/actor-settings.js';
import { DomainHealthMonitor } from '../context/domain-health-monitor.js';
import { ActorLifecycle } from '../core/actor-lifecycle.js';
import { readRuntimeConfig, type ActorEnvironment } from '../environment/runtime-config.js';
import { parseEnvironment } from '../environment/parse-environment.js';
import { createLogger } from '../log/logger.js';
import { DatabaseMonitor } from '../store/database-monitor.js';
import { parseDatabaseUrl } from '../store/database-url.js';
import { GroupCommit } from '../store/group-commit.js';
import { openStore } from '../store/open-store.js';
import { withStoreDeadline } from '../store/store-deadline.js';
import { ActorTracing } from '../telemetry/actor-tracing.js';
import { tracingConfigOf } from '../telemetry/tracing-config.js';
import type { CreateActorAppOptions } from './create-actor-app-options.js';
import { deferStore } from './deferred-store.js';
import { definitionOAuthFlow } from './definition-oauth-flow.js';
import type { OAuthFlow } from '../oauth/oauth-flow.js';
import { noOAuthTokens } from '../core/oauth-token-source.js';

const processEnv = (): ActorEnvironment => (globalThis as { process?: { env?: ActorEnvironment } }).process?.env ?? {};

/** The context every route shares, and the agent behind its chat handler when the actor brings none. */
export interface BuiltActorContext {
  readonly ctx: ActorContext;
  /** The default agent; undefined when the options bring their own chat handler. */
  readonly agent: ActorAgent | undefined;
  /** The database health the lifecycle reports a successful start to. */
  readonly database: DatabaseMonitor;
  /** The raw environment the context was built from (`options.env`, else the process's). */
  readonly env: ActorEnvironment;
  /** The OAuth flow: `options.oauth`, else one over the providers the definition declares, else none. */
  readonly oauth: OAuthFlow | undefined;
  /** The tracer, started and shut down with the actor. */
  readonly tracing: ActorTracing;
}

/**
 * Builds an actor's context from its options and the environment: logger, runtime
 * configuration, settings, store (opened lazily), database health, metrics, stats recorder,
 * the chat handler and the OAuth tokens its tools ask for. Configuration mistakes throw here, at setup.
 */
export function buildActorContext(options: CreateActorAppOptions): BuiltActorContext {
  const env = options.env ?? processEnv();
  const environment = parseEnvironment(env, { settingKeys: Object.keys(options.definition.settings.entries) });
  const logger =
    options.logger ??
    createLogger({ level: environment.LOG_LEVEL, fields: { actor: options.definition.metadata.slug } });
  const config = readRuntimeConfig(environment, logger.warn);
  const settings = new ActorSettings(
    options.definition,
    env,
    options.chatHandler ? {} : { check: (values) => agentSettingsProblems(environment, values) },
  );
  const {
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    DATABASE_POOL_SIZE: poolSize,
    DATABASE_STATEMENT_TIMEOUT_MS: statementTimeoutMs,
    DATABASE_TIMEOUT_MS: deadlineMs,
  } = environment;
  const storeKind = options.store?.kind ?? parseDatabaseUrl(url, dataDir).engine;
  const opened =
    options.store ??
    deferStore(
      () =>
        openStore({
          url,
          dataDir,
          poolSize,
          statementTimeoutMs,
          connectTimeoutMs: deadlineMs,
          queryTimeoutMs: deadlineMs,
          logger,
        }),
      storeKind,
    );
  // Every store call has a deadline; one that passes tells /health at once.
  const store = withStoreDeadline(opened, deadlineMs, (error) => database.noteFailure(error));
  const database = new DatabaseMonitor(store, { logger });
  const metrics = new ActorMetrics();
  const oauth = options.oauth ?? definitionOAuthFlow(options.definition, env);
  const { slug, version } = options.definition.metadata;
  const tracing = new ActorTracing(
    tracingConfigOf(environment, { slug, version, instanceId: config.instanceId }),
    logger,
  );
  const agent = options.chatHandler
    ? undefined
    : createActorAgent({
        env: environment,
        settings: () => settings.values,
        settingSource: (key) => settings.sourceOf(key),
        logger,
        metrics,
        tracer: tracing,
        clientInfo: { name: slug, version },
        ...(options.model ? { model: options.model } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.instructions ? { instructions: options.instructions } : {}),
      });
  // One group commit saves every turn and reads the stats with the turns it still holds.
  const turns = new GroupCommit(store, {
    logger,
    monitor: database,
    timeoutMs: deadlineMs,
    onSetAside: () => metrics.invocationRecordsSetAside.inc(),
  });
  const ctx: ActorContext = {
    definition: options.definition,
    environment,
    config,
    settings,
    lifecycle: new ActorLifecycle(),
    store,
    turns,
    stats: turns,
    database,
    domainHealth: new DomainHealthMonitor(options.healthChecks ?? {}, {
      timeoutMs: environment.HEALTH_CHECK_TIMEOUT_MS,
    }),
    metrics,
    logger,
    tracer: tracing,
    chatHandler: options.chatHandler ?? agent!.chatHandler,
    // A chat handler of the actor's own is given no history: the turn reads none for it.
    historyLimit: agent === undefined ? () => 0 : (values) => agent.historyLimit(values),
    readinessChecks: options.readinessChecks ?? (() => ({})),
    platformConfig: options.platformConfig,
    oauthTokens: oauth?.getAccessToken ? { getAccessToken: oauth.getAccessToken.bind(oauth) } : noOAuthTokens,
  };
  return { ctx, agent, database, env, oauth, tracing };
}
