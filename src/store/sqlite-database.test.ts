import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from './sqlite-database.js';

const root = await mkdtemp(join(tmpdir(), 'actorkit-sqlite-db-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('openSqliteDatabase', () => {
  it('prepares each SQL text once and reuses the statement, which sees every later write', () => {
    const database = openSqliteDatabase(':memory:', { busyTimeoutMs: 1_000 });
    try {
      database.exec('create table t (k text primary key, v integer)');
      const insert = () =>
        database.prepare(
          'insert into t (k, v) values (?, ?) on conflict (k) do update set v = v + excluded.v returning v',
        );
      const read = () => database.prepare('select v from t where k = ?');
      expect(insert().all(['a', 1])).toEqual([{ v: 1 }]);
      expect(insert().all(['a', 2])).toEqual([{ v: 3 }]);
      expect(read().all(['a'])).toEqual([{ v: 3 }]);
      insert().run(['a', 4]);
      expect(read().all(['a'])).toEqual([{ v: 7 }]);
      expect(insert()).toBe(insert());
      expect(database.statementsPrepared).toBe(2);
    } finally {
      database.close();
    }
  });

  it('keeps at most statementCacheSize statements, dropping the oldest', () => {
    const database = openSqliteDatabase(':memory:', { busyTimeoutMs: 1_000, statementCacheSize: 2 });
    try {
      for (const n of [1, 2, 1, 3, 1]) database.prepare(`select ${n} as n`).all([]);
      // 1 and 2 prepared; 1 reused; 3 pushes out 1 (the oldest); 1 prepared again.
      expect(database.statementsPrepared).toBe(4);
      expect(database.prepare('select 1 as n').all([])).toEqual([{ n: 1 }]);
      expect(database.statementsPrepared).toBe(4);
    } finally {
      database.close();
    }
  });

  it('leaves no lock or snapshot behind: another connection writes and checkpoints between reuses', () => {
    const path = join(root, 'shared.db');
    const first = openSqliteDatabase(path, { busyTimeoutMs: 1_000 });
    const second = openSqliteDatabase(path, { busyTimeoutMs: 1_000 });
    try {
      first.exec('PRAGMA journal_mode = WAL');
      first.exec('create table t (k text primary key)');
      const count = () => first.prepare('select count(*) as n from t').all([]);
      expect(count()).toEqual([{ n: 0 }]);
      second.prepare('insert into t (k) values (?)').run(['x']);
      expect(count()).toEqual([{ n: 1 }]);
      expect(second.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all([])).toEqual([expect.objectContaining({ busy: 0 })]);
    } finally {
      first.close();
      second.close();
    }
  });

  it('refuses a statement cache of no size', () => {
    expect(() => openSqliteDatabase(':memory:', { busyTimeoutMs: 1_000, statementCacheSize: 0 })).toThrow(RangeError);
  });
});
