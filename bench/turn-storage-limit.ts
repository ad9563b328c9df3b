/**
 * The storage limit of a turn, outside the actor: the turn's exact SQL (the statements of
 * `src/store/invoke-statements.ts`, imported, bound as `SqlStore` binds them on SQLite) run
 * straight on one driver against one SQLite file in WAL mode (`synchronous = NORMAL`, as the
 * store opens it), one transaction per turn and in groups (group commit, as the invocation
 * buffer does under load), with libSQL, better-sqlite3 (bench/drivers) and `node:sqlite`; a
 * **lean write** (the fewest statements for the same durable data); and the actor's own store
 * (`openStore`, its driver, Kysely, its queue and history cache) on the same turns, measured
 * the same way. Every turn reads the session's last 20 messages and writes the user's message
 * and the answer, the counters, the distinct session and user, and the record's id; 200
 * sessions of 50 users, as the bench's load.
 *
 * Measured per cell, after a warm-up on the same file: CPU µs per turn (`process.cpuUsage()`,
 * the whole process, over the turns) and **WAL pages written per turn**: the WAL is emptied
 * (`PRAGMA wal_checkpoint(TRUNCATE)`), a second connection then holds a read transaction open
 * so no checkpoint can copy frames back or restart the WAL, and the `-wal` file's growth over
 * the turns is divided by the frame size (page size + 24 bytes of frame header).
 *
 * Run on Node >= 22.5 (for `node:sqlite`), e.g. `test/runtimes/node_modules/.bin/node --import
 * tsx bench/turn-storage-limit.ts [--turns 2000] [--warmup 600] [--rounds 3] [--group 32]`.
 * Prints a markdown table (medians of interleaved rounds) and the load average.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Libsql from 'libsql';
import { silentLogger } from '../src/log/logger.js';
import { invokeStatements } from '../src/store/invoke-statements.js';
import { openStore } from '../src/store/open-store.js';
import type { InvocationRecord, StoredMessage } from '../src/store/store.js';
import { median } from './measure/median.js';

/** The three calls every driver here has (better-sqlite3's API; `node:sqlite` binds the same spread parameters). */
interface Statement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}
interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}
type DriverName = 'libsql' | 'better-sqlite3' | 'node:sqlite';
type WriteName = 'exact' | 'lean';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '3' },
    group: { type: 'string', default: '32' },
  },
});
const positive = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, got ${String(values[name])}`);
  return value;
};
const TURNS = positive('turns');
const WARMUP = positive('warmup');
const ROUNDS = positive('rounds');
const GROUP = positive('group');
const SESSIONS = 200;
const USERS = 50;
const HISTORY_LIMIT = 20;
const TENANT = 'default';

const requireDriver = createRequire(new URL('./drivers/package.json', import.meta.url));
const drivers: Record<DriverName, (path: string) => Connection> = {
  libsql: (path) => new Libsql(path) as unknown as Connection,
  'better-sqlite3': (path) => {
    const Database = requireDriver('better-sqlite3') as new (path: string) => Connection;
    return new Database(path);
  },
  'node:sqlite': (path) => {
    const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as { DatabaseSync: new (path: string) => Connection };
    return new DatabaseSync(path);
  },
};

const statements = invokeStatements('sqlite');

/** One turn's facts, as the invocation buffer hands them to the store. */
interface Turn {
  readonly record: InvocationRecord & { readonly id: string; readonly history: readonly StoredMessage[] };
}

let idSequence = 0;
/** Record ids: random (`crypto.randomUUID`, as the invocation buffer makes them) or ascending (the lean write's). */
function recordId(ordered: boolean): string {
  idSequence += 1;
  return ordered ? `${Date.now().toString(36).padStart(10, '0')}-${idSequence.toString(36).padStart(8, '0')}` : crypto.randomUUID();
}

function makeTurn(index: number, orderedIds: boolean): Turn {
  const now = new Date().toISOString();
  const message = `Hello from the bench, turn ${index}`;
  return {
    record: {
      id: recordId(orderedIds),
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
function preparer(connection: Connection): (sql: string) => Statement {
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
  [...new Map(pairs.map((pair) => [`${pair[0]}\u0000${pair[1]}`, pair])).values()].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));

/**
 * The store's SQLite write of a group of records, statement for statement (`SqlStore`'s
 * `recordInvocations` on SQLite): the record ids, then per record the session's count and its
 * two messages, the new (tenant, session) and (tenant, user) pairs, the users across tenants,
 * the tenant's counters.
 */
function exactWrite(prepare: (sql: string) => Statement, turns: readonly Turn[]): void {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const ids = turns.map((turn) => turn.record.id).sort();
  const fresh = new Set((prepare(statements.insertAppliedIds(ids.length)).all(...ids.flatMap((id) => [id, nowMs])) as { id: string }[]).map((row) => row.id));
  const counted = turns.filter((turn) => fresh.has(turn.record.id));
  if (counted.length === 0) return;
  for (const { record } of counted) {
    const [session] = prepare(statements.upsertChatSession).all(record.tenantId, record.sessionId, record.history.length, now, now) as { message_count: number }[];
    const first = Number(session!.message_count) - record.history.length;
    prepare(statements.insertMessages(record.history.length)).run(
      ...record.history.flatMap((m, index) => [record.tenantId, record.sessionId, first + index, m.id, m.role, m.content, null, m.createdAt]),
    );
  }
  const sessions = sortedDistinct(counted.map((turn) => [turn.record.tenantId, turn.record.sessionId] as const));
  const newSessions = prepare(statements.insertPairs('actorkit_stats_sessions', sessions.length)).all(...sessions.flat()).length;
  const users = sortedDistinct(counted.map((turn) => [turn.record.tenantId, turn.record.userIdentifier] as const));
  const newUsers = prepare(statements.insertPairs('actorkit_stats_users', users.length)).all(...users.flat()) as { value: string }[];
  let newAllUsers = 0;
  if (newUsers.length > 0) {
    const names = [...new Set(newUsers.map((row) => row.value))].sort();
    newAllUsers = prepare(statements.insertAllUsers(names.length)).all(...names).length;
  }
  prepare(statements.upsertCounters(1)).run(...counterRow(counted, nowMs, newSessions, newUsers.length));
  if (newAllUsers > 0) prepare(statements.addTotalUsers).run(newAllUsers);
}

const leanSessions = new Map<number, string>();
/** The lean write's session upsert for `rows` sessions in one statement, returning each session's new count. */
function leanSessionUpsert(rows: number): string {
  let text = leanSessions.get(rows);
  if (text === undefined) {
    text = `insert into actorkit_chat_sessions as s (tenant_id, session_id, message_count, created_at, updated_at) values ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ')}
on conflict (tenant_id, session_id) do update set message_count = s.message_count + excluded.message_count, updated_at = excluded.updated_at
returning tenant_id, session_id, message_count`;
    leanSessions.set(rows, text);
  }
  return text;
}

/**
 * The same durable data in the fewest statements: ascending record ids (appended at the
 * index's right edge instead of a random leaf), every session of the group in one upsert,
 * every message in one insert, and no `actorkit_stats_sessions` row: a session is new to the
 * counters when its first message lands at position 0 (true of every turn that stores
 * history; a failed turn stores none and would still need the pair). Users, users across
 * tenants and the counters as in the exact write.
 */
function leanWrite(prepare: (sql: string) => Statement, turns: readonly Turn[]): void {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const ids = turns.map((turn) => turn.record.id).sort();
  const fresh = new Set((prepare(statements.insertAppliedIds(ids.length)).all(...ids.flatMap((id) => [id, nowMs])) as { id: string }[]).map((row) => row.id));
  const counted = turns.filter((turn) => fresh.has(turn.record.id));
  if (counted.length === 0) return;
  const added = new Map<string, number>();
  for (const { record } of counted) added.set(record.sessionId, (added.get(record.sessionId) ?? 0) + record.history.length);
  const counts = prepare(leanSessionUpsert(added.size)).all(...[...added].flatMap(([session, count]) => [TENANT, session, count, now, now])) as { session_id: string; message_count: number }[];
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
  const users = sortedDistinct(counted.map((turn) => [turn.record.tenantId, turn.record.userIdentifier] as const));
  const newUsers = prepare(statements.insertPairs('actorkit_stats_users', users.length)).all(...users.flat()) as { value: string }[];
  let newAllUsers = 0;
  if (newUsers.length > 0) {
    const names = [...new Set(newUsers.map((row) => row.value))].sort();
    newAllUsers = prepare(statements.insertAllUsers(names.length)).all(...names).length;
  }
  prepare(statements.upsertCounters(1)).run(...counterRow(counted, nowMs, newSessions, newUsers.length));
  if (newAllUsers > 0) prepare(statements.addTotalUsers).run(newAllUsers);
}

/** What one cell runs: a group of turns, read then written. */
type GroupRunner = (turns: readonly Turn[]) => Promise<void> | void;

interface Cell {
  readonly label: string;
  readonly group: number;
  readonly orderedIds: boolean;
  /** Opens the cell's writer on `path` and returns how to run a group, and how to close. */
  open(path: string): Promise<{ run: GroupRunner; close(): Promise<void> | void }>;
}

function driverCell(driver: DriverName, write: WriteName, group: number): Cell {
  return {
    label: `${driver}, ${write === 'exact' ? "today's SQL" : 'lean write'}`,
    group,
    orderedIds: write === 'lean',
    async open(path) {
      const connection = drivers[driver](path);
      connection.exec('PRAGMA journal_mode = WAL');
      connection.exec('PRAGMA synchronous = NORMAL');
      connection.exec('PRAGMA busy_timeout = 10000');
      const prepare = preparer(connection);
      const writeGroup = write === 'exact' ? exactWrite : leanWrite;
      return {
        run(turns) {
          for (const { record } of turns) prepare(statements.loadHistory).all(record.tenantId, record.sessionId, HISTORY_LIMIT);
          connection.exec('BEGIN IMMEDIATE');
          try {
            writeGroup(prepare, turns);
            connection.exec('COMMIT');
          } catch (error) {
            connection.exec('ROLLBACK');
            throw error;
          }
        },
        close: () => connection.close(),
      };
    },
  };
}

/** The actor's store on the same turns: each turn's history read, then the group's `recordInvocations`. */
function actorStoreCell(group: number): Cell {
  return {
    label: "the actor's store (`openStore`)",
    group,
    orderedIds: false,
    async open(path) {
      const store = await openStore({ url: `file:${path}`, logger: silentLogger });
      return {
        async run(turns) {
          for (const { record } of turns) await store.loadHistory(record.tenantId, record.sessionId, HISTORY_LIMIT);
          await store.recordInvocations(turns.map((turn) => turn.record));
        },
        close: () => store.close(),
      };
    },
  };
}

interface Sample {
  readonly cpuUsPerTurn: number;
  readonly walPagesPerTurn: number;
}

const walFrames = (path: string, frameBytes: number) => {
  try {
    return Math.max(0, (statSync(`${path}-wal`).size - 32) / frameBytes);
  } catch {
    return 0;
  }
};

async function runGroups(run: GroupRunner, from: number, count: number, group: number, orderedIds: boolean): Promise<void> {
  for (let start = from; start < from + count; start += group) {
    const turns = Array.from({ length: Math.min(group, from + count - start) }, (_, offset) => makeTurn(start + offset, orderedIds));
    await run(turns);
  }
}

/** One round of one cell on a fresh copy of the migrated file. */
async function measure(cell: Cell, template: string, path: string): Promise<Sample> {
  copyFileSync(template, path);
  const writer = await cell.open(path);
  const observer = new Libsql(path);
  try {
    await runGroups(writer.run, 0, WARMUP, cell.group, cell.orderedIds);
    const pageSize = Number((observer.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    observer.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
    observer.exec('BEGIN');
    observer.prepare('select count(*) from actorkit_meta').get();
    const framesBefore = walFrames(path, pageSize + 24);
    const cpuBefore = process.cpuUsage();
    await runGroups(writer.run, WARMUP, TURNS, cell.group, cell.orderedIds);
    const cpu = process.cpuUsage(cpuBefore);
    const frames = walFrames(path, pageSize + 24) - framesBefore;
    observer.exec('COMMIT');
    return { cpuUsPerTurn: (cpu.user + cpu.system) / TURNS, walPagesPerTurn: frames / TURNS };
  } finally {
    observer.close();
    await writer.close();
  }
}

async function main(): Promise<void> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < 22) throw new Error(`node:sqlite needs Node >= 22.5; run with test/runtimes/node_modules/.bin/node --import tsx (this is Node ${process.versions.node})`);
  const root = mkdtempSync(join(tmpdir(), 'actorkit-storage-limit-'));
  try {
    const template = join(root, 'template.db');
    const migrating = await openStore({ url: `file:${template}`, logger: silentLogger });
    await migrating.migrate();
    await migrating.close();
    const folding = new Libsql(template);
    folding.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get(); // the copies take the main file only
    folding.close();
    const cells: Cell[] = [];
    for (const group of [1, GROUP]) {
      cells.push(actorStoreCell(group));
      for (const driver of ['libsql', 'better-sqlite3', 'node:sqlite'] as const) for (const write of ['exact', 'lean'] as const) cells.push(driverCell(driver, write, group));
    }
    const loadBefore = loadavg()[0]!;
    const samples = new Map<Cell, Sample[]>(cells.map((cell) => [cell, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = cells.map((_, index) => cells[(index + round * 3) % cells.length]!);
      for (const [index, cell] of order.entries()) samples.get(cell)!.push(await measure(cell, template, join(root, `round-${round}-${index}.db`)));
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
    const medians = new Map([...samples].map(([cell, rounds]) => [cell, { cpu: median(rounds.map((r) => r.cpuUsPerTurn)), pages: median(rounds.map((r) => r.walPagesPerTurn)) }]));
    const rows: string[] = [];
    for (const group of [1, GROUP]) {
      const actor = medians.get(cells.find((cell) => cell.group === group && cell.label.startsWith('the actor'))!)!;
      for (const cell of cells.filter((candidate) => candidate.group === group)) {
        const figures = medians.get(cell)!;
        const cpuRange = samples
          .get(cell)!
          .map((r) => Math.round(r.cpuUsPerTurn))
          .join(', ');
        rows.push(
          `| ${group === 1 ? 'one per turn' : `groups of ${group}`} | ${cell.label} | ${Math.round(figures.cpu)} (${cpuRange}) | ${figures.pages.toFixed(2)} | ${(actor.cpu / figures.cpu).toFixed(2)}× | ${(actor.pages / Math.max(figures.pages, 0.01)).toFixed(2)}× |`,
        );
      }
    }
    const libsqlVersion = (new Libsql(':memory:').prepare('select sqlite_version() as v').get() as { v: string }).v;
    process.stdout.write(
      [
        `Node ${process.versions.node}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}; ${TURNS} turns per cell after ${WARMUP} warm-up turns, ${ROUNDS} interleaved rounds (median; every round in parentheses); load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after. SQLite ${libsqlVersion} in libSQL.`,
        '',
        "| transactions | writer | CPU µs per turn (rounds) | WAL pages per turn | actor's store CPU ÷ this | actor's store pages ÷ this |",
        '| --- | --- | --- | --- | --- | --- |',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
