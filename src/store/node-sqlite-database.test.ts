import type { SqliteStatement } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadNodeSqlite, nodeSqliteDatabase, type NodeSqliteModule } from './node-sqlite-database.js';

/** A stand-in for `node:sqlite`: records what it is asked, answers like Node (spread parameters, `columns()`, no `undefined`). */
class StandInDatabaseSync {
  static opened: StandInDatabaseSync[] = [];
  readonly executed: string[] = [];
  readonly calls: { sql: string; method: string; parameters: unknown[] }[] = [];
  closed = false;

  constructor(readonly path: string) {
    StandInDatabaseSync.opened.push(this);
  }

  prepare(sql: string) {
    const record = (method: string, parameters: unknown[]) => {
      if (parameters.includes(undefined)) throw new TypeError('Provided value cannot be bound to SQLite parameter');
      this.calls.push({ sql, method, parameters });
    };
    const answer =
      <T>(method: string, result: (parameters: unknown[]) => T) =>
      (...parameters: unknown[]): T => {
        record(method, parameters);
        return result(parameters);
      };
    return {
      columns: () => (sql.startsWith('select') ? [{ name: 'n' }] : []),
      all: answer('all', (parameters) => [{ n: parameters.length }]),
      run: answer('run', () => ({ changes: 1, lastInsertRowid: 7 })),
      iterate: answer('iterate', () => [{ n: 1 }][Symbol.iterator]()),
    };
  }

  exec(sql: string): void {
    this.executed.push(sql);
  }

  close(): void {
    this.closed = true;
  }
}

class StandInStatementSync {
  columns(): unknown[] {
    return [];
  }
}

const standIn: NodeSqliteModule = { DatabaseSync: StandInDatabaseSync, StatementSync: StandInStatementSync };

/** Whether this Node's `node:sqlite` has what the store needs without a flag (22.16+, 23.11+, 24+). */
function nodeProvidesSqlite(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major >= 24 || (major === 23 && minor >= 11) || (major === 22 && minor >= 16);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('loadNodeSqlite', () => {
  it(`is ${nodeProvidesSqlite() ? 'the module' : 'undefined'} on this Node (${process.versions.node})`, () => {
    expect(loadNodeSqlite() !== undefined).toBe(nodeProvidesSqlite());
  });

  it("holds back Node 22's ExperimentalWarning for SQLite while it loads, and no other warning", () => {
    const emitted: unknown[] = [];
    vi.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error) => void emitted.push(warning));
    vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) => {
      expect(id).toBe('node:sqlite');
      process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
      process.emitWarning('something else', 'Warning');
      return standIn;
    }) as typeof process.getBuiltinModule);
    expect(loadNodeSqlite()).toBe(standIn);
    expect(emitted).toEqual(['something else']);
    process.emitWarning('after the load');
    expect(emitted).toEqual(['something else', 'after the load']);
  });

  it('is undefined when the module is hidden behind a flag, or too old to list its columns', () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValueOnce(undefined);
    expect(loadNodeSqlite()).toBeUndefined();
    vi.spyOn(process, 'getBuiltinModule').mockReturnValueOnce({
      DatabaseSync: StandInDatabaseSync,
      StatementSync: class {},
    });
    expect(loadNodeSqlite()).toBeUndefined();
  });
});

describe('nodeSqliteDatabase', () => {
  it('opens with the busy time-out and gives Kysely statements that spread their parameters, undefined bound as NULL', () => {
    const database = nodeSqliteDatabase(standIn, '/data/actor.db', { busyTimeoutMs: 2_500 });
    const connection = StandInDatabaseSync.opened.at(-1)!;
    expect(connection.path).toBe('/data/actor.db');
    expect(connection.executed).toEqual(['PRAGMA busy_timeout = 2500']);
    const [select, insert] = ['select ? as n', 'insert into t values (?, ?)'].map((sql) => database.prepare(sql)) as [
      SqliteStatement,
      SqliteStatement,
    ];
    expect([select.reader, insert.reader]).toEqual([true, false]);
    expect(select.all([1, 'a'])).toEqual([{ n: 2 }]);
    expect(insert.run(['x', undefined])).toEqual({ changes: 1, lastInsertRowid: 7 });
    expect([...select.iterate([3])]).toEqual([{ n: 1 }]);
    // Spread, with undefined bound as NULL (node:sqlite would refuse it).
    expect(connection.calls.map(({ method, parameters }) => [method, ...parameters])).toEqual([
      ['all', 1, 'a'],
      ['run', 'x', null],
      ['iterate', 3],
    ]);
    expect(database.prepare('select ? as n')).toBe(select);
    database.close();
    expect(connection.closed).toBe(true);
  });

  it.each([1.5, -1])('refuses a busy time-out of %s ms, before opening anything', (busyTimeoutMs) => {
    const opened = StandInDatabaseSync.opened.length;
    expect(() => nodeSqliteDatabase(standIn, ':memory:', { busyTimeoutMs })).toThrow(RangeError);
    expect(StandInDatabaseSync.opened).toHaveLength(opened);
  });
});
