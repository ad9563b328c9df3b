import type { HistoryCache, HistoryRow } from './history-cache.js';
import type { SessionEngine } from './session-engine.js';
import type { TurnToSave, StoredMessage } from './store.js';
import { parseTimestamp, serialiseMessageData } from './store-input-validation.js';

/** Runs one of the per-invoke statements of `invokeStatements('postgres')`, prepared once per connection. */
export type PostgresStatement = <Row>(
  name: 'loadHistoryAfter' | 'appendMessages' | 'saveTurns',
  parameters: readonly unknown[],
) => Promise<Row[]>;

/** The turns' messages as the column arrays PostgreSQL's `saveTurns` statement unnests after the turns'. */
function historyColumns(turns: readonly TurnToSave[]): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], [], []];
  turns.forEach((turn, index) => {
    for (const message of turn.history ?? []) {
      const row = [
        index + 1,
        message.id,
        message.role,
        message.content,
        serialiseMessageData(message.data),
        message.createdAt,
      ];
      row.forEach((value, column) => columns[column]!.push(value));
    }
  });
  return columns;
}

/** The turns' idempotency completions as the column arrays PostgreSQL's `saveTurns` statement unnests last. */
function completionColumns(turns: readonly TurnToSave[], nowMs: number): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], []];
  turns.forEach(({ idempotency }, index) => {
    if (idempotency === undefined) return;
    [index + 1, idempotency.key, idempotency.status, idempotency.body, nowMs + Math.ceil(idempotency.ttlMs)].forEach(
      (value, column) => columns[column]!.push(value),
    );
  });
  return columns;
}

/** The turns as the column arrays PostgreSQL's `saveTurns` statement unnests. */
function turnColumns(turns: readonly TurnToSave[]): unknown[][] {
  const column = <T>(pick: (turn: TurnToSave) => T) => turns.map(pick);
  return [
    column((r) => r.id ?? null),
    column((r) => r.tenantId),
    column((r) => r.sessionId),
    column((r) => r.userIdentifier),
    column((r) => (r.outcome === 'error' ? 1 : 0)),
    column((r) => r.inputTokens),
    column((r) => r.outputTokens),
    column((r) => r.toolCalls),
    column((r) => r.latencyMs),
    column((r) => parseTimestamp(r.finishedAt, 'finishedAt')),
  ];
}

/** A row of `loadHistoryAfter`: the session's identity, and one message after the position asked (or none). */
interface HistoryAfterRow {
  readonly session_created_at: string | null;
  readonly anchor_id: string | null;
  readonly position: string | number | null;
  readonly id: string | null;
  readonly role: string;
  readonly content: string;
  readonly data: string | null;
  readonly created_at: string;
}

/**
 * What a cached tail of PostgreSQL history is checked against: the session it was read from
 * (its `created_at`) and its newest message (position and id). A session deleted and created
 * again, or whose newest cached message is gone, fails the check.
 */
interface TailTag {
  readonly sessionCreatedAt: string;
  readonly lastPosition: number;
  readonly lastId: string;
}

/** The messages of `loadHistoryAfter`'s rows, oldest first, and the tag of the tail they end. */
function messagesAfter(rows: readonly HistoryAfterRow[]): {
  messages: HistoryRow[];
  newest?: HistoryAfterRow & { readonly id: string; readonly session_created_at: string };
} {
  const messages: HistoryRow[] = [];
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const { id, role, content, data, created_at } = rows[index]!;
    if (id !== null) messages.push({ id, role, content, data, created_at });
  }
  const newest = rows[0];
  if (newest === undefined || newest.id === null || newest.session_created_at === null) return { messages };
  return { messages, newest: newest as HistoryAfterRow & { readonly id: string; readonly session_created_at: string } };
}

/**
 * The last `limit` messages of a session, oldest first, through `cache`: each read is one round
 * trip that returns only the messages after the newest cached one, with what tells whether the
 * cached tail still belongs to the session (see `TailTag`), so appends and deletions by other
 * replicas are seen. A second read of the whole tail follows only when the check fails or the
 * cache holds fewer messages than asked.
 */
async function loadThroughCache(
  statement: PostgresStatement,
  cache: HistoryCache,
  tenantId: string,
  sessionId: string,
  limit: number,
): Promise<HistoryRow[]> {
  const read = (after: number) => statement<HistoryAfterRow>('loadHistoryAfter', [tenantId, sessionId, after, limit]);
  const cached = cache.tail(tenantId, sessionId);
  const tag = cached?.tag as TailTag | undefined;
  let rows = await read(tag?.lastPosition ?? -1);
  let known: readonly HistoryRow[] = [];
  if (cached !== undefined && tag !== undefined) {
    const after = messagesAfter(rows).messages.length;
    const holds = rows[0]?.session_created_at === tag.sessionCreatedAt && rows[0]?.anchor_id === tag.lastId;
    // `limit` messages after the tail: those are the answer, whatever came before them.
    if (holds && after < limit) known = cached.rows;
    if (!holds || (after < limit && !cached.whole && known.length + after < limit)) {
      known = [];
      rows = await read(-1);
    }
  }
  if ((rows[0]?.session_created_at ?? null) === null) {
    cache.forget(tenantId, sessionId);
    return [];
  }
  const { messages, newest } = messagesAfter(rows);
  // The answer is taken before the cache changes: `known` is the cached tail itself.
  const answer = lastMessages(known, messages, limit);
  if (answer.length === 0) cache.forget(tenantId, sessionId);
  else if (newest !== undefined) {
    const next: TailTag = {
      sessionCreatedAt: newest.session_created_at,
      lastPosition: Number(newest.position),
      lastId: newest.id,
    };
    // Rows already held are not copied nor checked again: only the new ones are added.
    if (known.length > 0) cache.extend(tenantId, sessionId, limit, messages, next, tag);
    else cache.fill(tenantId, sessionId, limit, messages, next);
  }
  // No message after the cached tail: it stays as it is, with its tag.
  return answer;
}

/** The last `limit` messages of `known` followed by `after`, in a new array. */
function lastMessages(known: readonly HistoryRow[], after: readonly HistoryRow[], limit: number): HistoryRow[] {
  const fromKnown = Math.max(0, limit - after.length);
  const head = fromKnown === 0 ? [] : known.slice(Math.max(0, known.length - fromKnown));
  return head.concat(after.length > limit ? after.slice(after.length - limit) : after);
}

/**
 * PostgreSQL's sessions: every call one statement (data-modifying CTEs over `unnest`ed arrays,
 * see `invokeStatements`), hence one round trip and atomic by itself. Recent history is kept in
 * `historyCache` when given, checked against the database on every read (see
 * `loadThroughCache`), since replicas write the same database.
 * @param statement runs a named per-invoke statement
 * @param historyCache recent history in memory, or undefined when off
 */
export function postgresSessions(statement: PostgresStatement, historyCache?: HistoryCache): SessionEngine {
  return {
    async save(turns, nowMs) {
      await statement('saveTurns', [
        ...turnColumns(turns),
        nowMs,
        ...historyColumns(turns),
        new Date(nowMs).toISOString(),
        ...completionColumns(turns, nowMs),
      ]);
    },
    async append(tenantId, sessionId, messages, now) {
      const column = <T>(pick: (message: StoredMessage) => T) => messages.map(pick);
      await statement('appendMessages', [
        tenantId,
        sessionId,
        messages.length,
        now,
        column((m) => m.id),
        column((m) => m.role),
        column((m) => m.content),
        column((m) => serialiseMessageData(m.data)),
        column((m) => m.createdAt),
      ]);
    },
    async load(tenantId, sessionId, limit) {
      if (historyCache !== undefined) return loadThroughCache(statement, historyCache, tenantId, sessionId, limit);
      const { messages } = messagesAfter(
        await statement<HistoryAfterRow>('loadHistoryAfter', [tenantId, sessionId, -1, limit]),
      );
      return messages;
    },
  };
}
