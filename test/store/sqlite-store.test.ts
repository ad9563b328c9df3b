import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { STORE_MIGRATIONS } from '../../src/store/store-migrations.js';
import { describeStoreContract, invocation } from './store-contract.js';

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
    await first.recordInvocations([invocation({ sessionId: 'a' }), invocation({ sessionId: 'b', outcome: 'error' })]);
    await first.appendMessages('acme', 'chat', [{ id: 'm1', role: 'user', content: 'hello', createdAt: '2025-01-01T00:00:00.000Z' }]);
    await first.saveSettingsOverrides({ greeting: 'Saved' });
    await first.saveOAuthToken({ tenantId: 'acme', provider: 'github', accessToken: 'at', refreshToken: null, tokenType: 'Bearer', scope: null, expiresAt: null });
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
    const [one, two] = await Promise.all([openStore({ url: 'memory://', logger: silentLogger }), openStore({ url: 'memory://', logger: silentLogger })]);
    await Promise.all([one.migrate(), two.migrate()]);
    await one.recordInvocations([invocation()]);
    expect((await one.readStats()).invocations).toBe(1);
    expect((await two.readStats()).invocations).toBe(0);
    await Promise.all([one.close(), two.close()]);
  });
});
