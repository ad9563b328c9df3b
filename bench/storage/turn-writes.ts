import { timeOrderedId } from '../../src/core/time-ordered-id.js';
import { invokeStatements } from '../../src/store/invoke-statements.js';
import type { TurnToSave, StoredMessage } from '../../src/store/store.js';

/** The sessions the turns are spread over, as the bench's load. */
const SESSIONS = 200;
/** The users the turns are spread over, as the bench's load. */
const USERS = 50;
const TENANT = 'default';

/** A prepared statement of any SQLite driver of the storage limit (better-sqlite3's API; `node:sqlite` binds the same spread parameters). */
export interface Statement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}
/** An SQLite connection of libSQL, better-sqlite3 or `node:sqlite`. */
export interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}
/** The store's SQLite statements, as `SqlStore` runs them. */
export const statements = invokeStatements('sqlite');

/** One turn's facts, as the group commit hands them to the store: a record with its two messages. */
export interface Turn {
  readonly record: TurnToSave & { readonly id: string; readonly history: readonly StoredMessage[] };
}

/**
 * Turn `index` of the bench's load: session `index % 200`, user `index % 50`, the user's message
 * and the offline model's answer; the record id time-ordered, as the group commit makes it
 * (`timeOrderedId`).
 */
export function makeTurn(index: number): Turn {
  const now = new Date().toISOString();
  const message = `Hello from the bench, turn ${index}`;
  return {
    record: {
      id: timeOrderedId(),
      tenantId: TENANT,
      sessionId: `bench-session-${index % SESSIONS}`,
      userIdentifier: `bench-user-${index % USERS}`,
      outcome: 'success',
      inputTokens: 12,
      outputTokens: 6,
      toolCalls: 0,
      latencyMs: 1,
      finishedAt: now,
      history: [
        { id: crypto.randomUUID(), role: 'user', content: message, createdAt: now },
        { id: crypto.randomUUID(), role: 'assistant', content: `[offline model] You said: ${message}`, createdAt: now },
      ],
    },
  };
}

/** Prepares each SQL text once per connection, as the store's statement cache does. */
export function preparer(connection: Connection): (sql: string) => Statement {
  const prepared = new Map<string, Statement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
}

const counterRow = (turns: readonly Turn[], nowMs: number, sessions: number, users: number) => [
  TENANT,
  turns.length,
  0,
  turns.reduce((sum, turn) => sum + turn.record.inputTokens, 0),
  turns.reduce((sum, turn) => sum + turn.record.outputTokens, 0),
  0,
  turns.reduce((sum, turn) => sum + turn.record.latencyMs, 0),
  Math.max(...turns.map((turn) => turn.record.latencyMs)),
  nowMs,
  nowMs,
  sessions,
  users,
];

const sortedDistinct = (pairs: readonly (readonly [string, string])[]) =>
  [...new Map(pairs.map((pair) => [`${pair[0]}\u0000${pair[1]}`, pair])).values()].sort((a, b) =>
    a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1,
  );

/** Records the turns' ids as counted (in key order, as the store does) and returns the turns not counted before. */
function keepUncounted(prepare: (sql: string) => Statement, turns: readonly Turn[], nowMs: number): Turn[] {
  const ids = turns.map((turn) => turn.record.id).sort();
  const fresh = new Set(
    (prepare(statements.insertAppliedIds(ids.length)).all(...ids.flatMap((id) => [id, nowMs])) as { id: string }[]).map(
      (row) => row.id,
    ),
  );
  return turns.filter((turn) => fresh.has(turn.record.id));
}

/** The end of both writes: the new (tenant, user) pairs, the users across tenants, the tenant's counters. */
function countUsersAndTurns(
  prepare: (sql: string) => Statement,
  counted: readonly Turn[],
  nowMs: number,
  newSessions: number,
): void {
  const users = sortedDistinct(counted.map((turn) => [turn.record.tenantId, turn.record.userIdentifier] as const));
  const newUsers = prepare(statements.insertPairs('actorkit_stats_users', users.length)).all(...users.flat()) as {
    value: string;
  }[];
  let newAllUsers = 0;
  if (newUsers.length > 0) {
    const names = [...new Set(newUsers.map((row) => row.value))].sort();
    newAllUsers = prepare(statements.insertAllUsers(names.length)).all(...names).length;
  }
  prepare(statements.upsertCounters(1)).run(...counterRow(counted, nowMs, newSessions, newUsers.length));
  if (newAllUsers > 0) prepare(statements.addTotalUsers).run(newAllUsers);
}

/**
 * Appends the turns' messages as the store does for a group: one upsert of every session (in
 * key order) returning the new counts, then one insert of every message at the positions
 * before them. Returns how many sessions got their first messages.
 */
function appendTurns(prepare: (sql: string) => Statement, counted: readonly Turn[], now: string): number {
  const added = new Map<string, number>();
  for (const { record } of counted)
    added.set(record.sessionId, (added.get(record.sessionId) ?? 0) + record.history.length);
  const sessions = [...added].sort(([a], [b]) => (a < b ? -1 : 1));
  const counts = prepare(statements.upsertChatSessions(sessions.length)).all(
    ...sessions.flatMap(([session, count]) => [TENANT, session, count, now, now]),
  ) as {
    session_id: string;
    message_count: number;
  }[];
  const next = new Map(counts.map((row) => [row.session_id, Number(row.message_count) - added.get(row.session_id)!]));
  const newSessions = [...next.values()].filter((first) => first === 0).length;
  const rows = counted.flatMap(({ record }) =>
    record.history.flatMap((m) => {
      const position = next.get(record.sessionId)!;
      next.set(record.sessionId, position + 1);
      return [record.tenantId, record.sessionId, position, m.id, m.role, m.content, null, m.createdAt];
    }),
  );
  prepare(statements.insertMessages(rows.length / 8)).run(...rows);
  return newSessions;
}

/**
 * The store's SQLite write of a group of records, statement for statement (`SqlStore`'s
 * `saveTurns` on SQLite): the record ids, the group's sessions' counts and messages
 * (`appendTurns`), the new (tenant, session) and (tenant, user) pairs, the users across
 * tenants, the tenant's counters.
 */
export function exactWrite(prepare: (sql: string) => Statement, turns: readonly Turn[]): void {
  const nowMs = Date.now();
  const counted = keepUncounted(prepare, turns, nowMs);
  if (counted.length === 0) return;
  appendTurns(prepare, counted, new Date(nowMs).toISOString());
  const sessions = sortedDistinct(counted.map((turn) => [turn.record.tenantId, turn.record.sessionId] as const));
  const newSessions = prepare(statements.insertPairs('actorkit_stats_sessions', sessions.length)).all(
    ...sessions.flat(),
  ).length;
  countUsersAndTurns(prepare, counted, nowMs, newSessions);
}

/**
 * The same durable data in the fewest statements: no `actorkit_stats_sessions` row: a session is new to the
 * counters when its first message lands at position 0 (true of every turn that stores
 * history; a failed turn stores none and would still need the pair). Users, users across
 * tenants and the counters as in the exact write.
 */
export function leanWrite(prepare: (sql: string) => Statement, turns: readonly Turn[]): void {
  const nowMs = Date.now();
  const counted = keepUncounted(prepare, turns, nowMs);
  if (counted.length === 0) return;
  const newSessions = appendTurns(prepare, counted, new Date(nowMs).toISOString());
  countUsersAndTurns(prepare, counted, nowMs, newSessions);
}
