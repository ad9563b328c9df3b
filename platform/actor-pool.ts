import type { PlatformConfig } from '../src/sdk/index.js';

/** Where one replica stands, as the local platform's supervisor sees it. */
export type ReplicaState = 'starting' | 'ready' | 'not_ready' | 'draining' | 'exited';

/** One replica of a hosted actor, as the dashboard and reconciliation read it. */
export interface ReplicaView {
  /** 0-based, stable across restarts of the same slot. */
  readonly index: number;
  /** The replica's own address, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly state: ReplicaState;
  readonly pid: number | undefined;
  /** How many times the supervisor restarted this slot after its process died. */
  readonly restarts: number;
  /** ISO time the current process of this slot started. */
  readonly startedAt: string;
  /** The last lines the replica wrote (stdout and stderr, at most 50). */
  readonly lastLines: readonly string[];
}

/**
 * One hosted actor instance: its configuration, its replicas and the round-robin in front of
 * them. The supervisor (`cli/platform/`) makes pools; the gateway (`cli/platform/gateway/`) routes
 * the edge, the relay and the mesh to them and reconciles their `/stats`.
 */
export interface ActorPool {
  /** The instance ref in `{platform_url}/api/v1/k/<ref>/…`. */
  readonly ref: string;
  /** `config.actor.slug`. */
  readonly slug: string;
  /** The actor folder. */
  readonly dir: string;
  /** The actor's `src/platform/config.json`, as the platform read it at registration. */
  readonly config: PlatformConfig;
  /**
   * The actor's service address on the platform, e.g. `http://127.0.0.1:41236`: a listener that
   * round-robins to the ready replicas like `forward`, as a Kubernetes Service does. Siblings
   * reach it through `<REF>_SERVICE_HOST` and `<REF>_SERVICE_PORT`; undefined until it listens.
   */
  readonly serviceUrl?: string | undefined;
  /** The fleet-mesh group the actor belongs to, when it mounts peer reads. */
  readonly meshGroup: string | undefined;
  /** A snapshot of the replicas, in slot order. */
  replicas(): readonly ReplicaView[];
  /**
   * Sends a request to the next ready replica (round-robin over replicas whose readiness probe
   * passes). The request's URL path is the actor's own path (`/agent/invoke`); its origin is
   * replaced. Answers 503 problem+json `no_ready_replica` when no replica is ready.
   */
  forward(request: Request): Promise<Response>;
  /** Sends a request to one replica, whatever its state (reconciliation reads each replica's `/stats`). */
  forwardTo(index: number, request: Request): Promise<Response>;
}
