import {
  isFinalRunState,
  type IdempotencyRecord,
  type RunWrite,
  type StoredRun,
  type StoredRunPart,
  type TurnToSave,
  type StatsSnapshot,
  type Store,
  type StoredMessage,
  type StoredOAuthState,
  type StoredOAuthToken,
} from './store.js';
import { addTurnToTally, emptyTally, mergeTally, snapshotFromTally, type StatsTally } from './stats-tally.js';
import {
  assertHttpStatus,
  assertHistoryLimit,
  assertOAuthStateInput,
  assertOAuthStateLookup,
  assertOAuthToken,
  assertStoreKey,
  assertTtl,
  checkedTurnToSave,
  checkedTurnHistory,
  serialiseMessageData,
  serialiseSettingsOverrides,
} from './store-input-validation.js';

interface TenantCounters {
  readonly tally: StatsTally;
  readonly sessions: Set<string>;
  readonly users: Set<string>;
}

/**
 * A store that keeps everything in process memory. A test double only: it loses everything
 * on restart. Production actors use SQLite or PostgreSQL. It counts and validates exactly as
 * they do (sessions are distinct per tenant, users distinct across tenants).
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  /** When set, every call rejects with this error: lets tests simulate an outage. */
  failure: Error | null = null;
  private readonly since = new Date().toISOString();
  private readonly tenants = new Map<string, TenantCounters>();
  private readonly appliedIds = new Set<string>();
  private readonly history = new Map<string, StoredMessage[]>();
  private settings = '{}';
  private readonly tokens = new Map<string, StoredOAuthToken>();
  private readonly idempotency = new Map<string, { record: IdempotencyRecord; expiresAt: number }>();
  private readonly oauthStates = new Map<string, StoredOAuthState>();
  private readonly runs = new Map<string, StoredRun>();
  private readonly runParts = new Map<string, StoredRunPart[]>();

  private check(): void {
    if (this.failure) throw this.failure;
  }

  async migrate(): Promise<void> {
    this.check();
  }

  async ping(): Promise<void> {
    this.check();
  }

  async saveTurns(input: readonly TurnToSave[]): Promise<void> {
    const turns = input.map((turn) => checkedTurnToSave(turn));
    this.check();
    for (const turn of turns) {
      if (turn.id !== undefined) {
        if (this.appliedIds.has(turn.id)) continue;
        this.appliedIds.add(turn.id);
      }
      let counters = this.tenants.get(turn.tenantId);
      if (!counters) {
        counters = { tally: emptyTally(), sessions: new Set(), users: new Set() };
        this.tenants.set(turn.tenantId, counters);
      }
      addTurnToTally(counters.tally, turn);
      counters.sessions.add(turn.sessionId);
      counters.users.add(turn.userIdentifier);
      if (turn.history !== undefined) this.append(turn.tenantId, turn.sessionId, turn.history);
      const completion = turn.idempotency;
      if (completion !== undefined) this.complete(completion.key, completion.status, completion.body, completion.ttlMs);
    }
  }

  async readStats(tenantId?: string): Promise<StatsSnapshot> {
    this.check();
    const selected =
      tenantId === undefined ? [...this.tenants.values()] : [this.tenants.get(tenantId)].filter((c) => c !== undefined);
    const tally = emptyTally();
    const users = new Set<string>();
    let sessions = 0;
    for (const counters of selected) {
      mergeTally(tally, counters.tally);
      sessions += counters.sessions.size;
      for (const user of counters.users) users.add(user);
    }
    return snapshotFromTally(tally, { sessions, users: users.size, tenants: selected.length }, this.since);
  }

  async appendMessages(tenantId: string, sessionId: string, messages: readonly StoredMessage[]): Promise<void> {
    assertStoreKey(tenantId, 'tenantId');
    assertStoreKey(sessionId, 'sessionId');
    const turn = checkedTurnHistory(messages);
    this.check();
    this.append(tenantId, sessionId, turn);
  }

  private append(tenantId: string, sessionId: string, messages: readonly StoredMessage[]): void {
    const copies = messages.map((message) => {
      const data = serialiseMessageData(message.data);
      const copy: StoredMessage = {
        id: message.id,
        role: message.role,
        content: message.content,
        createdAt: message.createdAt,
      };
      return data === null ? copy : { ...copy, data: JSON.parse(data) as unknown };
    });
    const key = JSON.stringify([tenantId, sessionId]);
    this.history.set(key, [...(this.history.get(key) ?? []), ...copies]);
  }

  async loadHistory(tenantId: string, sessionId: string, limit: number): Promise<StoredMessage[]> {
    assertHistoryLimit(limit);
    this.check();
    const messages = this.history.get(JSON.stringify([tenantId, sessionId])) ?? [];
    return limit === 0 ? [] : messages.slice(-limit);
  }

  async loadSettingsOverrides(): Promise<Record<string, unknown>> {
    this.check();
    return JSON.parse(this.settings) as Record<string, unknown>;
  }

  async updateSettingsOverrides(
    update: (saved: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    this.check();
    const serialised = serialiseSettingsOverrides(update(JSON.parse(this.settings) as Record<string, unknown>));
    this.settings = serialised;
    return JSON.parse(serialised) as Record<string, unknown>;
  }

  /** Saves a tenant's token of one provider, replacing the one before. */
  async saveOAuthToken(token: StoredOAuthToken): Promise<void> {
    assertOAuthToken(token);
    this.check();
    this.tokens.set(JSON.stringify([token.tenantId, token.provider]), { ...token });
  }

  /** A tenant's token of one provider, or `null`. */
  async loadOAuthToken(tenantId: string, provider: string): Promise<StoredOAuthToken | null> {
    this.check();
    const token = this.tokens.get(JSON.stringify([tenantId, provider]));
    return token === undefined ? null : { ...token };
  }

  async putOAuthState(state: string, record: string, expiresAtMs: number): Promise<void> {
    assertOAuthStateInput(state, record, expiresAtMs);
    this.check();
    const nowMs = Date.now();
    for (const [key, pending] of this.oauthStates) if (pending.expiresAtMs <= nowMs) this.oauthStates.delete(key);
    this.oauthStates.set(state, { record, expiresAtMs });
  }

  async takeOAuthState(state: string): Promise<StoredOAuthState | null> {
    assertOAuthStateLookup(state);
    this.check();
    const pending = this.oauthStates.get(state) ?? null;
    this.oauthStates.delete(state);
    return pending;
  }

  async claimIdempotencyKey(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | null> {
    assertStoreKey(key, 'key');
    assertTtl(ttlMs);
    this.check();
    const existing = this.idempotency.get(key);
    if (existing && existing.expiresAt > Date.now()) return existing.record;
    this.idempotency.set(key, { record: { state: 'running', fingerprint }, expiresAt: Date.now() + ttlMs });
    return null;
  }

  async completeIdempotencyKey(key: string, status: number, body: string, ttlMs?: number): Promise<void> {
    assertHttpStatus(status);
    if (ttlMs !== undefined) assertTtl(ttlMs);
    this.check();
    this.complete(key, status, body, ttlMs);
  }

  private complete(key: string, status: number, body: string, ttlMs: number | undefined): void {
    const existing = this.idempotency.get(key);
    if (!existing) return;
    existing.record = { state: 'completed', fingerprint: existing.record.fingerprint, status, body };
    if (ttlMs !== undefined) existing.expiresAt = Date.now() + ttlMs;
  }

  async releaseIdempotencyKey(key: string): Promise<void> {
    this.check();
    this.idempotency.delete(key);
  }

  async writeRuns(writes: readonly RunWrite[]): Promise<void> {
    this.check();
    for (const { run, parts } of writes) {
      const stored = this.runs.get(run.id);
      if (stored === undefined) this.runs.set(run.id, run);
      else if (stored.runner === run.runner && !isFinalRunState(stored.state))
        this.runs.set(run.id, {
          ...run,
          cancelRequested: stored.cancelRequested,
          request: run.request !== '' ? run.request : stored.request,
        });
      // A runner that lost its run, or writes after its end, adds no parts.
      else continue;
      if (parts === undefined) continue;
      const kept = this.runParts.get(run.id) ?? [];
      const lastSeq = kept.at(-1)?.seq ?? 0;
      parts.parts.forEach((part, index) => {
        const seq = parts.firstSeq + index;
        if (seq > lastSeq) kept.push({ seq, part });
      });
      this.runParts.set(run.id, kept);
    }
  }

  async readRun(id: string): Promise<StoredRun | null> {
    this.check();
    return this.runs.get(id) ?? null;
  }

  async readRunParts(id: string, afterSeq: number, limit: number): Promise<StoredRunPart[]> {
    this.check();
    return (this.runParts.get(id) ?? []).filter((part) => part.seq > afterSeq).slice(0, limit);
  }

  async readActiveRun(tenantId: string, sessionId: string): Promise<StoredRun | null> {
    this.check();
    let newest: StoredRun | null = null;
    for (const run of this.runs.values())
      if (
        run.tenantId === tenantId &&
        run.sessionId === sessionId &&
        !isFinalRunState(run.state) &&
        (newest === null || run.createdAtMs >= newest.createdAtMs)
      )
        newest = run;
    return newest;
  }

  async readTenantRuns(
    tenantId: string,
    page: { readonly sessionId?: string; readonly beforeId?: string; readonly limit: number },
  ): Promise<StoredRun[]> {
    this.check();
    return [...this.runs.values()]
      .filter(
        (run) =>
          run.tenantId === tenantId &&
          (page.sessionId === undefined || run.sessionId === page.sessionId) &&
          (page.beforeId === undefined || run.id < page.beforeId),
      )
      .sort((a, b) => (a.id === b.id ? 0 : a.id < b.id ? 1 : -1))
      .slice(0, page.limit);
  }

  async readAwaitingRuns(tenantId: string, limit: number): Promise<StoredRun[]> {
    this.check();
    return [...this.runs.values()]
      .filter((run) => run.tenantId === tenantId && run.state === 'awaiting_input')
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id))
      .slice(0, limit);
  }

  async requestRunCancel(id: string): Promise<StoredRun | null> {
    this.check();
    const run = this.runs.get(id);
    if (run === undefined) return null;
    if (isFinalRunState(run.state)) return run;
    const asked = { ...run, cancelRequested: true };
    this.runs.set(id, asked);
    return asked;
  }

  async cancelledRuns(ids: readonly string[]): Promise<string[]> {
    this.check();
    return ids.filter((id) => this.runs.get(id)?.cancelRequested === true);
  }

  async takeExpiredRuns(
    runner: string,
    nowMs: number,
    leaseExpiresAtMs: number,
    limit: number,
    deadlineMs = nowMs,
  ): Promise<StoredRun[]> {
    this.check();
    const expired = [...this.runs.values()]
      .filter(
        (run) =>
          !isFinalRunState(run.state) &&
          run.leaseExpiresAtMs !== null &&
          run.leaseExpiresAtMs < nowMs &&
          (run.state !== 'awaiting_input' || run.leaseExpiresAtMs < deadlineMs),
      )
      .sort((a, b) => (a.leaseExpiresAtMs ?? 0) - (b.leaseExpiresAtMs ?? 0))
      .slice(0, Math.max(0, limit));
    return expired.map((run) => {
      const held = { ...run, runner, leaseExpiresAtMs };
      this.runs.set(run.id, held);
      return held;
    });
  }

  async decideRunApprovals(
    id: string,
    before: string,
    after: string,
    resume?: { readonly runner: string; readonly leaseExpiresAtMs: number },
  ): Promise<StoredRun | null> {
    this.check();
    const run = this.runs.get(id);
    if (run?.state !== 'awaiting_input' || run.approvals !== before) return null;
    const decided: StoredRun =
      resume === undefined ? { ...run, approvals: after } : { ...run, approvals: after, state: 'running', ...resume };
    this.runs.set(id, decided);
    return decided;
  }

  async close(): Promise<void> {}
}
