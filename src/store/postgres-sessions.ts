import type { HistoryRow } from './history-cache.js';
import type { SessionEngine } from './session-engine.js';
import type { TurnToSave, StoredMessage } from './store.js';
import { parseTimestamp, serialiseMessageData } from './store-input-validation.js';

/** Runs one of the per-invoke statements of `invokeStatements('postgres')`, prepared once per connection. */
export type PostgresStatement = <Row>(
  name: 'loadHistory' | 'appendMessages' | 'saveTurns',
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

/**
 * PostgreSQL's sessions: every call one statement (data-modifying CTEs over `unnest`ed arrays,
 * see `invokeStatements`), hence one round trip and atomic by itself; no history cache, since
 * replicas write the same database.
 * @param statement runs a named per-invoke statement
 */
export function postgresSessions(statement: PostgresStatement): SessionEngine {
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
      return (await statement<HistoryRow>('loadHistory', [tenantId, sessionId, limit])).reverse();
    },
  };
}
