import { createActorAgent, type ActorAgent } from '../agent/actor-agent.js';
import { agentSettingsProblems } from '../agent/agent-config.js';
import type { ActorContext } from '../context/actor-context.js';
import { ActorMetrics } from '../context/actor-metrics.js';
import { ActorSettings } from '../context/actor-settings.js';
import { DomainHealthMonitor } from '../context/domain-health-monitor.js';
import { ActorLifecycle } from '../core/actor-lifecycle.js';
import { ActorRuns } from '../features/runs/actor-runs.js';
import { continueRun, rerunInvoke } from '../invoke/answer-invoke.js';
import { readRuntimeConfig, type ActorEnvironment } from '../environment/runtime-config.js';
import { parseEnvironment } from '../environment/parse-environment.js';
import { createLogger } from '../log/logger.js';
import { DatabaseMonitor } from '../store/database-monitor.js';
import { databaseIdentity, parseDatabaseUrl } from '../store/database-url.js';
import { InvocationJournal } from '../store/spilled-invocations.js';
import { GroupCommit } from '../store/group-commit.js';
import { openStore } from '../store/open-store.js';
import { withStoreDeadline } from '../store/store-deadline.js';
import { ActorTracing } from '../telemetry/actor-tracing.js';
import { tracingConfigOf } from '../telemetry/tracing-config.js';
import type { CreateActorAppOptions } from './create-actor-app-options.js';
import type { OAuthFlow } from '../oauth/oauth-flow.js';
import { noOAuthTokens } from '../core/oauth-token-source.js';
import type { ActorDefinition } from '../core/actor-definition.js';
import { createOAuthFlow, type ActorOAuthFlow } from '../oauth/create-oauth-flow.js';
import { oauthProvidersFromEnv } from '../oauth/oauth-providers-from-env.js';
import type { Store } from '../store/store.js';

/**
 * A `Store` that forwards every call to a store still being opened, so the app can be built
 * synchronously and the connection made during start-up. Calls wait for the opening; when it
 * failed, they reject with its error and the next call opens again.
 * @param open opens the real store
 * @param expectedKind the kind reported until the store is open
 */
function deferStore(open: () => Promise<Store>, expectedKind: string): Store {
  let opened: Store | undefined;
  let opening: Promise<Store> | undefined;
  const ready = () => {
    opening ??= open().then(
      (store) => (opened = store),
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  return new Proxy({} as Store, {
    get(_target, property) {
      if (property === 'kind') return opened?.kind ?? expectedKind;
      if (property === 'then') return undefined;
      return async (...args: unknown[]) => {
        const store = opened ?? (await ready());
        const method = store[property as keyof Store] as unknown as (...a: unknown[]) => unknown;
        return method.apply(store, args);
      };
    },
  });
}

/**
 * The OAuth flow over the providers an actor's definition declares, configured from the
 * environment (`OAUTH_<P>_*`, `OAUTH_REDIRECT_URI`; see `oauthProvidersFromEnv`), or `undefined`
 * when it declares none. A declared provider without endpoints throws at setup.
 * @param definition the actor's definition.
 * @param env the raw environment.
 */
function definitionOAuthFlow(definition: ActorDefinition, env: ActorEnvironment): ActorOAuthFlow | undefined {
  const declared = definition.oauth ?? [];
  if (declared.length === 0) return undefined;
  const redirectUri = env.OAUTH_REDIRECT_URI?.trim() || undefined;
  return createOAuthFlow({
    providers: oauthProvidersFromEnv(env, declared),
    ...(redirectUri === undefined ? {} : { redirectUri }),
  });
}

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
    options.chatHandler
      ? {}
      : { check: (values) => agentSettingsProblems(environment, values, options.modelProviders) },
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
        ...(options.modelProviders ? { modelProviders: options.modelProviders } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.instructions ? { instructions: options.instructions } : {}),
      });
  // One group commit saves every turn and reads the stats with the turns it still holds.
  const turns = new GroupCommit(store, {
    logger,
    monitor: database,
    timeoutMs: deadlineMs,
    onSetAside: () => metrics.invocationRecordsSetAside.inc(),
    journal: new InvocationJournal(dataDir, databaseIdentity(parseDatabaseUrl(url, dataDir))),
  });
  const lifecycle = new ActorLifecycle();
  const ctx: ActorContext = {
    definition: options.definition,
    environment,
    config,
    settings,
    lifecycle,
    store,
    runs: new ActorRuns({
      store,
      storeKind,
      lifecycle,
      logger,
      instanceId: config.instanceId,
      leaseMs: config.runs.leaseMs,
      retryReadOnly: config.runs.retryReadOnly,
      approvalTimeoutMs: config.runs.approvalTimeoutMs,
      metrics,
      rerun: (run) => rerunInvoke(ctx, run),
      resume: (tenantId, resumed) => continueRun(ctx, tenantId, resumed),
    }),
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
