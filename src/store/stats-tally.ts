import type { TurnToSave, StatsSnapshot } from './store.js';
import { parseTimestamp } from './store-input-validation.js';

/** The additive counters of a set of invocation records (everything but the distinct counts). */
export interface StatsTally {
  invocations: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  latencyMsTotal: number;
  latencyMsMax: number;
  /** Milliseconds since the epoch of the earliest `finishedAt`, or null when empty. */
  firstInvokedAtMs: number | null;
  /** Milliseconds since the epoch of the latest `finishedAt`, or null when empty. */
  lastInvokedAtMs: number | null;
}

/** A tally of no records. */
export function emptyTally(): StatsTally {
  return {
    invocations: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    toolCalls: 0,
    latencyMsTotal: 0,
    latencyMsMax: 0,
    firstInvokedAtMs: null,
    lastInvokedAtMs: null,
  };
}

function earlier(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}

function later(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}

/** Adds `from` into `into` (mutates `into`). */
export function mergeTally(into: StatsTally, from: StatsTally): void {
  into.invocations += from.invocations;
  into.errors += from.errors;
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.toolCalls += from.toolCalls;
  into.latencyMsTotal += from.latencyMsTotal;
  into.latencyMsMax = Math.max(into.latencyMsMax, from.latencyMsMax);
  into.firstInvokedAtMs = earlier(into.firstInvokedAtMs, from.firstInvokedAtMs);
  into.lastInvokedAtMs = later(into.lastInvokedAtMs, from.lastInvokedAtMs);
}

/** Adds one record into `tally` (mutates `tally`). */
export function addTurnToTally(tally: StatsTally, record: TurnToSave): void {
  const finishedAtMs = parseTimestamp(record.finishedAt, 'finishedAt');
  mergeTally(tally, {
    invocations: 1,
    errors: record.outcome === 'error' ? 1 : 0,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    toolCalls: record.toolCalls,
    latencyMsTotal: record.latencyMs,
    latencyMsMax: record.latencyMs,
    firstInvokedAtMs: finishedAtMs,
    lastInvokedAtMs: finishedAtMs,
  });
}

/** One tally per tenant, keyed by tenant id in ascending order. */
export function tallyByTenant(records: Iterable<TurnToSave>): Map<string, StatsTally> {
  const tallies = new Map<string, StatsTally>();
  for (const record of records) {
    let tally = tallies.get(record.tenantId);
    if (tally === undefined) {
      tally = emptyTally();
      tallies.set(record.tenantId, tally);
    }
    addTurnToTally(tally, record);
  }
  return new Map([...tallies].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The distinct counts of a snapshot, which a tally cannot hold. */
export interface DistinctCounts {
  readonly sessions: number;
  readonly users: number;
  readonly tenants: number;
}

/**
 * Builds a snapshot from a tally and distinct counts.
 * @param since used as the snapshot's `since` when the tally is empty; otherwise its earliest record is.
 */
export function snapshotFromTally(tally: StatsTally, distinct: DistinctCounts, since: string): StatsSnapshot {
  return {
    since: tally.firstInvokedAtMs === null ? since : new Date(tally.firstInvokedAtMs).toISOString(),
    invocations: tally.invocations,
    errors: tally.errors,
    sessions: distinct.sessions,
    users: distinct.users,
    tenants: distinct.tenants,
    inputTokens: tally.inputTokens,
    outputTokens: tally.outputTokens,
    toolCalls: tally.toolCalls,
    latencyMsTotal: tally.latencyMsTotal,
    latencyMsMax: tally.latencyMsMax,
    lastInvokedAt: tally.lastInvokedAtMs === null ? null : new Date(tally.lastInvokedAtMs).toISOString(),
  };
}

/** Converts a snapshot's additive counters back to a tally, so more records can be added to it. */
function tallyFromSnapshot(snapshot: StatsSnapshot): StatsTally {
  return {
    invocations: snapshot.invocations,
    errors: snapshot.errors,
    inputTokens: snapshot.inputTokens,
    outputTokens: snapshot.outputTokens,
    toolCalls: snapshot.toolCalls,
    latencyMsTotal: snapshot.latencyMsTotal,
    latencyMsMax: snapshot.latencyMsMax,
    firstInvokedAtMs: snapshot.invocations === 0 ? null : Date.parse(snapshot.since),
    lastInvokedAtMs: snapshot.lastInvokedAt === null ? null : Date.parse(snapshot.lastInvokedAt),
  };
}

/**
 * A snapshot with `records` added (only those of `tenantId` when given). The additive
 * counters are exact; the distinct counts become the larger of the snapshot's and the
 * records' own, because the snapshot cannot tell which sessions and users it already holds.
 */
export function addTurnsToSnapshot(
  snapshot: StatsSnapshot,
  records: readonly TurnToSave[],
  tenantId?: string,
): StatsSnapshot {
  const selected = tenantId === undefined ? records : records.filter((record) => record.tenantId === tenantId);
  if (selected.length === 0) return snapshot;
  const tally = tallyFromSnapshot(snapshot);
  for (const record of selected) addTurnToTally(tally, record);
  const distinct = (key: (record: TurnToSave) => string) => new Set(selected.map(key)).size;
  return snapshotFromTally(
    tally,
    {
      sessions: Math.max(
        snapshot.sessions,
        distinct((record) => JSON.stringify([record.tenantId, record.sessionId])),
      ),
      users: Math.max(
        snapshot.users,
        distinct((record) => record.userIdentifier),
      ),
      tenants: Math.max(
        snapshot.tenants,
        distinct((record) => record.tenantId),
      ),
    },
    snapshot.since,
  );
}
