import type { ChatHandler } from '../invoke/chat-handler.js';
import type { StatsRecorder, TurnServices, TurnWriter } from '../invoke/turn-services.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import type { Logger } from '../log/logger.js';
import type { Store } from '../store/store.js';
import type { ActorDefinition } from '../core/actor-definition.js';
import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import type { ActorMetrics } from './actor-metrics.js';
import type { DomainHealthMonitor } from './domain-health-monitor.js';
import type { DatabaseStatus } from '../store/database-monitor.js';
import type { ActorSettings } from './actor-settings.js';
import type { RuntimeBindings } from '../core/runtime-bindings.js';
import type { RuntimeConfig } from '../environment/runtime-config.js';
import type { ActorTracer } from '../telemetry/actor-tracer.js';

/** The last known state of the database, read without touching it. */
export interface DatabaseHealth {
  /** The last known state, shown as it is as `/health`'s database check. */
  status(): DatabaseStatus;
  /** Checks the database again now (in the background); `/health` reports the result. */
  refresh(): void;
}

/** Readiness checks of the actor's own dependencies: `{check_name: ready}`. */
export type ReadinessChecks = () => Record<string, boolean> | Promise<Record<string, boolean>>;

/** Everything a route needs, built once by `createActorApp`; a turn takes the part it needs (`TurnServices`). */
export interface ActorContext extends TurnServices {
  readonly definition: ActorDefinition;
  /** The typed environment, parsed once at start. */
  readonly environment: EnvironmentConfig;
  readonly config: RuntimeConfig;
  readonly settings: ActorSettings;
  readonly lifecycle: ActorLifecycle;
  readonly store: Store;
  /** Saves every finished turn (group commit over `store`), and flushes or spills the waiting ones on shutdown. */
  readonly turns: TurnWriter;
  /** The counters behind `/stats`, the turns `turns` still holds counted in (the same `GroupCommit`). */
  readonly stats: StatsRecorder;
  readonly database: DatabaseHealth;
  /** The last known state of the actor's own health checks (`CreateActorAppOptions.healthChecks`). */
  readonly domainHealth: Pick<DomainHealthMonitor, 'status' | 'refresh'>;
  readonly metrics: ActorMetrics;
  readonly logger: Logger;
  /** Spans of requests and turns when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; records nothing otherwise. */
  readonly tracer: ActorTracer;
  readonly chatHandler: ChatHandler;
  readonly readinessChecks: ReadinessChecks;
  /** The baked `src/platform/config.json`, or undefined when the actor ships none. */
  readonly platformConfig: unknown;
}

/** What every actor route gets as `c.env`. */
export interface ActorBindings {
  /** This request's id: the caller's `X-Request-Id` when it is sane, else a new UUID; sent back as `X-Request-Id`. */
  readonly requestId: string;
  /**
   * Keeps this request in flight (graceful shutdown waits for it) after its response is ready,
   * until the returned function is called: a streamed answer calls it when the stream ends.
   */
  readonly keepInFlight: () => () => void;
  /** What the runtime's adapter passed to `fetch` with the request (header reader, client address); undefined under `app.request`. */
  readonly runtime: RuntimeBindings | undefined;
}

/** Hono's environment for actor routes. */
export interface ActorEnv {
  Bindings: ActorBindings;
}
