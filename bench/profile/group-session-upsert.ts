/**
 * Whether one multi-row statement per group pays against one statement per turn, on each SQLite
 * driver the store runs on (issue 30, item 2), measured outside the actor: on a migrated store
 * file with `--sessions` sessions already holding history, groups of `--group` turns (one
 * distinct session each, as the bench's load sends them) write their sessions' counts in one
 * transaction, either one upsert per session (the store's write before the group-write
 * change) or one multi-row upsert returning every session's count (`upsertChatSessions`),
 * followed in both cases by the same one multi-row insert of the group's messages. Interleaved
 * rounds; CPU µs per turn from `process.cpuUsage()` (the whole process).
 *
 * Run with the runtime of the driver: `npx tsx bench/profile/group-session-upsert.ts` (Node 20:
 * libSQL), `test/runtimes/node_modules/.bin/node node_modules/tsx/dist/cli.mjs
 * bench/profile/group-session-upsert.ts` (Node 24: `node:sqlite` and libSQL),
 * `test/runtimes/node_modules/.bin/bun bench/profile/group-session-upsert.ts` (`bun:sqlite`).
 * Options: `--groups 400` per round, `--group 32`, `--rounds 7`, `--sessions 200`; `--driver
 * node:sqlite|libsql|bun:sqlite` and `--only 'per session'|multi-row` run one driver and one
 * variant and print nothing, for counting instructions under valgrind.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { invokeStatements } from '../../src/store/invoke-statements.js';
import { median } from '../measure/median.js';

const { values } = parseArgs({
  options: {
    groups: { type: 'string', default: '400' },
    group: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '7' },
    sessions: { type: 'string', default: '200' },
    only: { type: 'string' },
    driver: { type: 'string' },
  },
});
const GROUPS = Number(values.groups);
const GROUP = Number(values.group);
const ROUNDS = Number(values.rounds);
const SESSIONS = Number(values.sessions);
const statements = invokeStatements('sqlite');
const require = createRequire(import.meta.url);

interface Statement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}
interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}

const host = globalThis as { Bun?: unknown; process?: { getBuiltinModule?: (id: string) => unknown } };
const drivers: [string, (path: string) => Connection][] = [];
if (host.Bun !== undefined) {
  const { Database } = require('bun:sqlite') as { Database: new (path: string) => Connection };
  drivers.push(['bun:sqlite', (path) => new Database(path)]);
} else {
  const nodeSqlite = host.process?.getBuiltinModule?.('node:sqlite') as
    | { DatabaseSync: new (path: string) => Connection }
    | undefined;
  if (nodeSqlite !== undefined) drivers.push(['node:sqlite', (path) => new nodeSqlite.DatabaseSync(path)]);
  const Libsql = require('libsql') as new (path: string) => Connection;
  drivers.push(['libsql', (path) => new Libsql(path)]);
}

const SCHEMA = `
create table actorkit_chat_sessions (tenant_id text not null, session_id text not null, message_count bigint not null, created_at text not null, updated_at text not null, constraint actorkit_chat_sessions_pk primary key (tenant_id, session_id));
create table actorkit_chat_messages (tenant_id text not null, session_id text not null, position bigint not null, id text not null, role text not null, content text not null, data text, created_at text not null, constraint actorkit_chat_messages_pk primary key (tenant_id, session_id, position));`;

/** The store's session upsert before the group write: one session, returning its new count. */
const ONE_SESSION_UPSERT = `insert into actorkit_chat_sessions as s (tenant_id, session_id, message_count, created_at, updated_at) values (?, ?, ?, ?, ?)
on conflict (tenant_id, session_id) do update set message_count = s.message_count + excluded.message_count, updated_at = excluded.updated_at
returning message_count`;

type Variant = 'per session' | 'multi-row';

function writer(connection: Connection): (variant: Variant, first: number) => void {
  const prepared = new Map<string, Statement>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (statement === undefined) prepared.set(sql, (statement = connection.prepare(sql)));
    return statement;
  };
  return (variant, first) => {
    const now = new Date().toISOString();
    const sessions = Array.from(
      { length: GROUP },
      (_, index) => `bench-session-${String((first + index) % SESSIONS).padStart(4, '0')}`,
    ).sort();
    const firstPosition = new Map<string, number>();
    connection.exec('BEGIN IMMEDIATE');
    if (variant === 'per session') {
      for (const session of sessions) {
        const [row] = prepare(ONE_SESSION_UPSERT).all('default', session, 2, now, now) as {
          message_count: number | bigint;
        }[];
        firstPosition.set(session, Number(row!.message_count) - 2);
      }
    } else {
      const rows = prepare(statements.upsertChatSessions(sessions.length)).all(
        ...sessions.flatMap((session) => ['default', session, 2, now, now]),
      ) as {
        session_id: string;
        message_count: number | bigint;
      }[];
      for (const row of rows) firstPosition.set(row.session_id, Number(row.message_count) - 2);
    }
    const values: unknown[] = [];
    for (const session of sessions) {
      const position = firstPosition.get(session)!;
      values.push('default', session, position, crypto.randomUUID(), 'user', `Hello ${position}`, null, now);
      values.push(
        'default',
        session,
        position + 1,
        crypto.randomUUID(),
        'assistant',
        `[offline model] You said: Hello ${position}`,
        null,
        now,
      );
    }
    prepare(statements.insertMessages(values.length / 8)).run(...values);
    connection.exec('COMMIT');
  };
}

const root = mkdtempSync(join(tmpdir(), 'actorkit-group-upsert-'));
try {
  const loadBefore = loadavg()[0]!;
  for (const [name, open] of drivers.filter(
    ([candidate]) => values.driver === undefined || candidate === values.driver,
  )) {
    const connection = open(join(root, `${name.replace(':', '-')}.db`));
    connection.exec('PRAGMA journal_mode = WAL');
    connection.exec('PRAGMA synchronous = NORMAL');
    connection.exec(SCHEMA);
    const write = writer(connection);
    let next = 0;
    for (let warm = 0; warm < 200; warm += 1)
      write((values.only as Variant | undefined) ?? (warm % 2 === 0 ? 'per session' : 'multi-row'), (next += GROUP));
    const samples: Record<Variant, number[]> = { 'per session': [], 'multi-row': [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = (round % 2 === 0 ? ['per session', 'multi-row'] : ['multi-row', 'per session']) as Variant[];
      for (const variant of order.filter((candidate) => values.only === undefined || candidate === values.only)) {
        const before = process.cpuUsage();
        for (let group = 0; group < GROUPS; group += 1) write(variant, (next += GROUP));
        const used = process.cpuUsage(before);
        samples[variant].push((used.user + used.system) / (GROUPS * GROUP));
      }
    }
    connection.close();
    if (values.only !== undefined) continue;
    const per = median(samples['per session']);
    const multi = median(samples['multi-row']);
    const rounds = (variant: Variant) => samples[variant].map((value) => value.toFixed(1)).join(', ');
    process.stdout.write(
      `${name}: per session ${per.toFixed(2)} µs/turn (${rounds('per session')}); multi-row ${multi.toFixed(2)} µs/turn (${rounds('multi-row')}); saved ${(per - multi).toFixed(2)} µs/turn\n`,
    );
  }
  process.stdout.write(
    `groups of ${GROUP}, ${GROUPS} groups per round, ${ROUNDS} rounds; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
