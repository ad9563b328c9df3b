import type { ActorAgent } from '../agent/actor-agent.js';
import { actorRunsOf } from '../features/runs/actor-runs.js';
import type { ActorContext } from '../context/actor-context.js';
import type { ActorRouter } from '../context/actor-router.js';
import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import type { Logger } from '../log/logger.js';
import type { DatabaseMonitor } from '../store/database-monitor.js';
import { replaySpilledInvocations, spillInvocationsUntil } from '../store/spilled-invocations.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import type { ActorTracing } from '../telemetry/actor-tracing.js';

/** Start-up and shutdown of an actor, driven by a runtime adapter or a test. */
export interface ActorRuntime {
  readonly lifecycle: ActorLifecycle;
  readonly logger: Logger;
  readonly context: ActorContext;
  /** The typed environment, parsed once by `createActorApp`; the adapters read `PORT` and `SHUTDOWN_GRACE_MS` from it. */
  readonly environment: EnvironmentConfig;
  /** The names of the tools the agent's model may call (after `start()`: domain tools, then MCP servers' tools); none without an agent. */
  toolNames(): readonly string[];
  /** Migrates the store, loads saved settings and marks the actor ready; retries while the database is down. */
  start(): Promise<void>;
  /** Drains (ready 503, new invokes 503), waits for in-flight requests up to `graceMs`, flushes stats, closes the store. */
  shutdown(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Reads the saved settings back every `intervalMs` (none when 0), one read at a time, so this
 * replica serves what another one saved; a read that fails is retried at the next tick.
 */
function refreshSettingsEvery(ctx: ActorContext, intervalMs: number): { start(): void; stop(): void } {
  let timer: ReturnType<typeof setInterval> | undefined;
  let reading = false;
  const tick = async () => {
    if (reading) return;
    reading = true;
    try {
      const changed = await ctx.settings.refresh(() => ctx.store.loadSettingsOverrides());
      if (changed.length > 0) ctx.logger.info('settings_reloaded', { changed });
    } catch (error) {
      ctx.logger.debug('settings_refresh_failed', { error });
    } finally {
      reading = false;
    }
  };
  return {
    start() {
      if (intervalMs === 0 || timer !== undefined) return;
      timer = setInterval(() => void tick(), intervalMs);
      (timer as { unref?: () => void }).unref?.();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs an actor's lifecycle: `start` migrates the store (retrying while the database is down),
 * applies saved settings, starts the agent and marks the actor ready; `shutdown` drains, waits
 * for the requests in flight, flushes the stats and closes the store. Each runs once, however
 * often it is called.
 * @param ctx the actor's context
 * @param database told when the store answered at start
 * @param agent the default agent, started and closed with the actor
 * @param routers the mounted routers, started before the actor turns ready and closed after the drain
 * @param tracing started with the store (ready waits for it, so the first invokes are traced) and shut down last (so the drain's spans are exported)
 */
export function runActorLifecycle(
  ctx: ActorContext,
  database: DatabaseMonitor,
  agent: ActorAgent | undefined,
  routers: readonly ActorRouter[] = [],
  tracing?: Pick<ActorTracing, 'start' | 'shutdown'>,
): ActorRuntime {
  const { store, settings, logger } = ctx;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const settingsRefresh = refreshSettingsEvery(ctx, ctx.environment.SETTINGS_REFRESH_MS);
  const { journal } = ctx.turns;
  return {
    lifecycle: ctx.lifecycle,
    logger,
    context: ctx,
    environment: ctx.environment,
    toolNames: () => agent?.tools.map((tool) => tool.name) ?? [],
    start() {
      starting ??= (async () => {
        // The SDK loads while the store migrates; the actor turns ready traced.
        const tracingStarted = tracing?.start();
        for (let attempt = 1; ; attempt += 1) {
          if (ctx.lifecycle.phase !== 'starting') return;
          try {
            await store.migrate();
            database.noteSuccess();
            const dropped = settings.applySavedOverrides(await store.loadSettingsOverrides());
            if (dropped.length > 0)
              logger.warn('saved_settings_dropped', {
                keys: dropped,
                reason: 'no longer valid for the settings schema',
              });
            if (journal !== undefined) await replaySpilledInvocations(journal, store, logger);
            break;
          } catch (error) {
            logger.error('store_start_failed', { attempt, error, retry_in_ms: Math.min(5000, 250 * attempt) });
            await sleep(Math.min(5000, 250 * attempt));
          }
        }
        // The first run of the actor's own health checks, in the background: start never waits on them.
        ctx.domainHealth.refresh();
        for (const router of routers) await router.start?.();
        await agent?.start();
        await tracingStarted;
        actorRunsOf(ctx).start();
        ctx.lifecycle.markReady();
        settingsRefresh.start();
        logger.info('actor_ready', { store: store.kind, version: ctx.definition.metadata.version });
      })();
      return starting;
    },
    shutdown({ graceMs = ctx.environment.SHUTDOWN_GRACE_MS } = {}) {
      stopping ??= (async () => {
        const graceEndsMs = Date.now() + graceMs;
        ctx.lifecycle.beginDraining();
        settingsRefresh.stop();
        logger.info('actor_draining', { in_flight: ctx.lifecycle.inFlight, grace_ms: graceMs });
        const idle = await ctx.lifecycle.waitForIdle(graceMs);
        if (!idle) {
          logger.warn('drain_timed_out', { in_flight: ctx.lifecycle.inFlight });
          ctx.lifecycle.abortInFlight();
          await ctx.lifecycle.waitForIdle(1_000);
        }
        await Promise.allSettled(routers.map((router) => router.close?.()));
        await agent?.close();
        // Runs still going ended `failed` `runner_stopped` at the abort: their ends and parts are written now.
        await actorRunsOf(ctx).close();
        try {
          await ctx.turns.flush();
        } catch (error) {
          // The database is away: what cannot be written goes to a file, merged at the next start;
          // a full disk may free up, so the write is retried until the grace period ends.
          const pending = ctx.turns.pending;
          let path: string | undefined;
          try {
            await ctx.turns.spillPending(async (records) => {
              if (journal === undefined) throw new Error('no DATA_DIR to spill to');
              path = await spillInvocationsUntil(journal.dataDir, journal.database, records, {
                deadlineMs: graceEndsMs,
                onFirstFailure: (spillError) => logger.warn('stats_spill_failed', { pending, error: spillError }),
              });
            });
            logger.warn('stats_spilled', { pending, path, reason: error });
          } catch (spillError) {
            logger.error('stats_flush_failed', { error, spill_error: spillError, pending });
          }
        }
        await store.close().catch((error: unknown) => logger.error('store_close_failed', { error }));
        await tracing?.shutdown();
        ctx.lifecycle.markStopped();
        logger.info('actor_stopped', { pending_stats: ctx.turns.pending });
      })();
      return stopping;
    },
  };
}
