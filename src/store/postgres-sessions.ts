import type { HistoryRow } from './history-cache.js';
import type { SessionEngine } from './session-engine.js';
import type { TurnToSave, StoredMessage } from './store.js';
import { parseTimestamp, serialiseMessageData } from './store-input-validation.js';

/** Runs one of the per-invoke statements of `invokeStatements('postgres')`, prepared once per connection. */
export type PostgresStatement = <Row>(
  name: 'loadHistory' | 'appendMessages' | 'saveTurns',
  parameters: readonly unknown[],
) => Promise<Row[]>;

/** The records' history as the column arrays PostgreSQL's `saveTurns` statement unnests after the records'. */
function historyColumns(records: readonly TurnToSave[]): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], [], []];
  records.forEach((record, index) => {
    for (const message of record.history ?? []) {
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

/** The records' idempotency completions as the column arrays PostgreSQL's `saveTurns` statement unnests last. */
function completionColumns(records: readonly TurnToSave[], nowMs: number): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], []];
  records.forEach(({ idempotency }, index) => {
    if (idempotency === undefined) return;
    [index + 1, idempotency.key, idempotency.status, idempotency.body, nowMs + Math.ceil(idempotency.ttlMs)].forEach(
      (value, column) => columns[column]!.push(value),
    );
  });
  return columns;
}

/** The records as the column arrays PostgreSQL's `saveTurns` statement unnests. */
function recordColumns(records: readonly TurnToSave[]): unknown[][] {
  const column = <T>(pick: (record: TurnToSave) => T) => records.map(pick);
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

/**
 * PostgreSQL's sessions: every call one statement (data-modifying CTEs over `unnest`ed arrays,
 * see `invokeStatements`), hence one round trip and atomic by itself; no history cache, since
 * replicas write the same database.
 * @param statement runs a named per-invoke statement
 */
export function postgresSessions(statement: PostgresStatement): SessionEngine {
  return {
    async record(records, nowMs) {
      await statement('saveTurns', [
        ...recordColumns(records),
        nowMs,
        ...historyColumns(records),
        new Date(nowMs).toISOString(),
        ...completionColumns(records, nowMs),
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
      return (await statement<HistoryRow>('loadHistory', [tenantId, sessionId, limit])).reverse();
    },
  };
}
