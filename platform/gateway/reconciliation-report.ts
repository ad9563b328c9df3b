import type { ReplicaState } from '../actor-pool.js';

/** What kind of disagreement reconciliation found. */
type DriftKind =
  /** The successful turns `/stats` counted since the platform started differ from those the gateway answered. */
  | 'count_mismatch'
  /** A replica's process was restarted since the previous read. */
  | 'replica_restarted'
  /** Replicas on one database reported different totals. */
  | 'replicas_disagree'
  /** No replica answered `/stats`. */
  | 'stats_unreadable'
  /** The starting point was read after the gateway had already answered turns, so it is inferred. */
  | 'baseline_estimated';

/** One disagreement, in words. */
export interface Drift {
  readonly kind: DriftKind;
  readonly detail: string;
  readonly replica?: number;
  readonly tenant_id?: string;
}

/** One replica at one read. */
export interface ReplicaReading {
  readonly index: number;
  readonly state: ReplicaState;
  /** Restarts of this slot since the platform started. */
  readonly restarts: number;
  /** Restarts of this slot since the previous read. */
  readonly restarts_since_last_read: number;
  readonly started_at: string;
  /** The replica's `/stats` `instance_id`, when it answered. */
  readonly instance_id?: string;
  /** Its `/stats` `invocations` and `errors` (all time, the whole database), when it answered. */
  readonly invocations?: number;
  readonly errors?: number;
  /** Why it could not be read. */
  readonly error?: string;
}

/** One tenant of one instance. */
export interface TenantReconciliation {
  readonly tenant_id: string;
  /** Successful turns the gateway answered for the tenant. */
  readonly answered: number;
  /** Successful turns `/stats/<tenant>` counted since the platform started; null when unreadable. */
  readonly counted: number | null;
  readonly drift: readonly Drift[];
}

/** One instance at one read. */
export interface ActorReconciliation {
  readonly ref: string;
  readonly slug: string;
  readonly read_at: string;
  /** Successful turns the gateway answered (REST JSON, REST streams and the MCP tool `chat`). */
  readonly answered: number;
  /** Successful turns (`invocations - errors`) `/stats` counted since the starting point; null when unreadable. */
  readonly counted: number | null;
  /** Turns under way when the replicas were read (a read may count them already). */
  readonly in_flight: number;
  /** `/stats` successes at the starting point (the database outlives the platform). */
  readonly baseline: number | null;
  /** `/stats` of the instance as the replicas agreed (or the first that answered). */
  readonly stats: { readonly invocations: number; readonly errors: number } | null;
  readonly replicas: readonly ReplicaReading[];
  readonly tenants: readonly TenantReconciliation[];
  readonly drift: readonly Drift[];
}

/** A disagreement as the event list keeps it. */
export interface DriftEvent extends Drift {
  readonly at: string;
  readonly ref: string;
}

/** What `GET /platform/reconciliation` answers. */
export interface ReconciliationReport {
  /** When the replicas were last read; null before the first read. */
  readonly read_at: string | null;
  readonly interval_ms: number;
  readonly actors: readonly ActorReconciliation[];
  /** Per tenant, over every instance. */
  readonly tenants: readonly {
    readonly tenant_id: string;
    readonly answered: number;
    readonly counted: number | null;
  }[];
  /** Whether the last read found any drift. */
  readonly drift: boolean;
  /** The last disagreements found, newest last (at most 100). */
  readonly events: readonly DriftEvent[];
}
