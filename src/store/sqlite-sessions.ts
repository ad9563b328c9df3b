import type { HistoryAppend, HistoryCache, HistoryRow } from './history-cache.js';
import type { InvokeStatements } from './invoke-statements.js';
import type { SessionEngine } from './session-engine.js';
import { tallyByTenant } from './stats-tally.js';
import type { TurnToSave, StoredMessage } from './store.js';
import type { SqliteStatements } from './sqlite-statements.js';
import { serialiseMessageData } from './store-input-validation.js';

/**
 * Rows per multi-row statement: at most 6,000 parameters (the counters' 12 per row), far below
 * SQLite's bound-parameter limit (32,766 since 3.32) and statement size limit.
 */
const CHUNK_ROWS = 500;
/** Most known stats pairs kept per table (see `SqliteSessions.#knownPairs`); all are forgotten past it. */
const KNOWN_PAIRS = 50_000;

/** One turn's messages for a session, as SQLite's append takes them. */
interface SessionAppend {
  readonly tenantId: string;
  readonly sessionId: string;
  readonly messages: readonly StoredMessage[];
}

/** What SQLite's sessions use of their `SqlStore`. */
export interface SqliteSessionsContext {
  /** The store's SQLite connection, its statements run without Kysely. */
  readonly connection: SqliteStatements;
  readonly statements: InvokeStatements;
  /** Recent history in memory, or undefined when off. */
  readonly historyCache: HistoryCache | undefined;
  /** Runs `task` queued like every call of the store. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Runs `work` in a transaction of its own, queued; the history it notes in `appended` reaches the cache once committed. */
  transaction<T>(work: (appended: HistoryAppend[]) => Promise<T>): Promise<T>;
}

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let index = 0; index < items.length; index += CHUNK_ROWS) result.push(items.slice(index, index + CHUNK_ROWS));
  return result;
}

/** A NUL (libSQL cuts the text there) or a surrogate (an unpaired one comes back as U+FFFD). */
const ALTERED_BY_SQLITE = /[\u0000\ud800-\udfff]/;

/** Whether SQLite surely gives `text` back as given: no NUL, no surrogate (paired ones are kept apart too, cheaply). */
const comesBackAsGiven = (text: string) => !ALTERED_BY_SQLITE.test(text);

/** One key per (tenant, session), for maps. */
const sessionKey = (tenantId: string, sessionId: string) => JSON.stringify([tenantId, sessionId]);

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index += 1) {
    const left = a[index] ?? '';
    const right = b[index] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/** Distinct string pairs in a fixed order, so concurrent transactions lock rows in the same order. */
function sortedPairs(pairs: Iterable<readonly [string, string]>): [string, string][] {
  const unique = new Map<string, [string, string]>();
  for (const [a, b] of pairs) unique.set(JSON.stringify([a, b]), [a, b]);
  return [...unique.values()].sort(compareKeys);
}

function countBy(values: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/**
 * SQLite's sessions: SQLite has no data-modifying CTEs, so a call is a few prepared statements
 * in one transaction, one per table for a whole group of turns; a group's messages go in one
 * insert. They run straight on the store's connection (`SqliteStatements`), not through Kysely. Recent history is kept in memory (`HistoryCache`), exact across connections and
 * processes through `PRAGMA data_version`.
 */
export class SqliteSessions implements SessionEngine {
  readonly #context: SqliteSessionsContext;
  /**
   * (tenant, session) and (tenant, user) pairs known to be in the stats tables: a group whose
   * pairs are all known skips those two inserts. Learned only from inserts that found every
   * pair present, so a rolled-back insert never teaches a pair.
   */
  readonly #knownPairs = { actorkit_stats_sessions: new Set<string>(), actorkit_stats_users: new Set<string>() };

  constructor(context: SqliteSessionsContext) {
    this.#context = context;
  }

  save(turns: readonly TurnToSave[], nowMs: number): Promise<void> {
    return this.#context.transaction(async (appended) => this.#save(turns, nowMs, appended));
  }

  append(tenantId: string, sessionId: string, messages: readonly StoredMessage[], now: string): Promise<void> {
    return this.#context.transaction(async (appended) =>
      this.#append([{ tenantId, sessionId, messages }], now, appended),
    );
  }

  async load(tenantId: string, sessionId: string, limit: number): Promise<HistoryRow[]> {
    const { historyCache, connection, statements } = this.#context;
    if (historyCache === undefined)
      return this.#context.run(async () =>
        connection.query<HistoryRow>(statements.loadHistory, [tenantId, sessionId, limit]).reverse(),
      );
    return this.#context.run(async () => this.#loadThroughCache(historyCache, tenantId, sessionId, limit));
  }

  /**
   * SQLite's `saveTurns` inside the call's transaction: the turn ids first (only turns not counted
   * before go on), each counted turn's idempotency completion, the group's messages (noted in
   * `appended`), then one statement per stats table for the whole group.
   */
  #save(turns: readonly TurnToSave[], nowMs: number, appended: HistoryAppend[]): void {
    const { connection, statements } = this.#context;
    const fresh = this.#keepUncounted(turns, nowMs);
    if (fresh.length === 0) return;
    const counted = new Set(fresh);
    this.#completeIdempotencyKeys(fresh, nowMs);
    const withMessages = turns.filter(
      (turn) => counted.has(turn) && turn.history !== undefined && turn.history.length > 0,
    );
    this.#append(
      withMessages.map((turn) => ({
        tenantId: turn.tenantId,
        sessionId: turn.sessionId,
        messages: turn.history ?? [],
      })),
      new Date(nowMs).toISOString(),
      appended,
    );
    const newSessions = this.#insertNewPairs(
      'actorkit_stats_sessions',
      fresh.map((r) => [r.tenantId, r.sessionId]),
    );
    const newUsers = this.#insertNewPairs(
      'actorkit_stats_users',
      fresh.map((r) => [r.tenantId, r.userIdentifier]),
    );
    // A known (tenant, user) pair's user was counted across tenants when the pair was added.
    let newAllUsers = 0;
    for (const chunk of chunks([...new Set(newUsers.map(([, user]) => user))].sort())) {
      newAllUsers += connection.query(statements.insertAllUsers(chunk.length), chunk).length;
    }
    const sessionsByTenant = countBy(newSessions.map(([tenant]) => tenant));
    const usersByTenant = countBy(newUsers.map(([tenant]) => tenant));
    const rows = [...tallyByTenant(fresh)].map(([tenantId, tally]) => [
      tenantId,
      tally.invocations,
      tally.errors,
      tally.inputTokens,
      tally.outputTokens,
      tally.toolCalls,
      tally.latencyMsTotal,
      tally.latencyMsMax,
      tally.firstInvokedAtMs ?? nowMs,
      tally.lastInvokedAtMs ?? nowMs,
      sessionsByTenant.get(tenantId) ?? 0,
      usersByTenant.get(tenantId) ?? 0,
    ]);
    for (const chunk of chunks(rows)) connection.query(statements.upsertCounters(chunk.length), chunk.flat());
    if (newAllUsers > 0) connection.query(statements.addTotalUsers, [newAllUsers]);
  }

  /** Completes the idempotency keys the turns carry, in one statement per chunk; a key given twice takes the later reply. */
  #completeIdempotencyKeys(turns: readonly TurnToSave[], nowMs: number): void {
    const byKey = new Map<string, unknown[]>();
    for (const { idempotency } of turns) {
      if (idempotency !== undefined)
        byKey.set(idempotency.key, [
          idempotency.key,
          idempotency.status,
          idempotency.body,
          nowMs + Math.ceil(idempotency.ttlMs),
        ]);
    }
    for (const chunk of chunks([...byKey.values()]))
      this.#context.connection.query(this.#context.statements.completeIdempotencyKeys(chunk.length), chunk.flat());
  }

  /** Notes the ids of `turns` as counted and returns the turns not counted before. */
  #keepUncounted(turns: readonly TurnToSave[], nowMs: number): TurnToSave[] {
    const byId = new Map<string, TurnToSave>();
    const fresh: TurnToSave[] = [];
    for (const turn of turns) {
      if (turn.id === undefined) fresh.push(turn);
      else byId.set(turn.id, turn);
    }
    for (const chunk of chunks([...byId.keys()].sort())) {
      const inserted = this.#context.connection.query<{ id: string }>(
        this.#context.statements.insertAppliedIds(chunk.length),
        chunk.flatMap((id) => [id, nowMs]),
      );
      for (const { id } of inserted) fresh.push(byId.get(id) as TurnToSave);
    }
    return fresh;
  }

  /** Inserts the (tenant, value) pairs not yet present and returns those it inserted. */
  #insertNewPairs(
    table: 'actorkit_stats_sessions' | 'actorkit_stats_users',
    pairs: Iterable<readonly [string, string]>,
  ): [string, string][] {
    const known = this.#knownPairs[table];
    const inserted: [string, string][] = [];
    for (const chunk of chunks(sortedPairs(pairs).filter((pair) => !known.has(JSON.stringify(pair))))) {
      const rows = this.#context.connection.query<{ tenant_id: string; value: string }>(
        this.#context.statements.insertPairs(table, chunk.length),
        chunk.flat(),
      );
      for (const row of rows) inserted.push([row.tenant_id, row.value]);
      // A chunk that inserted nothing found every pair committed before: they stay (pairs are never deleted).
      if (rows.length === 0) this.#rememberPairs(known, chunk);
    }
    return inserted;
  }

  #rememberPairs(known: Set<string>, pairs: readonly (readonly [string, string])[]): void {
    if (known.size + pairs.length > KNOWN_PAIRS) known.clear();
    for (const pair of pairs) known.add(JSON.stringify(pair));
  }

  /**
   * SQLite's append inside the call's transaction, for the turns of a whole group: one upsert of every session
   * (in key order) bumps each count by its messages and returns the new counts, then one insert
   * writes every message at the positions before it, in the order given (one statement each per
   * chunk of sessions or messages). Notes each session's append in `appended` for the history
   * cache.
   */
  #append(turns: readonly SessionAppend[], now: string, appended: HistoryAppend[]): void {
    const bySession = new Map<string, { tenantId: string; sessionId: string; rows: HistoryRow[] }>();
    for (const { tenantId, sessionId, messages } of turns) {
      const key = sessionKey(tenantId, sessionId);
      let session = bySession.get(key);
      if (session === undefined) {
        session = { tenantId, sessionId, rows: [] };
        bySession.set(key, session);
      }
      // Data that JSON cannot serialise (a function) is stored as null, as the driver binds undefined.
      for (const m of messages)
        session.rows.push({
          id: m.id,
          role: m.role,
          content: m.content,
          data: serialiseMessageData(m.data) ?? null,
          created_at: m.createdAt,
        });
    }
    const sessions = [...bySession.values()].sort((a, b) =>
      compareKeys([a.tenantId, a.sessionId], [b.tenantId, b.sessionId]),
    );
    const counts = new Map<string, number>();
    // The returned rows come in no set order and are told apart by their keys, which must come back as given.
    const alone = sessions.filter(
      ({ tenantId, sessionId }) => !comesBackAsGiven(tenantId) || !comesBackAsGiven(sessionId),
    );
    const together = alone.length === 0 ? sessions : sessions.filter((session) => !alone.includes(session));
    for (const batch of [...chunks(together), ...alone.map((session) => [session])]) {
      const upserted = this.#context.connection.query<{
        tenant_id: string;
        session_id: string;
        message_count: number | string;
      }>(
        this.#context.statements.upsertChatSessions(batch.length),
        batch.flatMap(({ tenantId, sessionId, rows }) => [tenantId, sessionId, rows.length, now, now]),
      );
      if (upserted.length !== batch.length)
        throw new Error(`The chat session upsert returned ${upserted.length} rows for ${batch.length} sessions`);
      if (batch.length === 1 && batch[0] !== undefined)
        counts.set(sessionKey(batch[0].tenantId, batch[0].sessionId), Number(upserted[0]?.message_count));
      else for (const row of upserted) counts.set(sessionKey(row.tenant_id, row.session_id), Number(row.message_count));
    }
    const values: unknown[][] = [];
    for (const { tenantId, sessionId, rows } of sessions) {
      const count = counts.get(sessionKey(tenantId, sessionId));
      if (count === undefined) throw new Error('The chat session upsert returned no row for a session');
      const firstPosition = count - rows.length;
      rows.forEach((r, index) =>
        values.push([tenantId, sessionId, firstPosition + index, r.id, r.role, r.content, r.data, r.created_at]),
      );
      appended.push({ tenantId, sessionId, rows, createdSession: firstPosition === 0 });
    }
    for (const chunk of chunks(values))
      this.#context.connection.query(this.#context.statements.insertMessages(chunk.length), chunk.flat());
  }

  /**
   * The last `limit` history rows of a session, oldest first, from the cache when it holds
   * them: it is emptied first when another connection has committed since the last read
   * (`PRAGMA data_version`), and whenever a statement here fails.
   */
  #loadThroughCache(cache: HistoryCache, tenantId: string, sessionId: string, limit: number): HistoryRow[] {
    const { connection, statements } = this.#context;
    try {
      const [version] = connection.query<{ data_version: number | string }>(statements.dataVersion, []);
      cache.syncDataVersion(Number(version?.data_version));
      const cached = cache.read(tenantId, sessionId, limit);
      if (cached !== undefined) return cached;
      const rows = connection.query<HistoryRow>(statements.loadHistory, [tenantId, sessionId, limit]).reverse();
      cache.fill(tenantId, sessionId, limit, rows);
      return rows;
    } catch (error) {
      cache.clear();
      throw error;
    }
  }
}
