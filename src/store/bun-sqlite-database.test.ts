import { describe, expect, it } from 'vitest';
import { bunSqliteDatabase, runsOnBun } from './bun-sqlite-database.js';
import { openRuntimeSqlite } from './sqlite-driver.js';

/** A stand-in for `bun:sqlite`'s `Database`: records what it is asked, answers like Bun (spread parameters, `columnNames`). */
class StandInDatabase {
  static opened: StandInDatabase[] = [];
  readonly executed: string[] = [];
  readonly calls: { sql: string; method: string; parameters: unknown[] }[] = [];
  closed = false;

  constructor(
    readonly filename: string,
    readonly options: unknown,
  ) {
    StandInDatabase.opened.push(this);
  }

  prepare(sql: string) {
    const record = (method: string, parameters: unknown[]) => this.calls.push({ sql, method, parameters });
    return {
      columnNames: sql.startsWith('select') ? ['n'] : [],
      all: (...parameters: unknown[]) => (record('all', parameters), [{ n: parameters.length }]),
      run: (...parameters: unknown[]) => (record('run', parameters), { changes: 1, lastInsertRowid: 7 }),
      iterate: (...parameters: unknown[]) => (record('iterate', parameters), [{ n: 1 }][Symbol.iterator]()),
    };
  }

  exec(sql: string): void {
    this.executed.push(sql);
  }

  close(): void {
    this.closed = true;
  }
}

describe('bunSqliteDatabase', () => {
  it('opens read-write with the busy time-out and gives Kysely statements that spread their parameters', () => {
    const database = bunSqliteDatabase(StandInDatabase, '/data/actor.db', { busyTimeoutMs: 2_500 });
    const connection = StandInDatabase.opened.at(-1)!;
    expect(connection.filename).toBe('/data/actor.db');
    expect(connection.options).toEqual({ create: true, readwrite: true });
    expect(connection.executed).toEqual(['PRAGMA busy_timeout = 2500']);
    const select = database.prepare('select ? as n');
    const insert = database.prepare('insert into t values (?, ?)');
    expect(select.reader).toBe(true);
    expect(insert.reader).toBe(false);
    expect(select.all([1, 'a'])).toEqual([{ n: 2 }]);
    expect(insert.run(['x', 2])).toEqual({ changes: 1, lastInsertRowid: 7 });
    expect([...select.iterate([3])]).toEqual([{ n: 1 }]);
    expect(connection.calls).toEqual([
      { sql: 'select ? as n', method: 'all', parameters: [1, 'a'] },
      { sql: 'insert into t values (?, ?)', method: 'run', parameters: ['x', 2] },
      { sql: 'select ? as n', method: 'iterate', parameters: [3] },
    ]);
    expect(database.prepare('select ? as n')).toBe(select);
    expect(database.statementsPrepared).toBe(2);
    database.exec('PRAGMA synchronous = NORMAL');
    expect(connection.executed.at(-1)).toBe('PRAGMA synchronous = NORMAL');
    database.close();
    expect(connection.closed).toBe(true);
  });

  it('refuses a busy time-out that is not a whole number of milliseconds, before opening anything', () => {
    const before = StandInDatabase.opened.length;
    expect(() => bunSqliteDatabase(StandInDatabase, ':memory:', { busyTimeoutMs: 1.5 })).toThrow(RangeError);
    expect(() => bunSqliteDatabase(StandInDatabase, ':memory:', { busyTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => bunSqliteDatabase(StandInDatabase, ':memory:', { busyTimeoutMs: 1, statementCacheSize: 0 })).toThrow(
      RangeError,
    );
    expect(StandInDatabase.opened.length).toBe(before);
  });
});

describe('openRuntimeSqlite', () => {
  it('chooses libSQL under Node, and it works', async () => {
    expect(runsOnBun()).toBe(false);
    const { driver, database } = await openRuntimeSqlite(':memory:', { busyTimeoutMs: 1_000 });
    try {
      expect(driver).toBe('libsql');
      expect(database.prepare('select 1 as n').all([])).toEqual([{ n: 1 }]);
    } finally {
      database.close();
    }
  });
});
