import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from './sqlite-database.js';
import { sqliteStatements } from './sqlite-statements.js';
import type { CachedSqliteDatabase } from './statement-cache.js';

const root = await mkdtemp(join(tmpdir(), 'actorkit-sqlite-statements-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let files = 0;
const opened: CachedSqliteDatabase[] = [];
afterEach(() => opened.splice(0).forEach((database) => database.close()));

/** A connection to `path` with table `t (k text primary key, v integer)`, made if missing. */
function open(path: string, busyTimeoutMs = 1_000): CachedSqliteDatabase {
  const database = openSqliteDatabase(path, { busyTimeoutMs });
  opened.push(database);
  database.exec('create table if not exists t (k text primary key, v integer)');
  return database;
}

const rowsOf = (database: CachedSqliteDatabase) => database.prepare('select k, v from t order by k').all([]);

describe('sqliteStatements', () => {
  it('returns the rows of a statement that has some, none of one that has not, on statements prepared once', () => {
    const database = open(':memory:');
    const statements = sqliteStatements(database);
    const before = database.statementsPrepared;
    expect(statements.query('insert into t (k, v) values (?, ?)', ['a', 1])).toEqual([]);
    expect(statements.query('insert into t (k, v) values (?, ?)', ['b', 2])).toEqual([]);
    expect(statements.query('update t set v = v + ? where k = ? returning v', [10, 'a'])).toEqual([{ v: 11 }]);
    expect(statements.query('select k, v from t where v > ? order by k', [0])).toEqual([
      { k: 'a', v: 11 },
      { k: 'b', v: 2 },
    ]);
    expect(database.statementsPrepared - before).toBe(3);
  });

  it('throws the driver error of a statement that fails, and the connection stays usable', () => {
    const database = open(':memory:');
    const statements = sqliteStatements(database);
    statements.query('insert into t (k, v) values (?, ?)', ['a', 1]);
    expect(() => statements.query('insert into t (k, v) values (?, ?)', ['a', 2])).toThrow(/UNIQUE constraint failed/);
    expect(() => statements.query('select v from nowhere', [])).toThrow(/no such table/);
    expect(statements.query('select v from t', [])).toEqual([{ v: 1 }]);
  });

  it('commits a transaction whose work resolves: another connection sees it', async () => {
    const path = join(root, `commit-${(files += 1)}.db`);
    const statements = sqliteStatements(open(path));
    const other = open(path);
    const result = await statements.transaction(async () => {
      statements.query('insert into t (k, v) values (?, ?)', ['a', 1]);
      expect(rowsOf(other)).toEqual([]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(rowsOf(other)).toEqual([{ k: 'a', v: 1 }]);
  });

  it('rolls back a transaction whose work fails and rethrows that failure', async () => {
    const database = open(':memory:');
    const statements = sqliteStatements(database);
    const failure = new Error('work failed');
    await expect(
      statements.transaction(async () => {
        statements.query('insert into t (k, v) values (?, ?)', ['a', 1]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(rowsOf(database)).toEqual([]);
    // No transaction is left open: the next one begins.
    await statements.transaction(async () => statements.query('insert into t (k, v) values (?, ?)', ['b', 2]));
    expect(rowsOf(database)).toEqual([{ k: 'b', v: 2 }]);
  });

  it('keeps the real failure when SQLite has already rolled the transaction back', async () => {
    const database = open(':memory:');
    const statements = sqliteStatements(database);
    const failure = new Error('the statement that made SQLite roll back');
    await expect(
      statements.transaction(async () => {
        statements.query('insert into t (k, v) values (?, ?)', ['a', 1]);
        statements.query('rollback', []);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(rowsOf(database)).toEqual([]);
  });

  it('begins IMMEDIATE: a second writer fails at BEGIN, without rolling back the first', async () => {
    const path = join(root, `busy-${(files += 1)}.db`);
    const first = sqliteStatements(open(path));
    const second = sqliteStatements(open(path, 0));
    let secondRan = false;
    await first.transaction(async () => {
      first.query('insert into t (k, v) values (?, ?)', ['a', 1]);
      await expect(second.transaction(async () => (secondRan = true))).rejects.toThrow(/locked|busy/i);
    });
    expect(secondRan).toBe(false);
    expect(second.query('select k, v from t', [])).toEqual([{ k: 'a', v: 1 }]);
  });

  it('rethrows a failed BEGIN as it is, leaving an open transaction of the same connection alone', async () => {
    const database = open(':memory:');
    const statements = sqliteStatements(database);
    await statements.transaction(async () => {
      statements.query('insert into t (k, v) values (?, ?)', ['a', 1]);
      await expect(statements.transaction(async () => 'nested')).rejects.toThrow(/within a transaction/);
      statements.query('insert into t (k, v) values (?, ?)', ['b', 2]);
    });
    expect(rowsOf(database)).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
  });
});
