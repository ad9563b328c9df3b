import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { Kysely, SqliteDialect } from 'kysely';
import Database from 'libsql';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../../src/log/logger.js';
import { migrateStore } from '../../src/store/migrate-store.js';
import { GroupCommit } from '../../src/store/group-commit.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { STORE_MIGRATIONS } from '../../src/store/store-migrations.js';
import { expectedSqliteDriver } from './expected-sqlite-driver.js';
import { createLegacyDatabase, expectLegacyDatabaseOpens } from './legacy-migration-table.js';
import { describeStoreContract } from '../../src/testing/describe-store-contract.js';
import { invocation } from '../../src/testing/test-invocation.js';

const root = await mkdtemp(join(tmpdir(), 'actorkit-sqlite-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let databases = 0;

async function openFileStore(dataDir: string): Promise<Store> {
  const store = await openStore({ dataDir, logger: silentLogger });
  await store.migrate();
  return store;
}

/** Runs statements on an SQLite file through a second connection, as another process would. */
async function onFile(path: string, statements: string[]): Promise<unknown[][]> {
  const connection = new Database(path);
  try {
    const results: unknown[][] = [];
    for (const statement of statements) {
      const prepared = connection.prepare(statement);
      results.push(prepared.reader ? (prepared.raw(true).all() as unknown[][]) : (prepared.run(), []));
    }
    return results;
  } finally {
    connection.close();
  }
}

/**
 * Builds `<root>/<name>/actor.db` through a libSQL connection of its own, closed before the
 * store opens the file (one SQLite library per file at a time in this process).
 */
async function prepareFile(
  name: string,
  build: (db: Kysely<StoreDatabase>, database: Database.Database) => Promise<unknown>,
): Promise<{ dataDir: string; path: string }> {
  const dataDir = join(root, name);
  const path = join(dataDir, 'actor.db');
  await mkdir(dataDir, { recursive: true });
  const database = new Database(path);
  const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
  try {
    await build(db, database);
  } finally {
    await db.destroy();
  }
  return { dataDir, path };
}

describeStoreContract({
  name: 'SQLite file',
  reachableFromOutside: true,
  async fresh() {
    databases += 1;
    const dataDir = join(root, `contract-${databases}`);
    const store = await openFileStore(dataDir);
    const path = join(dataDir, 'actor.db');
    return {
      store,
      async breakInsertsOfUserBoom() {
        await onFile(path, [
          ...['actorkit_stats_users', 'actorkit_stats_all_users'].map(
            (table) =>
              `create trigger ${table}_boom before insert on ${table} when new.user_identifier = 'boom' begin select raise(abort, 'injected fault'); end`,
          ),
        ]);
        return async () => {
          await onFile(path, ['drop trigger actorkit_stats_users_boom', 'drop trigger actorkit_stats_all_users_boom']);
        };
      },
    };
  },
});

describeStoreContract({
  name: 'SQLite memory://',
  reachableFromOutside: false,
  async fresh() {
    const store = await openStore({ url: 'memory://', logger: silentLogger });
    await store.migrate();
    return { store };
  },
});

describe('SQLite file store', () => {
  it(`opens the file with this runtime's driver (${expectedSqliteDriver()})`, async () => {
    const sink = createMemorySink();
    const store = await openStore({ dataDir: join(root, 'driver'), logger: createLogger({ sink }) });
    await store.close();
    expect(sink.records.find((record) => record.event === 'store_opened')).toMatchObject({
      store: 'sqlite',
      driver: expectedSqliteDriver(),
    });
  });

  it('creates DATA_DIR and a WAL-mode actor.db in it', async () => {
    const dataDir = join(root, 'nested', 'data dir');
    const store = await openFileStore(dataDir);
    await store.close();
    expect((await stat(join(dataDir, 'actor.db'))).isFile()).toBe(true);
    const [[journal]] = (await onFile(join(dataDir, 'actor.db'), ['pragma journal_mode'])) as [[unknown[]]];
    expect(journal).toEqual(['wal']);
  });

  it('keeps stats, history, settings and tokens across a reopen, and migrates once', async () => {
    const dataDir = join(root, 'reopen');
    const first = await openFileStore(dataDir);
    await first.saveTurns([invocation({ sessionId: 'a' }), invocation({ sessionId: 'b', outcome: 'error' })]);
    await first.appendMessages('acme', 'chat', [
      { id: 'm1', role: 'user', content: 'hello', createdAt: '2025-01-01T00:00:00.000Z' },
    ]);
    await first.updateSettingsOverrides(() => ({ greeting: 'Saved' }));
    await first.saveOAuthToken({
      tenantId: 'acme',
      provider: 'github',
      accessToken: 'at',
      refreshToken: null,
      tokenType: 'Bearer',
      scope: null,
      expiresAt: null,
    });
    const before = await first.readStats();
    await first.close();

    const second = await openFileStore(dataDir);
    expect(await second.readStats()).toEqual(before);
    expect(before).toMatchObject({ invocations: 2, errors: 1, sessions: 2 });
    expect(await second.loadHistory('acme', 'chat', 10)).toHaveLength(1);
    expect(await second.loadSettingsOverrides()).toEqual({ greeting: 'Saved' });
    expect((await second.loadOAuthToken('acme', 'github'))?.accessToken).toBe('at');
    await second.close();
    const [migrations] = await onFile(join(dataDir, 'actor.db'), ['select name from actorkit_migrations']);
    expect(migrations).toEqual(STORE_MIGRATIONS.map((migration) => [migration.name]));
  });

  it('rejects calls after close', async () => {
    const store = await openFileStore(join(root, 'closed'));
    await store.close();
    await store.close();
    await expect(store.readStats()).rejects.toThrow('closed');
  });

  it('gives each memory:// store its own database', async () => {
    const [one, two] = await Promise.all([
      openStore({ url: 'memory://', logger: silentLogger }),
      openStore({ url: 'memory://', logger: silentLogger }),
    ]);
    await Promise.all([one.migrate(), two.migrate()]);
    await one.saveTurns([invocation()]);
    expect((await one.readStats()).invocations).toBe(1);
    expect((await two.readStats()).invocations).toBe(0);
    await Promise.all([one.close(), two.close()]);
  });

  it('rebuilds the counted record ids WITHOUT ROWID (migration 0003) and keeps every id and message', async () => {
    const { dataDir, path } = await prepareFile('before-0003', async (db, database) => {
      await migrateStore(
        db,
        'sqlite',
        STORE_MIGRATIONS.filter((migration) => migration.name < '0003'),
      );
      database.exec(`insert into actorkit_stats_applied (id, applied_at_ms) values ('counted-before', ${Date.now()})`);
      database.exec(
        `insert into actorkit_chat_messages values ('acme', 'chat', 0, 'm0', 'user', 'kept', null, '2025-01-01T00:00:00.000Z')`,
      );
    });
    const store = await openFileStore(dataDir);
    await store.saveTurns([invocation({ id: 'counted-before' }), invocation({ id: 'new' })]);
    expect((await store.readStats()).invocations).toBe(1);
    expect((await store.loadHistory('acme', 'chat', 5)).map((message) => message.content)).toEqual(['kept']);
    await store.close();
    const [tables] = await onFile(path, [
      `select name from sqlite_master where type = 'table' and name = 'actorkit_stats_applied' and sql like '%without rowid%'`,
    ]);
    expect(tables).toEqual([['actorkit_stats_applied']]);
  });

  it('opens a database the former migration loop created, without migrating it again', async () => {
    const { dataDir, path } = await prepareFile('legacy', (db, database) =>
      createLegacyDatabase(db, async (statement) => database.exec(statement)),
    );
    const rows = async (statement: string) => {
      const connection = new Database(path);
      try {
        return connection.prepare(statement).all() as Record<string, unknown>[];
      } finally {
        connection.close();
      }
    };
    await expectLegacyDatabaseOpens(undefined, dataDir, rows);
  });

  it('migrates one file from four processes at once, each migration once', async () => {
    const dataDir = join(root, 'four-processes');
    const go = join(root, 'four-processes.go');
    const script = join(root, 'migrate-once.mts');
    const openStoreUrl = new URL('../../src/store/open-store.ts', import.meta.url).href;
    const loggerUrl = new URL('../../src/log/logger.ts', import.meta.url).href;
    await writeFile(
      script,
      `import { existsSync, writeFileSync } from 'node:fs';
       import { openStore } from ${JSON.stringify(openStoreUrl)};
       import { silentLogger } from ${JSON.stringify(loggerUrl)};
       writeFileSync(process.argv[2] + '.ready', '');
       while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 5));
       const store = await openStore({ dataDir: ${JSON.stringify(dataDir)}, logger: silentLogger });
       await store.migrate();
       await store.close();`,
    );
    // The file exists, in WAL mode and not migrated, before they start: the race under test is the migration's.
    await (await openStore({ dataDir, logger: silentLogger })).close();
    const cwd = new URL('../..', import.meta.url);
    let failure: unknown;
    const children = Promise.all(
      Array.from({ length: 4 }, (_, index) =>
        promisify(execFile)(process.execPath, ['--import', 'tsx', script, join(root, `four-processes-${index}`)], {
          cwd,
          timeout: 60_000,
        }),
      ),
    ).catch((error: unknown) => (failure = error));
    // All four wait at the start line until every one has loaded, so their migrations overlap.
    await vi.waitFor(
      () => {
        if (failure !== undefined) throw failure;
        expect([0, 1, 2, 3].every((index) => existsSync(join(root, `four-processes-${index}.ready`)))).toBe(true);
      },
      { timeout: 60_000, interval: 20 },
    );
    await writeFile(go, '');
    await children;
    if (failure !== undefined) throw failure;
    const [migrations, totals] = await onFile(join(dataDir, 'actor.db'), [
      'select name from actorkit_migrations order by name',
      'select count(*) from actorkit_stats_totals',
    ]);
    expect(migrations).toEqual(STORE_MIGRATIONS.map((migration) => [migration.name]));
    expect(totals).toEqual([[1]]);
  }, 90_000);
});

describe('SQLite refusing a record', () => {
  it('sets aside a record the database refuses (a constraint), logs it once, and writes the rest without an outage', async () => {
    const dataDir = join(root, 'refused-record');
    const store = await openFileStore(dataDir);
    await onFile(join(dataDir, 'actor.db'), [
      `create trigger refuse_boom before insert on actorkit_stats_users when new.user_identifier = 'boom' begin select raise(abort, 'injected refusal'); end`,
    ]);
    const sink = createMemorySink();
    const buffer = new GroupCommit(store, { logger: createLogger({ sink }), retryIntervalMs: 20 });
    const outcomes = await Promise.all(
      ['u-1', 'boom', 'u-2'].map((userIdentifier) => buffer.saveTurn(invocation({ userIdentifier }))),
    );
    expect(outcomes.map((outcome) => outcome.persisted)).toEqual([true, false, true]);
    expect(buffer.pending).toBe(0);
    expect(buffer.setAside).toBe(1);
    expect(sink.records.filter((record) => record.event === 'invocation_record_set_aside')).toHaveLength(1);
    expect(sink.records.filter((record) => record.event === 'invocation_store_unavailable')).toHaveLength(0);
    for (let index = 0; index < 3; index += 1) expect((await buffer.saveTurn(invocation())).persisted).toBe(true);
    expect((await store.readStats()).invocations).toBe(5);
    await buffer.flush();
    await store.close();
  });
});

describe('SQLite group write (one multi-row statement per table and group)', () => {
  const turn = (id: string, content = `content of ${id}`) => ({
    id,
    role: 'user' as const,
    content,
    createdAt: '2025-01-01T00:00:00.000Z',
  });

  it('writes a group larger than one statement takes: every session, message and idempotency key, in order', async () => {
    const store = await openFileStore(join(root, 'large-group'));
    // 1,200 records over 1,100 sessions (100 of them twice) and 1,200 keys: more rows than one statement binds (500).
    const keys = Array.from({ length: 1_200 }, (_, index) => `key-${index}`);
    for (const key of keys) expect(await store.claimIdempotencyKey(key, 'fp', 60_000)).toBeNull();
    await store.appendMessages('acme', 'session-7', [turn('earlier')]);
    const records = keys.map((key, index) =>
      invocation({
        sessionId: `session-${index % 1_100}`,
        userIdentifier: `user-${index % 600}`,
        history: [turn(`q-${index}`), turn(`a-${index}`)],
        idempotency: { key, status: 200, body: `{"turn":${index}}`, ttlMs: 60_000 },
      }),
    );
    await store.saveTurns(records);
    expect(await store.readStats()).toMatchObject({ invocations: 1_200, sessions: 1_100, users: 600 });
    expect((await store.loadHistory('acme', 'session-7', 10)).map((m) => m.id)).toEqual([
      'earlier',
      'q-7',
      'a-7',
      'q-1107',
      'a-1107',
    ]);
    expect((await store.loadHistory('acme', 'session-1099', 10)).map((m) => m.id)).toEqual(['q-1099', 'a-1099']);
    expect(await store.claimIdempotencyKey('key-0', 'fp', 60_000)).toEqual({
      state: 'completed',
      fingerprint: 'fp',
      status: 200,
      body: '{"turn":0}',
    });
    expect(await store.claimIdempotencyKey('key-1199', 'fp', 60_000)).toEqual({
      state: 'completed',
      fingerprint: 'fp',
      status: 200,
      body: '{"turn":1199}',
    });
    // Positions are dense and start at 0 in every session: the count of each equals its last position + 1.
    const [gaps] = await onFile(join(root, 'large-group', 'actor.db'), [
      `select count(*) from actorkit_chat_sessions s where s.message_count != (select count(*) from actorkit_chat_messages m where m.tenant_id = s.tenant_id and m.session_id = s.session_id and m.position < s.message_count)`,
    ]);
    expect(gaps).toEqual([[0]]);
    await store.close();
  });

  it('completes a key given twice in one group with the later reply, and leaves unclaimed keys free', async () => {
    const store = await openFileStore(join(root, 'twice-key'));
    expect(await store.claimIdempotencyKey('k', 'fp', 60_000)).toBeNull();
    await store.saveTurns([
      invocation({ idempotency: { key: 'k', status: 200, body: 'first', ttlMs: 60_000 } }),
      invocation({ idempotency: { key: 'k', status: 201, body: 'second', ttlMs: 60_000 } }),
      invocation({ idempotency: { key: 'free', status: 200, body: 'x', ttlMs: 60_000 } }),
    ]);
    expect(await store.claimIdempotencyKey('k', 'fp', 60_000)).toEqual({
      state: 'completed',
      fingerprint: 'fp',
      status: 201,
      body: 'second',
    });
    expect(await store.claimIdempotencyKey('free', 'fp', 60_000)).toBeNull();
    await store.close();
  });

  it('gives each session of a group its own positions when some ids do not come back from SQLite as given', async () => {
    const store = await openFileStore(join(root, 'altered-keys'));
    const sessions = ['plain', 'pair-\ud83d\ude00', 'lone-\ud800', 'nul-\u0000-x', 'other'];
    await store.saveTurns(
      sessions.map((sessionId) => invocation({ sessionId, history: [turn(`${sessionId}-q`), turn(`${sessionId}-a`)] })),
    );
    await store.saveTurns(sessions.map((sessionId) => invocation({ sessionId, history: [turn(`${sessionId}-q2`)] })));
    for (const sessionId of ['plain', 'pair-\ud83d\ude00', 'other']) {
      expect((await store.loadHistory('acme', sessionId, 10)).map((m) => m.id)).toEqual([
        `${sessionId}-q`,
        `${sessionId}-a`,
        `${sessionId}-q2`,
      ]);
    }
    expect((await store.readStats()).invocations).toBe(10);
    await store.close();
  });

  it('fails only the turn the database refuses: the others of its group keep their history (the group commit writes a refused group one by one)', async () => {
    const dataDir = join(root, 'one-bad-turn');
    const store = await openFileStore(dataDir);
    await onFile(join(dataDir, 'actor.db'), [
      `create trigger boom before insert on actorkit_chat_messages when new.content = 'boom' begin select raise(abort, 'injected fault'); end`,
    ]);
    const buffer = new GroupCommit(store, { logger: silentLogger });
    const outcomes = await Promise.all(
      ['a', 'b', 'bad', 'c'].map((sessionId) =>
        buffer.saveTurn(
          invocation({ sessionId, history: [turn(`${sessionId}-q`, sessionId === 'bad' ? 'boom' : 'fine')] }),
        ),
      ),
    );
    expect(outcomes).toEqual([
      { persisted: true, historySaved: true },
      { persisted: true, historySaved: true },
      { persisted: true, historySaved: false },
      { persisted: true, historySaved: true },
    ]);
    expect((await store.readStats()).invocations).toBe(4);
    for (const sessionId of ['a', 'b', 'c'])
      expect((await store.loadHistory('acme', sessionId, 10)).map((m) => m.id)).toEqual([`${sessionId}-q`]);
    expect(await store.loadHistory('acme', 'bad', 10)).toEqual([]);
    await buffer.flush();
    await store.close();
  });
});
