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
 * the whole process, over `--turns` turns run as the actor runs them, autocheckpoint on), then
 * **WAL pages written per turn** over 512 more turns: another process
 * (bench/storage/hold-wal-reader.mjs) empties the WAL (`PRAGMA wal_checkpoint(TRUNCATE)`) and
 * holds a read transaction open, so no checkpoint can copy frames back or restart the WAL, and
 * the `-wal` file's growth is divided by the frame size (page size + 24 bytes of frame header).
 *
 * Run on Node >= 22.5 (for `node:sqlite`), e.g. `test/runtimes/node_modules/.bin/node --import
 * tsx bench/turn-storage-limit.ts [--turns 2000] [--warmup 600] [--rounds 3] [--group 32]`.
 * Prints a markdown table (medians of interleaved rounds) and the load average.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Libsql from 'libsql';
import { silentLogger } from '../src/log/logger.js';
import { openStore } from '../src/store/open-store.js';
import { median } from './measure/median.js';
import {
  type Connection,
  exactWrite,
  leanWrite,
  makeTurn,
  preparer,
  statements,
  type Turn,
} from './storage/turn-writes.js';

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
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer, got ${String(values[name])}`);
  return value;
};
const TURNS = positive('turns');
const WARMUP = positive('warmup');
const ROUNDS = positive('rounds');
const GROUP = positive('group');
const HISTORY_LIMIT = 20;
/** Turns counted in WAL pages, after the timed ones. */
const PAGE_TURNS = 512;
/** SQLite's default page size, which the store keeps; checked on the migrated file. */
const PAGE_SIZE = 4096;
const HOLD_WAL_READER = fileURLToPath(new URL('./storage/hold-wal-reader.mjs', import.meta.url));

const requireDriver = createRequire(new URL('./drivers/package.json', import.meta.url));
const drivers: Record<DriverName, (path: string) => Connection> = {
  libsql: (path) => new Libsql(path) as unknown as Connection,
  'better-sqlite3': (path) => {
    const Database = requireDriver('better-sqlite3') as new (path: string) => Connection;
    return new Database(path);
  },
  'node:sqlite': (path) => {
    const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as {
      DatabaseSync: new (path: string) => Connection;
    };
    return new DatabaseSync(path);
  },
};

/** What one cell runs: a group of turns, read then written. */
type GroupRunner = (turns: readonly Turn[]) => Promise<void> | void;

interface Cell {
  readonly label: string;
  readonly group: number;
  /** Opens the cell's writer on `path` and returns how to run a group, and how to close. */
  open(path: string): Promise<{ run: GroupRunner; close(): Promise<void> | void }>;
}

function driverCell(driver: DriverName, write: WriteName, group: number): Cell {
  return {
    label: `${driver}, ${write === 'exact' ? "today's SQL" : 'lean write'}`,
    group,
    async open(path) {
      const connection = drivers[driver](path);
      connection.exec('PRAGMA journal_mode = WAL');
      connection.exec('PRAGMA synchronous = NORMAL');
      connection.exec('PRAGMA busy_timeout = 10000');
      const prepare = preparer(connection);
      const writeGroup = write === 'exact' ? exactWrite : leanWrite;
      return {
        run(turns) {
          for (const { record } of turns)
            prepare(statements.loadHistory).all(record.tenantId, record.sessionId, HISTORY_LIMIT);
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

/** The actor's store on the same turns: each turn's history read, then the group's `saveTurns`. */
function actorStoreCell(group: number): Cell {
  return {
    label: "the actor's store (`openStore`)",
    group,
    async open(path) {
      const store = await openStore({ url: `file:${path}`, logger: silentLogger });
      return {
        async run(turns) {
          for (const { record } of turns) await store.loadHistory(record.tenantId, record.sessionId, HISTORY_LIMIT);
          await store.saveTurns(turns.map((turn) => turn.record));
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

async function runGroups(run: GroupRunner, from: number, count: number, group: number): Promise<void> {
  for (let start = from; start < from + count; start += group) {
    const turns = Array.from({ length: Math.min(group, from + count - start) }, (_, offset) =>
      makeTurn(start + offset),
    );
    await run(turns);
  }
}

/** Starts bench/storage/hold-wal-reader.mjs on `path` and resolves once it holds the WAL; `release` ends it. */
async function pinWal(path: string): Promise<{ release(): Promise<void> }> {
  const child = spawn(process.execPath, [HOLD_WAL_READER, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) =>
      chunk.toString().startsWith('held') ? resolve() : reject(new Error(`hold-wal-reader said ${chunk.toString()}`)),
    );
    void exited.then((code) => reject(new Error(`hold-wal-reader exited with ${code} before holding the WAL`)));
  });
  return {
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * One round of one cell on a fresh copy of the migrated file: warm-up turns, then `TURNS` turns
 * timed as the actor runs (autocheckpoint on, nothing pinned), then `PAGE_TURNS` turns with
 * the WAL pinned, counted in pages.
 */
async function measure(cell: Cell, template: string, path: string): Promise<Sample> {
  copyFileSync(template, path);
  const writer = await cell.open(path);
  try {
    let next = 0;
    const turns = async (count: number) => {
      await runGroups(writer.run, next, count, cell.group);
      next += count;
    };
    await turns(WARMUP);
    const cpuBefore = process.cpuUsage();
    await turns(TURNS);
    const cpu = process.cpuUsage(cpuBefore);
    const pin = await pinWal(path);
    let frames: number;
    try {
      const framesBefore = walFrames(path, PAGE_SIZE + 24);
      await turns(PAGE_TURNS);
      frames = walFrames(path, PAGE_SIZE + 24) - framesBefore;
    } finally {
      await pin.release();
    }
    return { cpuUsPerTurn: (cpu.user + cpu.system) / TURNS, walPagesPerTurn: frames / PAGE_TURNS };
  } finally {
    await writer.close();
  }
}

async function main(): Promise<void> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < 22)
    throw new Error(
      `node:sqlite needs Node >= 22.5; run with test/runtimes/node_modules/.bin/node --import tsx (this is Node ${process.versions.node})`,
    );
  const root = mkdtempSync(join(tmpdir(), 'actorkit-storage-limit-'));
  try {
    const template = join(root, 'template.db');
    const migrating = await openStore({ url: `file:${template}`, logger: silentLogger });
    await migrating.migrate();
    await migrating.close();
    const folding = new Libsql(template);
    folding.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get(); // the copies take the main file only
    const pageSize = Number((folding.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    folding.close();
    if (pageSize !== PAGE_SIZE) throw new Error(`the migrated file has pages of ${pageSize} bytes, not ${PAGE_SIZE}`);
    const cells: Cell[] = [];
    for (const group of [1, GROUP]) {
      cells.push(actorStoreCell(group));
      for (const driver of ['libsql', 'better-sqlite3', 'node:sqlite'] as const)
        for (const write of ['exact', 'lean'] as const) cells.push(driverCell(driver, write, group));
    }
    const loadBefore = loadavg()[0]!;
    const samples = new Map<Cell, Sample[]>(cells.map((cell) => [cell, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = cells.map((_, index) => cells[(index + round * 3) % cells.length]!);
      for (const [index, cell] of order.entries())
        samples.get(cell)!.push(await measure(cell, template, join(root, `round-${round}-${index}.db`)));
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
    const medians = new Map(
      [...samples].map(([cell, rounds]) => [
        cell,
        { cpu: median(rounds.map((r) => r.cpuUsPerTurn)), pages: median(rounds.map((r) => r.walPagesPerTurn)) },
      ]),
    );
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
    const sqliteVersions = (['libsql', 'better-sqlite3', 'node:sqlite'] as const)
      .map((driver) => {
        const connection = drivers[driver](':memory:');
        const [row] = connection.prepare('select sqlite_version() as v').all() as { v: string }[];
        connection.close();
        return `${driver} ${row?.v}`;
      })
      .join(', ');
    process.stdout.write(
      [
        `Node ${process.versions.node}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}; ${TURNS} turns per cell after ${WARMUP} warm-up turns, ${ROUNDS} interleaved rounds (median; every round in parentheses); load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after. SQLite: ${sqliteVersions}. WAL pages over ${PAGE_TURNS} further turns.`,
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
