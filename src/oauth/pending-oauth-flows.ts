import { ActorError } from '../core/actor-error.js';

interface PendingFlow {
  readonly tenantId: string;
  readonly expiresAt: number;
}

/**
 * How many OAuth flows this process has started and not yet seen finish or expire, per tenant and
 * overall, so unauthenticated `/oauth/authorize` calls cannot fill the state store: past either
 * bound a new flow is refused with 429 `too_many_pending_oauth_flows` and `Retry-After` (when the
 * oldest pending flow expires). Counted per process: with several replicas each holds its own
 * bounds, and a flow finished on another replica is freed here when it expires. Every step is
 * constant time (flows share one time limit, so start order is expiry order).
 */
export class PendingOAuthFlows {
  /** Every pending flow by its state, in start order. */
  readonly #flows = new Map<string, PendingFlow>();
  /** Each tenant's pending states, in start order. */
  readonly #byTenant = new Map<string, Set<string>>();
  readonly #maxPerTenant: number;
  readonly #maxOverall: number;

  /**
   * @param maxPerTenant most flows one tenant may have pending
   * @param maxOverall most flows all tenants together may have pending
   */
  constructor(maxPerTenant: number, maxOverall: number) {
    this.#maxPerTenant = maxPerTenant;
    this.#maxOverall = maxOverall;
  }

  /** Counts the new flow `state` of `tenantId`, expiring at `expiresAt`, or throws the 429 when a bound is reached. */
  admit(state: string, tenantId: string, expiresAt: number, now: number): void {
    for (const [pendingState, flow] of this.#flows) {
      if (flow.expiresAt > now) break;
      this.release(pendingState);
    }
    const tenantStates = this.#byTenant.get(tenantId) ?? new Set<string>();
    if (tenantStates.size >= this.#maxPerTenant)
      throw tooMany(
        `Tenant ${tenantId} has ${tenantStates.size} OAuth flows pending`,
        this.#expiryOfFirst(tenantStates) - now,
      );
    if (this.#flows.size >= this.#maxOverall)
      throw tooMany(`${this.#flows.size} OAuth flows are pending`, this.#expiryOfFirst(this.#flows.keys()) - now);
    this.#flows.set(state, { tenantId, expiresAt });
    this.#byTenant.set(tenantId, tenantStates.add(state));
  }

  /** Frees the flow `state` (its callback arrived, or it expired); unknown states are ignored. */
  release(state: string): void {
    const flow = this.#flows.get(state);
    if (flow === undefined) return;
    this.#flows.delete(state);
    const tenantStates = this.#byTenant.get(flow.tenantId);
    tenantStates?.delete(state);
    if (tenantStates?.size === 0) this.#byTenant.delete(flow.tenantId);
  }

  #expiryOfFirst(states: Iterable<string>): number {
    for (const state of states) return this.#flows.get(state)!.expiresAt;
    return 0;
  }
}

function tooMany(reason: string, retryInMs: number): ActorError {
  return new ActorError('too_many_pending_oauth_flows', {
    detail: `${reason}; finish one or wait until one expires`,
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryInMs / 1000))) },
  });
}
