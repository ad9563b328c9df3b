import type { StoreEngine } from './store-migrations.js';

/**
 * The SQL text of the statements every invoke runs (history read and write, stats write),
 * written out once per engine and row count and kept, so a call binds parameters to ready text
 * instead of having Kysely build and compile the query anew. On PostgreSQL, each write is one
 * statement (data-modifying CTEs over `unnest`ed arrays), hence one round trip and atomic by
 * itself; SQLite has no data-modifying CTEs, so there a write is one multi-row statement per
 * table (for a whole group of records) in one transaction.
 */
export interface InvokeStatements {
  /** SQLite: params tenant, session, limit. Rows: id, role, content, data, created_at, newest first. */
  readonly loadHistory: string;
  /**
   * PostgreSQL only: the session's identity and its messages after a position, in one round
   * trip. Params: tenant, session, position (-1 for all), limit. Rows, newest first, at most
   * `limit`: session_created_at (null when there is no such session), anchor_id (the id of the
   * message at the position given, null when none), then position, id, role, content, data,
   * created_at of each message after the position; one row with null message columns when
   * there is none.
   */
  readonly loadHistoryAfter: string;
  /**
   * PostgreSQL only: appends a turn in one statement. Params: tenant, session, message count,
   * now (ISO), then text arrays of ids, roles, contents, data (JSON or null), created_at.
   */
  readonly appendMessages: string;
  /**
   * PostgreSQL only: counts records in one statement, each id once, and appends the history of
   * each record it counts. Params: arrays of id (null for none), tenant, session, user, errors
   * (0/1), input tokens, output tokens, tool calls, latency ms, finished-at ms; then now ms;
   * then the messages as arrays of their record's 1-based index, id, role, content, data (JSON
   * or null), created_at; then now (ISO); then the idempotency completions as arrays of their
   * record's 1-based index, key, status, body, expiry ms.
   */
  readonly saveTurns: string;
  /** SQLite: completes `rows` claimed idempotency keys with their replies, 4 params each: key, status, body, expiry ms. */
  completeIdempotencyKeys(rows: number): string;
  /**
   * SQLite: the connection's `PRAGMA data_version`, which changes when another connection (of
   * this process or another) commits; this connection's own commits leave it as it is.
   */
  readonly dataVersion: string;
  /**
   * SQLite: bumps `rows` sessions' message counts (each session once), 5 params each: tenant,
   * session, count, now (ISO), now (ISO). Rows: tenant_id, session_id, message_count (the new
   * count), in no particular order.
   */
  upsertChatSessions(rows: number): string;
  /** SQLite: `rows` messages, 8 params each: tenant, session, position, id, role, content, data, created_at. */
  insertMessages(rows: number): string;
  /** SQLite: `rows` record ids, 2 params each (id, applied ms); returns the ids not counted before. */
  insertAppliedIds(rows: number): string;
  /** SQLite: `rows` (tenant, value) pairs; returns the pairs not present before. */
  insertPairs(table: 'actorkit_stats_sessions' | 'actorkit_stats_users', rows: number): string;
  /** SQLite: `rows` user identifiers; returns those not present before. */
  insertAllUsers(rows: number): string;
  /** SQLite: `rows` tenants' tallies, 12 params each in `COUNTER_COLUMNS` order, added to the counters. */
  upsertCounters(rows: number): string;
  /** SQLite: adds the param to the number of distinct users across tenants. */
  readonly addTotalUsers: string;
}

/** The columns of `actorkit_stats_counters`, in the order `upsertCounters` binds them. */
const COUNTER_COLUMNS = [
  'tenant_id',
  'invocations',
  'errors',
  'input_tokens',
  'output_tokens',
  'tool_calls',
  'latency_ms_total',
  'latency_ms_max',
  'first_invoked_at_ms',
  'last_invoked_at_ms',
  'sessions',
  'users',
] as const;

const ADDED_COUNTERS = [
  'invocations',
  'errors',
  'input_tokens',
  'output_tokens',
  'tool_calls',
  'latency_ms_total',
  'sessions',
  'users',
] as const;

/** `(?, ?), (?, ?)` for `rows` rows of `columns` SQLite parameters. */
function valueRows(rows: number, columns: number): string {
  const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => row).join(', ');
}

/** Caches the text `build` makes for each row count. */
function perRowCount(build: (rows: number) => string): (rows: number) => string {
  const texts = new Map<number, string>();
  return (rows) => {
    let text = texts.get(rows);
    if (text === undefined) {
      text = build(rows);
      texts.set(rows, text);
    }
    return text;
  };
}

const counterUpdates = (pick: (column: string, operator: '<' | '>') => string) =>
  [
    ...ADDED_COUNTERS.map((column) => `${column} = c.${column} + excluded.${column}`),
    `latency_ms_max = ${pick('latency_ms_max', '>')}`,
    `first_invoked_at_ms = ${pick('first_invoked_at_ms', '<')}`,
    `last_invoked_at_ms = ${pick('last_invoked_at_ms', '>')}`,
  ].join(', ');

const postgresAppendMessages = `with session as (
  insert into actorkit_chat_sessions as s (tenant_id, session_id, message_count, created_at, updated_at)
  values ($1::text, $2::text, $3::bigint, $4::text, $4::text)
  on conflict (tenant_id, session_id) do update
    set message_count = s.message_count + excluded.message_count, updated_at = excluded.updated_at
  returning message_count
)
insert into actorkit_chat_messages (tenant_id, session_id, position, id, role, content, data, created_at)
select $1::text, $2::text, session.message_count - $3::bigint + m.ordinal - 1, m.id, m.role, m.content, m.data, m.created_at
from session, unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
  with ordinality as m(id, role, content, data, created_at, ordinal)`;

// Rows are inserted in key order, as the Kysely version did, so concurrent replicas take row
// locks in the same order. Users across tenants are offered only when their (tenant, user) pair
// is new: a known pair's user was counted across tenants in the same statement that added it.
const postgresSaveTurns = `with input as (
  select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::double precision[], $10::bigint[])
    with ordinality as r(id, tenant_id, session_id, user_identifier, errors, input_tokens, output_tokens, tool_calls, latency_ms, finished_ms, ordinal)
),
applied as (
  insert into actorkit_stats_applied (id, applied_at_ms)
  select id, $11::bigint from input where id is not null order by id
  on conflict (id) do nothing
  returning id
),
fresh as (
  select * from input where id is null or id in (select id from applied)
),
turn_messages as (
  select f.tenant_id, f.session_id, m.id, m.role, m.content, m.data, m.created_at, m.ordinal
  from unnest($12::bigint[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[])
    with ordinality as m(record_index, id, role, content, data, created_at, ordinal)
  join fresh f on f.ordinal = m.record_index
),
turn_sessions as (
  select tenant_id, session_id, count(*) as added from turn_messages group by tenant_id, session_id
),
chat_sessions as (
  insert into actorkit_chat_sessions as s (tenant_id, session_id, message_count, created_at, updated_at)
  select tenant_id, session_id, added, $18::text, $18::text from turn_sessions order by tenant_id, session_id
  on conflict (tenant_id, session_id) do update
    set message_count = s.message_count + excluded.message_count, updated_at = excluded.updated_at
  returning tenant_id, session_id, message_count
),
chat_messages as (
  insert into actorkit_chat_messages (tenant_id, session_id, position, id, role, content, data, created_at)
  select m.tenant_id, m.session_id,
    s.message_count - t.added + row_number() over (partition by m.tenant_id, m.session_id order by m.ordinal) - 1,
    m.id, m.role, m.content, m.data, m.created_at
  from turn_messages m join turn_sessions t using (tenant_id, session_id) join chat_sessions s using (tenant_id, session_id)
),
new_sessions as (
  insert into actorkit_stats_sessions (tenant_id, session_id)
  select distinct tenant_id, session_id from fresh order by tenant_id, session_id
  on conflict (tenant_id, session_id) do nothing
  returning tenant_id
),
new_users as (
  insert into actorkit_stats_users (tenant_id, user_identifier)
  select distinct tenant_id, user_identifier from fresh order by tenant_id, user_identifier
  on conflict (tenant_id, user_identifier) do nothing
  returning tenant_id, user_identifier
),
new_all_users as (
  insert into actorkit_stats_all_users (user_identifier)
  select distinct user_identifier from new_users order by user_identifier
  on conflict (user_identifier) do nothing
  returning user_identifier
),
tallies as (
  select tenant_id, count(*) as invocations, sum(errors) as errors, sum(input_tokens) as input_tokens,
    sum(output_tokens) as output_tokens, sum(tool_calls) as tool_calls, sum(latency_ms) as latency_ms_total,
    max(latency_ms) as latency_ms_max, min(finished_ms) as first_invoked_at_ms, max(finished_ms) as last_invoked_at_ms
  from fresh group by tenant_id
),
counters as (
  insert into actorkit_stats_counters as c (${COUNTER_COLUMNS.join(', ')})
  select t.tenant_id, t.invocations, t.errors, t.input_tokens, t.output_tokens, t.tool_calls, t.latency_ms_total,
    t.latency_ms_max, t.first_invoked_at_ms, t.last_invoked_at_ms,
    (select count(*) from new_sessions n where n.tenant_id = t.tenant_id),
    (select count(*) from new_users n where n.tenant_id = t.tenant_id)
  from tallies t order by t.tenant_id
  on conflict (tenant_id) do update set ${counterUpdates((column, operator) => `${operator === '>' ? 'greatest' : 'least'}(c.${column}, excluded.${column})`)}
  returning tenant_id
),
completions as (
  update actorkit_idempotency_keys k set state = 'completed', status = c.status, body = c.body, expires_at_ms = c.expires_at_ms
  from unnest($19::bigint[], $20::text[], $21::integer[], $22::text[], $23::bigint[]) as c(record_index, key, status, body, expires_at_ms)
  join fresh f on f.ordinal = c.record_index
  where k.key = c.key
)
update actorkit_stats_totals set users = users + (select count(*) from new_all_users)
where id = 1 and exists (select 1 from new_all_users)`;

const sqliteLoadHistory =
  'select id, role, content, data, created_at from actorkit_chat_messages where tenant_id = ? and session_id = ? order by position desc limit ?';

const postgresLoadHistoryAfter = `select s.created_at as session_created_at, a.id as anchor_id,
  m.position, m.id, m.role, m.content, m.data, m.created_at
from (select $1::text as tenant_id, $2::text as session_id) k
left join actorkit_chat_sessions s on s.tenant_id = k.tenant_id and s.session_id = k.session_id
left join actorkit_chat_messages a on a.tenant_id = k.tenant_id and a.session_id = k.session_id and a.position = $3::bigint
left join lateral (
  select position, id, role, content, data, created_at from actorkit_chat_messages
  where tenant_id = k.tenant_id and session_id = k.session_id and position > $3::bigint
  order by position desc limit $4::bigint
) m on true
order by m.position desc`;

const notOnPostgres = (name: string) => () => {
  throw new Error(`${name} is an SQLite statement`);
};

/** The statements of `engine`; call once per store. */
export function invokeStatements(engine: StoreEngine): InvokeStatements {
  if (engine === 'postgres') {
    return {
      loadHistory: '',
      loadHistoryAfter: postgresLoadHistoryAfter,
      appendMessages: postgresAppendMessages,
      saveTurns: postgresSaveTurns,
      completeIdempotencyKeys: notOnPostgres('completeIdempotencyKeys'),
      dataVersion: '',
      upsertChatSessions: notOnPostgres('upsertChatSessions'),
      insertMessages: notOnPostgres('insertMessages'),
      insertAppliedIds: notOnPostgres('insertAppliedIds'),
      insertPairs: notOnPostgres('insertPairs'),
      insertAllUsers: notOnPostgres('insertAllUsers'),
      upsertCounters: notOnPostgres('upsertCounters'),
      addTotalUsers: '',
    };
  }
  const pairs = {
    actorkit_stats_sessions: perRowCount(
      (rows) =>
        `insert into actorkit_stats_sessions (tenant_id, session_id) values ${valueRows(rows, 2)} on conflict (tenant_id, session_id) do nothing returning tenant_id, session_id as value`,
    ),
    actorkit_stats_users: perRowCount(
      (rows) =>
        `insert into actorkit_stats_users (tenant_id, user_identifier) values ${valueRows(rows, 2)} on conflict (tenant_id, user_identifier) do nothing returning tenant_id, user_identifier as value`,
    ),
  };
  return {
    loadHistory: sqliteLoadHistory,
    loadHistoryAfter: '',
    appendMessages: '',
    saveTurns: '',
    // A VALUES subquery's columns are column1, column2, …: key, status, body, expiry.
    completeIdempotencyKeys: perRowCount(
      (rows) =>
        `update actorkit_idempotency_keys set state = 'completed', status = c.column2, body = c.column3, expires_at_ms = c.column4 from (values ${valueRows(rows, 4)}) as c where actorkit_idempotency_keys.key = c.column1`,
    ),
    dataVersion: 'PRAGMA data_version',
    upsertChatSessions: perRowCount(
      (
        rows,
      ) => `insert into actorkit_chat_sessions as s (tenant_id, session_id, message_count, created_at, updated_at) values ${valueRows(rows, 5)}
on conflict (tenant_id, session_id) do update set message_count = s.message_count + excluded.message_count, updated_at = excluded.updated_at
returning tenant_id, session_id, message_count`,
    ),
    insertMessages: perRowCount(
      (rows) =>
        `insert into actorkit_chat_messages (tenant_id, session_id, position, id, role, content, data, created_at) values ${valueRows(rows, 8)}`,
    ),
    insertAppliedIds: perRowCount(
      (rows) =>
        `insert into actorkit_stats_applied (id, applied_at_ms) values ${valueRows(rows, 2)} on conflict (id) do nothing returning id`,
    ),
    insertPairs: (table, rows) => pairs[table](rows),
    insertAllUsers: perRowCount(
      (rows) =>
        `insert into actorkit_stats_all_users (user_identifier) values ${valueRows(rows, 1)} on conflict (user_identifier) do nothing returning user_identifier`,
    ),
    upsertCounters: perRowCount(
      (rows) =>
        `insert into actorkit_stats_counters as c (${COUNTER_COLUMNS.join(', ')}) values ${valueRows(rows, COUNTER_COLUMNS.length)}
on conflict (tenant_id) do update set ${counterUpdates((column, operator) => `case when excluded.${column} ${operator} c.${column} then excluded.${column} else c.${column} end`)}`,
    ),
    addTotalUsers: 'update actorkit_stats_totals set users = users + ? where id = 1',
  };
}
