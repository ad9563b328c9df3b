import type { ChatHandler } from '../agent/chat-handler.js';
import type { Logger } from '../log/logger.js';
import type { RecordOutcome } from '../store/invocation-buffer.js';
import type { InvocationRecord, StatsSnapshot, Store } from '../store/store.js';
import type { ActorDefinition } from '../core/actor-definition.js';
import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import type { ActorMetrics } from './actor-metrics.js';
import type { ActorSettings } from './actor-settings.js';
import type { RuntimeConfig } from '../core/runtime-config.js';

/** Records finished invokes (and the history they carry); never loses a count, even while the database is down. */
export interface StatsRecorder {
  record(record: InvocationRecord): Promise<RecordOutcome>;
  flush(): Promise<void>;
  readStats(tenantId?: string): Promise<StatsSnapshot>;
  readonly pending: number;
}

/** The last known state of the database, read without touching it. */
export interface DatabaseHealth {
  status(): { status: 'pass' | 'warn' | 'fail'; output: string };
  refresh(): void;
}

/** Readiness checks of the actor's own dependencies: `{check_name: ready}`. */
export type ReadinessChecks = () => Record<string, boolean> | Promise<Record<string, boolean>>;

/** Everything a route needs, built once by `createActorApp`. */
export interface ActorContext {
  readonly definition: ActorDefinition;
  readonly config: RuntimeConfig;
  readonly settings: ActorSettings;
  readonly lifecycle: ActorLifecycle;
  readonly store: Store;
  readonly stats: StatsRecorder;
  readonly database: DatabaseHealth;
  readonly metrics: ActorMetrics;
  readonly logger: Logger;
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
   * What the runtime passed to `fetch` with the request: Node's `{ incoming, outgoing }`, Bun's
   * server, Deno's handler info; undefined under `app.request`.
   */
  readonly runtime: unknown;
}

/** Hono's environment for actor routes. */
export interface ActorEnv {
  Bindings: ActorBindings;
}
