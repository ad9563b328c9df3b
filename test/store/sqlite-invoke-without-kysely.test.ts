import { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { ImmediateSqliteDialect } from '../../src/store/immediate-sqlite-dialect.js';
import { SqlStore } from '../../src/store/sql-store.js';
import { openSqliteDatabase } from '../../src/store/sqlite-database.js';
import type { CachedSqliteDatabase } from '../../src/store/statement-cache.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { invocation } from '../../src/testing/test-invocation.js';

// Issue 30: the statements every invoke runs on SQLite (history read, PRAGMA data_version, the
// group write and its transaction) go straight to the connection, not through Kysely.

const opened: SqlStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** An in-memory SQLite store whose Kysely instance logs every query it runs in `kyselyQueries`. */
async function openLogged(): Promise<{ store: SqlStore; kyselyQueries: string[]; database: CachedSqliteDatabase }> {
  const database = openSqliteDatabase(':memory:', { busyTimeoutMs: 1_000 });
  const kyselyQueries: string[] = [];
  const db = new Kysely<StoreDatabase>({
    dialect: new ImmediateSqliteDialect({ database }),
    log: (event) => void kyselyQueries.push(event.query.sql),
  });
  const store = new SqlStore({ db, sqliteConnection: database, engine: 'sqlite', logger: silentLogger });
  opened.push(store);
  await store.migrate();
  kyselyQueries.length = 0;
  return { store, kyselyQueries, database };
}

const turn = (sessionId: string, text: string) => [
  { id: `${sessionId}-${text}-user`, role: 'user' as const, content: text, createdAt: '2026-11-27T17:00:00.000Z' },
  {
    id: `${sessionId}-${text}-answer`,
    role: 'assistant' as const,
    content: `answer to ${text}`,
    createdAt: '2026-11-27T17:00:00.000Z',
  },
];

describe('the SQLite store on the invoke path', () => {
  it('reads history and commits a group without a Kysely query, with the same rows and exact stats', async () => {
    const { store, kyselyQueries } = await openLogged();
    expect(await store.loadHistory('acme', 'a', 20)).toEqual([]);
    const group = [
      invocation({ sessionId: 'a', history: turn('a', 'one') }),
      invocation({ sessionId: 'b', userIdentifier: 'user-2', history: turn('b', 'two') }),
    ];
    await store.saveTurns(group);
    // A retried group (same record ids) is counted once.
    await store.saveTurns(group);
    await store.saveTurns([invocation({ sessionId: 'a', history: turn('a', 'three') })]);
    expect((await store.loadHistory('acme', 'a', 20)).map((message) => message.content)).toEqual([
      'one',
      'answer to one',
      'three',
      'answer to three',
    ]);
    expect((await store.loadHistory('acme', 'b', 1)).map((message) => message.content)).toEqual(['answer to two']);
    // Only the clean-up of expired rows, at most once a minute and after the first write, goes through Kysely.
    expect(kyselyQueries).toEqual([
      'delete from "actorkit_idempotency_keys" where "expires_at_ms" < ?',
      'delete from "actorkit_stats_applied" where "applied_at_ms" < ?',
      'delete from "actorkit_run_parts" where "run_id" < ? and "run_id" in (select "id" from "actorkit_runs" where "id" < ? and "finished_at_ms" < ?)',
      'delete from "actorkit_runs" where "id" < ? and "finished_at_ms" < ?',
    ]);
    const stats = await store.readStats('acme');
    expect(stats).toMatchObject({ invocations: 3, sessions: 2, users: 2 });
    expect(kyselyQueries.length).toBeGreaterThan(0);
  });

  it('rolls the whole group back when one of its statements fails, and the next group commits', async () => {
    const { store, database } = await openLogged();
    // The messages' insert, the group's third statement, fails after the record ids and the sessions were written.
    database.exec(
      "create temp trigger boom before insert on main.actorkit_chat_messages when new.content = 'boom' begin select raise(abort, 'injected fault'); end",
    );
    const failing = [
      invocation({ sessionId: 'b', history: turn('b', 'kept out') }),
      invocation({ sessionId: 'a', history: turn('a', 'boom') }),
    ];
    await expect(store.saveTurns(failing)).rejects.toThrow(/injected fault/);
    expect(await store.loadHistory('acme', 'b', 20)).toEqual([]);
    expect(await store.readStats()).toMatchObject({ invocations: 0, sessions: 0 });
    // The same records again (their ids were rolled back too) commit once the fault is gone.
    database.exec('drop trigger boom');
    await store.saveTurns(failing);
    expect((await store.loadHistory('acme', 'b', 20)).map((message) => message.content)).toEqual([
      'kept out',
      'answer to kept out',
    ]);
    expect((await store.loadHistory('acme', 'a', 20)).map((message) => message.content)).toEqual([
      'boom',
      'answer to boom',
    ]);
    expect(await store.readStats()).toMatchObject({ invocations: 2, sessions: 2 });
  });
});
