import {
  emptyStats,
  type IdempotencyRecord,
  type InvocationRecord,
  type StatsSnapshot,
  type Store,
  type StoredMessage,
  type StoredOAuthToken,
} from './store.js';

interface TenantCounters {
  invocations: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  latencyMsTotal: number;
  latencyMsMax: number;
  lastInvokedAt: string | null;
  sessions: Set<string>;
  users: Set<string>;
}

/**
 * A store that keeps everything in process memory. A test double only: it loses everything
 * on restart. Production actors use SQLite or PostgreSQL.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  /** When set, every call rejects with this error: lets tests simulate an outage. */
  failure: Error | null = null;
  private readonly since = new Date().toISOString();
  private readonly tenants = new Map<string, TenantCounters>();
  private readonly history = new Map<string, StoredMessage[]>();
  private settings: Record<string, unknown> = {};
  private readonly tokens = new Map<string, StoredOAuthToken>();
  private readonly idempotency = new Map<string, { record: IdempotencyRecord; expiresAt: number }>();

  private check(): void {
    if (this.failure) throw this.failure;
  }

  async migrate(): Promise<void> {
    this.check();
  }

  async ping(): Promise<void> {
    this.check();
  }

  async recordInvocations(records: readonly InvocationRecord[]): Promise<void> {
    this.check();
    for (const record of records) {
      let counters = this.tenants.get(record.tenantId);
      if (!counters) {
        counters = {
          invocations: 0, errors: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0,
          latencyMsTotal: 0, latencyMsMax: 0, lastInvokedAt: null, sessions: new Set(), users: new Set(),
        };
        this.tenants.set(record.tenantId, counters);
      }
      counters.invocations += 1;
      if (record.outcome === 'error') counters.errors += 1;
      counters.inputTokens += record.inputTokens;
      counters.outputTokens += record.outputTokens;
      counters.toolCalls += record.toolCalls;
      counters.latencyMsTotal += record.latencyMs;
      counters.latencyMsMax = Math.max(counters.latencyMsMax, record.latencyMs);
      if (counters.lastInvokedAt === null || record.finishedAt > counters.lastInvokedAt) counters.lastInvokedAt = record.finishedAt;
      counters.sessions.add(record.sessionId);
      counters.users.add(record.userIdentifier);
    }
  }

  async readStats(tenantId?: string): Promise<StatsSnapshot> {
    this.check();
    const selected = tenantId === undefined ? [...this.tenants.values()] : [this.tenants.get(tenantId)].filter((c) => c !== undefined);
    const sessions = new Set<string>();
    const users = new Set<string>();
    const total = { ...emptyStats(this.since) } as { -readonly [K in keyof StatsSnapshot]: StatsSnapshot[K] };
    for (const counters of selected) {
      total.invocations += counters.invocations;
      total.errors += counters.errors;
      total.inputTokens += counters.inputTokens;
      total.outputTokens += counters.outputTokens;
      total.toolCalls += counters.toolCalls;
      total.latencyMsTotal += counters.latencyMsTotal;
      total.latencyMsMax = Math.max(total.latencyMsMax, counters.latencyMsMax);
      if (counters.lastInvokedAt !== null && (total.lastInvokedAt === null || counters.lastInvokedAt > total.lastInvokedAt)) {
        total.lastInvokedAt = counters.lastInvokedAt;
      }
      for (const session of counters.sessions) sessions.add(session);
      for (const user of counters.users) users.add(user);
    }
    total.sessions = sessions.size;
    total.users = users.size;
    total.tenants = selected.length;
    return total;
  }

  async appendMessages(tenantId: string, sessionId: string, messages: readonly StoredMessage[]): Promise<void> {
    this.check();
    const key = JSON.stringify([tenantId, sessionId]);
    this.history.set(key, [...(this.history.get(key) ?? []), ...messages]);
  }

  async loadHistory(tenantId: string, sessionId: string, limit: number): Promise<StoredMessage[]> {
    this.check();
    const messages = this.history.get(JSON.stringify([tenantId, sessionId])) ?? [];
    return limit <= 0 ? [] : messages.slice(-limit);
  }

  async loadSettingsOverrides(): Promise<Record<string, unknown>> {
    this.check();
    return structuredClone(this.settings);
  }

  async saveSettingsOverrides(overrides: Record<string, unknown>): Promise<void> {
    this.check();
    this.settings = structuredClone(overrides);
  }

  async saveOAuthToken(token: StoredOAuthToken): Promise<void> {
    this.check();
    this.tokens.set(JSON.stringify([token.tenantId, token.provider]), { ...token });
  }

  async loadOAuthToken(tenantId: string, provider: string): Promise<StoredOAuthToken | null> {
    this.check();
    return this.tokens.get(JSON.stringify([tenantId, provider])) ?? null;
  }

  async claimIdempotencyKey(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | null> {
    this.check();
    const existing = this.idempotency.get(key);
    if (existing && existing.expiresAt > Date.now()) return existing.record;
    this.idempotency.set(key, { record: { state: 'running', fingerprint }, expiresAt: Date.now() + ttlMs });
    return null;
  }

  async completeIdempotencyKey(key: string, status: number, body: string): Promise<void> {
    this.check();
    const existing = this.idempotency.get(key);
    if (!existing) return;
    existing.record = { state: 'completed', fingerprint: existing.record.fingerprint, status, body };
  }

  async releaseIdempotencyKey(key: string): Promise<void> {
    this.check();
    this.idempotency.delete(key);
  }

  async close(): Promise<void> {}
}
