import type { ActorPool, ReplicaView } from '../actor-pool.js';
import { ACTOR_PATHS } from './actor-paths.js';
import type { AnsweredInvokes } from './answered-invokes.js';
import type {
  ActorReconciliation,
  Drift,
  DriftEvent,
  ReconciliationReport,
  ReplicaReading,
  TenantReconciliation,
} from './reconciliation-report.js';

/** How many drift events the report keeps. */
const KEPT_EVENTS = 100;

/** The counters of a `/stats` answer reconciliation reads. */
interface StatsReading {
  readonly instanceId: string | undefined;
  readonly invocations: number;
  readonly errors: number;
}

const successes = (stats: StatsReading): number => stats.invocations - stats.errors;

async function readStats(answer: Promise<Response>): Promise<StatsReading> {
  const response = await answer;
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  const body = (await response.json()) as { instance_id?: unknown; invocations?: unknown; errors?: unknown };
  if (typeof body.invocations !== 'number' || typeof body.errors !== 'number') throw new Error('not a stats body');
  return {
    instanceId: typeof body.instance_id === 'string' ? body.instance_id : undefined,
    invocations: body.invocations,
    errors: body.errors,
  };
}

const statsRequest = (path: string): Request =>
  new Request(new URL(path, 'http://replica.invalid'), { headers: { Accept: 'application/json' } });
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Whether a count a read took agrees with the gateway's: not below it, and above it by no more than the turns under way. */
const agrees = (counted: number, answered: number, inFlight: number): boolean =>
  counted >= answered && counted <= answered + inFlight;

/**
 * The platform's reconciliation job: reads `/stats` (and `/stats/<tenant>` of every tenant the
 * gateway answered) of every replica through `pool.forwardTo`, on an interval, and compares the
 * successful turns counted since the platform started with those the gateway answered.
 * The database outlives the platform, so each instance's (and tenant's) starting point is read
 * before the gateway forwards its first turn (`ensureBaseline`), or at the first read while
 * nothing was answered yet.
 */
export class Reconciler {
  readonly #pools: ReadonlyMap<string, ActorPool>;
  readonly #answered: AnsweredInvokes;
  readonly #intervalMs: number;
  readonly #baselines = new Map<string, number>();
  readonly #pendingBaselines = new Map<string, Promise<void>>();
  readonly #estimated = new Set<string>();
  readonly #lastViews = new Map<string, { restarts: number; startedAt: string }>();
  readonly #events: DriftEvent[] = [];
  #report: ReconciliationReport;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<ReconciliationReport> | undefined;

  /**
   * @param pools the hosted instances
   * @param answered the gateway's count of answered turns
   * @param intervalMs how often `start` reads; 0 reads only on demand
   */
  constructor(pools: ReadonlyMap<string, ActorPool>, answered: AnsweredInvokes, intervalMs: number) {
    if (!Number.isInteger(intervalMs) || intervalMs < 0)
      throw new Error(`The reconciliation interval must be a whole number of milliseconds >= 0, got ${intervalMs}`);
    this.#pools = pools;
    this.#answered = answered;
    this.#intervalMs = intervalMs;
    this.#report = { read_at: null, interval_ms: intervalMs, actors: [], tenants: [], drift: false, events: [] };
  }

  /** Starts reading every `intervalMs` (the timer does not keep the process alive). */
  start(): void {
    if (this.#intervalMs === 0 || this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.read().catch(() => {}), this.#intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Stops the timer and waits for a read under way. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => {});
  }

  /** The last report. */
  report(): ReconciliationReport {
    return this.#report;
  }

  /**
   * Reads the starting point of an instance and of a tenant of it, once, before the gateway
   * forwards a turn it will count. A failed read is retried by the next call.
   * @param pool the instance
   * @param tenant the tenant the turn is for
   */
  async ensureBaseline(pool: ActorPool, tenant: string): Promise<void> {
    await Promise.all([
      this.#baselineOnce(pool.ref, () => readStats(pool.forward(statsRequest(ACTOR_PATHS.stats)))),
      this.#baselineOnce(tenantKey(pool.ref, tenant), () =>
        readStats(pool.forward(statsRequest(ACTOR_PATHS.tenantStats(tenant)))),
      ),
    ]);
  }

  async #baselineOnce(key: string, read: () => Promise<StatsReading>): Promise<void> {
    if (this.#baselines.has(key)) return;
    let pending = this.#pendingBaselines.get(key);
    if (pending === undefined) {
      pending = read()
        .then((stats) => {
          if (!this.#baselines.has(key)) this.#baselines.set(key, successes(stats));
        })
        .catch(() => {})
        .finally(() => this.#pendingBaselines.delete(key));
      this.#pendingBaselines.set(key, pending);
    }
    await pending;
  }

  /** Reads every replica of every instance now and returns the new report (a read under way is joined). */
  read(): Promise<ReconciliationReport> {
    this.#running ??= this.#readAll().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #readAll(): Promise<ReconciliationReport> {
    const actors = await Promise.all([...this.#pools.values()].map((pool) => this.#readActor(pool)));
    const byTenant = new Map<string, { answered: number; counted: number | null }>();
    for (const actor of actors) {
      for (const tenant of actor.tenants) {
        const sum = byTenant.get(tenant.tenant_id) ?? { answered: 0, counted: 0 };
        sum.answered += tenant.answered;
        sum.counted = sum.counted === null || tenant.counted === null ? null : sum.counted + tenant.counted;
        byTenant.set(tenant.tenant_id, sum);
      }
    }
    const readAt = new Date().toISOString();
    for (const actor of actors) {
      for (const drift of [...actor.drift, ...actor.tenants.flatMap((tenant) => tenant.drift)])
        this.#events.push({ ...drift, at: readAt, ref: actor.ref });
    }
    this.#events.splice(0, Math.max(0, this.#events.length - KEPT_EVENTS));
    this.#report = {
      read_at: readAt,
      interval_ms: this.#intervalMs,
      actors,
      tenants: [...byTenant].map(([tenant_id, sum]) => ({ tenant_id, ...sum })),
      drift: actors.some((actor) => actor.drift.length > 0 || actor.tenants.some((tenant) => tenant.drift.length > 0)),
      events: [...this.#events],
    };
    return this.#report;
  }

  async #readActor(pool: ActorPool): Promise<ActorReconciliation> {
    const inFlight = this.#answered.inFlight(pool.ref);
    const answered = this.#answered.answered(pool.ref);
    const tenants = this.#answered.tenants(pool.ref);
    const views = pool.replicas();
    const reads = await Promise.all(
      views.map(async (view) => {
        const instance = readStats(pool.forwardTo(view.index, statsRequest(ACTOR_PATHS.stats))).catch(
          (error: unknown) => messageOf(error),
        );
        const perTenant = Promise.all(
          tenants.map((tenant) =>
            readStats(pool.forwardTo(view.index, statsRequest(ACTOR_PATHS.tenantStats(tenant)))).catch(() => undefined),
          ),
        );
        return { view, instance: await instance, perTenant: await perTenant };
      }),
    );
    const drift: Drift[] = [];
    const replicas: ReplicaReading[] = reads.map(({ view, instance }) => {
      const sinceLastRead = this.#restartsSinceLastRead(pool.ref, view);
      if (sinceLastRead > 0)
        drift.push({
          kind: 'replica_restarted',
          replica: view.index,
          detail: `replica ${view.index} restarted ${sinceLastRead} time(s) since the previous read (${view.restarts} in all)`,
        });
      return {
        index: view.index,
        state: view.state,
        restarts: view.restarts,
        restarts_since_last_read: sinceLastRead,
        started_at: view.startedAt,
        ...(typeof instance === 'string'
          ? { error: instance }
          : {
              ...(instance.instanceId === undefined ? {} : { instance_id: instance.instanceId }),
              invocations: instance.invocations,
              errors: instance.errors,
            }),
      };
    });
    const answeredStats = reads
      .map((read) => read.instance)
      .filter((stats): stats is StatsReading => typeof stats !== 'string');
    const stats = answeredStats[0];
    if (stats === undefined) {
      drift.push({ kind: 'stats_unreadable', detail: `no replica of ${pool.ref} answered ${ACTOR_PATHS.stats}` });
    } else if (inFlight === 0 && answeredStats.some((other) => successes(other) !== successes(stats))) {
      drift.push({
        kind: 'replicas_disagree',
        detail: `the replicas report different totals: ${answeredStats.map((other) => successes(other)).join(', ')} successful turns`,
      });
    }
    const baseline =
      stats === undefined ? undefined : this.#baselineAt(pool.ref, successes(stats), answered, inFlight, drift);
    const counted = stats === undefined || baseline === undefined ? null : successes(stats) - baseline;
    if (counted !== null && !agrees(counted, answered, inFlight)) {
      drift.push({
        kind: 'count_mismatch',
        detail: `/stats counted ${counted} successful turn(s) since the platform started; the gateway answered ${answered}${inFlight > 0 ? ` (${inFlight} under way)` : ''}`,
      });
    }
    const tenantRows = tenants.map((tenant, position): TenantReconciliation => {
      const tenantStats = reads.map((read) => read.perTenant[position]).find((reading) => reading !== undefined);
      const tenantAnswered = this.#answered.answered(pool.ref, tenant);
      const tenantDrift: Drift[] = [];
      const tenantBaseline =
        tenantStats === undefined
          ? undefined
          : this.#baselineAt(
              tenantKey(pool.ref, tenant),
              successes(tenantStats),
              tenantAnswered,
              inFlight,
              tenantDrift,
              tenant,
            );
      const tenantCounted =
        tenantStats === undefined || tenantBaseline === undefined ? null : successes(tenantStats) - tenantBaseline;
      if (tenantCounted !== null && !agrees(tenantCounted, tenantAnswered, inFlight)) {
        tenantDrift.push({
          kind: 'count_mismatch',
          tenant_id: tenant,
          detail: `/stats/${tenant} counted ${tenantCounted} successful turn(s); the gateway answered ${tenantAnswered}`,
        });
      }
      return { tenant_id: tenant, answered: tenantAnswered, counted: tenantCounted, drift: tenantDrift };
    });
    return {
      ref: pool.ref,
      slug: pool.slug,
      read_at: new Date().toISOString(),
      answered,
      counted,
      in_flight: inFlight,
      baseline: this.#baselines.get(pool.ref) ?? null,
      stats: stats === undefined ? null : { invocations: stats.invocations, errors: stats.errors },
      replicas,
      tenants: tenantRows,
      drift,
    };
  }

  /** The starting point of `key`; taken now when missing (inferred, and said so, when turns were answered already). */
  #baselineAt(
    key: string,
    nowSucceeded: number,
    answered: number,
    inFlight: number,
    drift: Drift[],
    tenant?: string,
  ): number | undefined {
    const known = this.#baselines.get(key);
    if (known !== undefined) return known;
    if (inFlight > 0) return undefined;
    const baseline = nowSucceeded - answered;
    this.#baselines.set(key, baseline);
    if (answered > 0 && !this.#estimated.has(key)) {
      this.#estimated.add(key);
      drift.push({
        kind: 'baseline_estimated',
        ...(tenant === undefined ? {} : { tenant_id: tenant }),
        detail: `the starting point was read after ${answered} answered turn(s), so it assumes none of them was lost`,
      });
    }
    return baseline;
  }

  #restartsSinceLastRead(ref: string, view: ReplicaView): number {
    const key = `${ref}#${view.index}`;
    const last = this.#lastViews.get(key);
    this.#lastViews.set(key, { restarts: view.restarts, startedAt: view.startedAt });
    // The first read compares with the pool's start: a slot counts its restarts from there, and one may die before the first read.
    if (last === undefined) return view.restarts;
    const counted = Math.max(0, view.restarts - last.restarts);
    return counted === 0 && view.startedAt !== last.startedAt ? 1 : counted;
  }
}

const tenantKey = (ref: string, tenant: string): string => `${ref}\n${tenant}`;
