import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { createActorAgent } from '../agent/actor-agent.js';
import type { ActorTool } from '../agent/actor-tool.js';
import type { ChatHandler } from '../agent/chat-handler.js';
import type { ChatModel } from '../agent/chat-model.js';
import type { ToolRegistry } from '../agent/tool-registry.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import { parseEnvironment } from '../environment/parse-environment.js';
import { createLogger, type Logger } from '../log/logger.js';
import { apiKeyAuth } from '../middleware/api-key/index.js';
import { actorIndexRoutes } from '../routes/actor-index.js';
import { actorInfoRoutes } from '../routes/actor-info.js';
import { healthRoutes } from '../routes/health.js';
import { invokeRoutes } from '../routes/invoke.js';
import { metricsRoutes } from '../routes/metrics.js';
import { noOAuthProviders, oauthRoutes, type OAuthFlow } from '../routes/oauth.js';
import { coreOperations } from '../routes/openapi-document.js';
import { openApiRoutes } from '../routes/openapi.js';
import { readyRoutes } from '../routes/ready.js';
import { settingsRoutes } from '../routes/settings.js';
import { statsRoutes } from '../routes/stats.js';
import { DatabaseMonitor } from '../store/database-monitor.js';
import { InvocationBuffer } from '../store/invocation-buffer.js';
import { parseDatabaseUrl } from '../store/database-url.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { ActorBindings, ActorContext, ActorEnv, ReadinessChecks } from './actor-context.js';
import type { ActorDefinition } from './actor-definition.js';
import { ActorError, clientClosedError } from './actor-error.js';
import { ActorLifecycle } from './actor-lifecycle.js';
import { ActorMetrics } from './actor-metrics.js';
import type { ActorRouter } from './actor-router.js';
import { ActorSettings } from './actor-settings.js';
import { allowedMethods } from './allowed-methods.js';
import { observeRequests, type ActorFetch } from './observe-requests.js';
import { deferStore } from './deferred-store.js';
import { problemResponse } from './problem-response.js';
import { readRuntimeConfig, type ActorEnvironment } from './runtime-config.js';

/** Options of `createActorApp`. */
export interface CreateActorAppOptions {
  /** The actor's card, template options, settings schema and sections. */
  readonly definition: ActorDefinition;
  /** Environment variables; defaults to `process.env` where the runtime has it. */
  readonly env?: ActorEnvironment;
  /** The store; defaults to the one `DATABASE_URL` names (SQLite under `DATA_DIR` when unset). */
  readonly store?: Store;
  /** Answers chat turns; defaults to the agent loop (history, tools, `model`). */
  readonly chatHandler?: ChatHandler;
  /** The agent's model; defaults to the one `LLM_*` names (settings, then environment), else the offline model. */
  readonly model?: ChatModel;
  /** The actor's domain tools (the tools of `MCP_SERVERS` follow them), or a `ToolRegistry` of its own. */
  readonly tools?: readonly ActorTool[] | ToolRegistry;
  /** System instructions the agent sends first on every turn. */
  readonly instructions?: string;
  /** The actor's own readiness checks, e.g. a domain client's `readinessChecks()`. */
  readonly readinessChecks?: ReadinessChecks;
  /** The baked `src/platform/config.json`, served by `GET /api/actor/platform-config`. */
  readonly platformConfig?: unknown;
  /** Structured logger; defaults to JSON lines at `LOG_LEVEL`. */
  readonly logger?: Logger;
  /** The OAuth flow; defaults to none configured. */
  readonly oauth?: OAuthFlow;
  /** Conditional surfaces (panels, peer reads, workflow proxy) turned on by the template options. */
  readonly routers?: readonly ActorRouter[];
}

/** Start-up and shutdown of an actor, driven by a runtime adapter or a test. */
export interface ActorRuntime {
  readonly lifecycle: ActorLifecycle;
  readonly logger: Logger;
  readonly context: ActorContext;
  /** The typed environment, parsed once by `createActorApp`; the adapters read `PORT` and `SHUTDOWN_GRACE_MS` from it. */
  readonly environment: EnvironmentConfig;
  /** Migrates the store, loads saved settings and marks the actor ready; retries while the database is down. */
  start(): Promise<void>;
  /** Drains (ready 503, new invokes 503), waits for in-flight requests up to `graceMs`, flushes stats, closes the store. */
  shutdown(options?: { graceMs?: number }): Promise<void>;
}

/**
 * A Hono app serving the actor surface, with its runtime controls under `actor`. Its `fetch`
 * (and `request`, which calls it) gives each request its id, tracking and metrics before Hono
 * routes it: serve the app through its own `fetch`, not by mounting its routes elsewhere.
 */
export type ActorApp = Omit<Hono<ActorEnv>, 'fetch'> & { readonly fetch: ActorFetch; readonly actor: ActorRuntime };

const processEnv = (): ActorEnvironment => (globalThis as { process?: { env?: ActorEnvironment } }).process?.env ?? {};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request id of `c`, or a new one for a request that did not come through the actor's `fetch`. */
function requestIdOf(c: { env: ActorBindings | undefined }): string {
  return c.env?.requestId ?? crypto.randomUUID();
}

function errorHandler(logger: Logger) {
  return function onActorError(error: Error, c: { env: ActorBindings | undefined; req: { method: string; path: string; raw: Request } }): Response {
    const id = requestIdOf(c);
    if (error instanceof ActorError) {
      if (error.status >= 500) logger.warn('request_failed', { request_id: id, code: error.code, status: error.status, cause: error.cause instanceof Error ? error.cause.message : undefined });
      return problemResponse(error, id);
    }
    if (c.req.raw.signal.aborted || (error as { code?: unknown }).code === 'ECONNRESET') {
      // The client went away mid-request (e.g. while its body was read): nobody gets this answer.
      logger.debug('client_closed_request', { request_id: id, method: c.req.method, path: c.req.path });
      return problemResponse(clientClosedError(error), id);
    }
    if (error instanceof HTTPException) {
      return problemResponse(new ActorError(error.status, error.status === 413 ? 'payload_too_large' : 'http_error', error.message || 'Request failed'), id);
    }
    logger.error('unhandled_error', { request_id: id, method: c.req.method, path: c.req.path, error: error.message, stack: error.stack });
    return problemResponse(new ActorError(500, 'internal_error', 'Internal server error', { detail: `Something went wrong; quote request id ${id} when reporting it` }), id);
  };
}

/**
 * Builds an actor: mounts the always-present HTTP surface on Hono (Fetch API only), plus
 * the conditional routers the template options turn on. Call `app.actor.start()` (the
 * adapters do) before serving invokes.
 * @example
 * const app = createActorApp({ definition });
 * await app.actor.start();
 * const res = await app.request('/health');
 */
export function createActorApp(options: CreateActorAppOptions): ActorApp {
  const env = options.env ?? processEnv();
  const environment = parseEnvironment(env, { settingKeys: Object.keys(options.definition.settings.entries) });
  const logger = options.logger ?? createLogger({ level: environment.LOG_LEVEL, fields: { actor: options.definition.metadata.slug } });
  const config = readRuntimeConfig(environment, logger.warn);
  const settings = new ActorSettings(options.definition, env);
  const { DATABASE_URL: url, DATA_DIR: dataDir, DATABASE_POOL_SIZE: poolSize, DATABASE_STATEMENT_TIMEOUT_MS: statementTimeoutMs } = environment;
  const storeKind = options.store?.kind ?? parseDatabaseUrl(url, dataDir).engine;
  const store =
    options.store ??
    deferStore(
      () => openStore({ url, dataDir, poolSize, statementTimeoutMs, logger }),
      storeKind,
    );
  const database = new DatabaseMonitor(store, { logger });
  const metrics = new ActorMetrics();
  const agent = options.chatHandler
    ? undefined
    : createActorAgent({
        env: environment,
        settings: () => settings.values,
        settingSource: (key) => settings.sourceOf(key),
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
    environment,
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
  options.oauth?.bind?.(ctx);
  const routers = options.routers ?? [];

  const app = new Hono<ActorEnv>();
  if (config.apiKeys.length > 0) app.use(apiKeyAuth({ keys: config.apiKeys }));
  const limitBody = bodyLimit({
    maxSize: config.bodyLimitBytes,
    onError: () => {
      throw new ActorError(413, 'payload_too_large', 'Payload too large', { detail: `The body must be at most ${config.bodyLimitBytes} bytes` });
    },
  });
  app.use('/agent/*', limitBody);
  app.use('/settings', limitBody);

  const surfaces = [
    invokeRoutes(ctx),
    healthRoutes(ctx),
    readyRoutes(ctx),
    metricsRoutes(ctx),
    statsRoutes(ctx),
    settingsRoutes(ctx),
    actorInfoRoutes(ctx),
    actorIndexRoutes(ctx),
    oauthRoutes(ctx, options.oauth ?? noOAuthProviders),
    openApiRoutes(ctx, () => [...coreOperations(ctx), ...routers.flatMap((router) => router.operations?.(ctx) ?? [])]),
  ];
  for (const surface of surfaces) app.route('/', surface);
  for (const router of routers) {
    router.mount(app, ctx);
    logger.debug('router_mounted', { router: router.name });
  }
  const allowed = allowedMethods(app);
  app.notFound(function notFoundOrNotAllowed(c) {
    const methods = allowed(c.req.path);
    if (methods.length > 0 && !methods.includes(c.req.method)) {
      const allow = methods.join(', ');
      return problemResponse(new ActorError(405, 'method_not_allowed', 'Method not allowed', { detail: `${c.req.method} is not allowed here; use ${allow}`, headers: { Allow: allow } }), requestIdOf(c));
    }
    return problemResponse(new ActorError(404, 'not_found', 'Not found', { detail: `No route for ${c.req.method} ${new URL(c.req.url).pathname}` }), requestIdOf(c));
  });
  app.onError(errorHandler(logger));

  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const runtime: ActorRuntime = {
    lifecycle: ctx.lifecycle,
    logger,
    context: ctx,
    environment,
    start() {
      starting ??= (async () => {
        for (let attempt = 1; ; attempt += 1) {
          if (ctx.lifecycle.phase !== 'starting') return;
          try {
            await store.migrate();
            database.noteSuccess();
            const dropped = settings.applySavedOverrides(await store.loadSettingsOverrides());
            if (dropped.length > 0) logger.warn('saved_settings_dropped', { keys: dropped, reason: 'no longer valid for the settings schema' });
            break;
          } catch (error) {
            logger.error('store_start_failed', { attempt, error, retry_in_ms: Math.min(5000, 250 * attempt) });
            await sleep(Math.min(5000, 250 * attempt));
          }
        }
        await agent?.start();
        ctx.lifecycle.markReady();
        logger.info('actor_ready', { store: store.kind, version: options.definition.metadata.version });
      })();
      return starting;
    },
    shutdown({ graceMs = environment.SHUTDOWN_GRACE_MS } = {}) {
      stopping ??= (async () => {
        ctx.lifecycle.beginDraining();
        logger.info('actor_draining', { in_flight: ctx.lifecycle.inFlight, grace_ms: graceMs });
        const idle = await ctx.lifecycle.waitForIdle(graceMs);
        if (!idle) {
          logger.warn('drain_timed_out', { in_flight: ctx.lifecycle.inFlight });
          ctx.lifecycle.abortInFlight();
          await ctx.lifecycle.waitForIdle(1_000);
        }
        await agent?.close();
        try {
          await ctx.stats.flush();
        } catch (error) {
          logger.error('stats_flush_failed', { error, pending: ctx.stats.pending });
        }
        await store.close().catch((error: unknown) => logger.error('store_close_failed', { error }));
        ctx.lifecycle.markStopped();
        logger.info('actor_stopped', { pending_stats: ctx.stats.pending });
      })();
      return stopping;
    },
  };
  return Object.assign(app, { fetch: observeRequests(app, { lifecycle: ctx.lifecycle, metrics: ctx.metrics.http }), actor: runtime });
}
