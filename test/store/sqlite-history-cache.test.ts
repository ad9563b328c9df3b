import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { Kysely, sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import type { HistoryCacheOptions } from '../../src/store/history-cache.js';
import { ImmediateSqliteDialect } from '../../src/store/immediate-sqlite-dialect.js';
import { SqlStore } from '../../src/store/sql-store.js';
import { openSqliteDatabase } from '../../src/store/sqlite-database.js';
import type { TurnToSave, StoredMessage } from '../../src/store/store.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { invocation } from '../../src/testing/test-invocation.js';

// Issue #17: the SQLite store keeps recent history in memory; every answer must be the one the
// database gives, whoever wrote it.

const root = await mkdtemp(join(tmpdir(), 'actorkit-history-cache-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(root, `store-${(files += 1)}.db`);

/** A store on `path` (its own connection), with the history statements it runs counted. */
interface CountedStore {
  readonly store: SqlStore;
  readonly db: Kysely<StoreDatabase>;
  /** History reads that reached the database so far. */
  historyReads(): number;
}

const opened: SqlStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function openCounted(path: string, historyCache?: HistoryCacheOptions | false): Promise<CountedStore> {
  const database = openSqliteDatabase(path, { busyTimeoutMs: 10_000 });
  database.prepare('PRAGMA journal_mode = WAL').all([]);
  let reads = 0;
  const db = new Kysely<StoreDatabase>({ dialect: new ImmediateSqliteDialect({ database }) });
  // The history read runs on the connection itself, not through Kysely: counted where it is prepared.
  const sqliteConnection = {
    prepare(text: string) {
      const statement = database.prepare(text);
      if (!text.startsWith('select id, role, content, data, created_at from actorkit_chat_messages')) return statement;
      return {
        reader: statement.reader,
        all: (parameters: readonly unknown[]) => {
          reads += 1;
          return statement.all(parameters);
        },
        run: (parameters: readonly unknown[]) => statement.run(parameters),
        iterate: (parameters: readonly unknown[]) => statement.iterate(parameters),
      };
    },
  };
  const store = new SqlStore({
    db,
    sqliteConnection,
    engine: 'sqlite',
    logger: silentLogger,
    ...(historyCache === undefined ? {} : { historyCache }),
  });
  opened.push(store);
  await store.migrate();
  return { store, db, historyReads: () => reads };
}

let messages = 0;
function message(overrides: Partial<StoredMessage> = {}): StoredMessage {
  messages += 1;
  return {
    id: `m${messages}`,
    role: 'user',
    content: `content ${messages}`,
    createdAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}
const ids = (history: readonly StoredMessage[]) => history.map((m) => m.id);

describe('SQLite history cache', () => {
  it('answers repeated reads and reads after its own writes from memory, as an invoke reads then writes', async () => {
    const { store, historyReads } = await openCounted(freshPath());
    const [first, second, third, fourth] = [
      message(),
      message({ role: 'assistant', data: { tool_calls: [] } }),
      message(),
      message(),
    ];
    // A session read once (empty, so whole) is then held: the turn's write extends it.
    expect(await store.loadHistory('acme', 'chat', 20)).toEqual([]);
    expect(await store.loadHistory('acme', 'chat', 20)).toEqual([]);
    expect(historyReads()).toBe(1);
    await store.appendMessages('acme', 'chat', [first, second]);
    expect(ids(await store.loadHistory('acme', 'chat', 20))).toEqual([first.id, second.id]);
    await store.saveTurns([invocation({ sessionId: 'chat', history: [third] })]);
    const history = await store.loadHistory('acme', 'chat', 2);
    expect(ids(history)).toEqual([second.id, third.id]);
    expect(history[0]).toEqual(second);
    // A session this process creates is held from its first write.
    await store.appendMessages('acme', 'new', [fourth]);
    expect(ids(await store.loadHistory('acme', 'new', 20))).toEqual([fourth.id]);
    expect(historyReads()).toBe(1);
  });

  it('appends nothing to a held session for a record counted before', async () => {
    const path = freshPath();
    const { store, historyReads } = await openCounted(path);
    const reference = await openCounted(path, false);
    expect(await store.loadHistory('acme', 'chat', 20)).toEqual([]);
    const turn = invocation({ sessionId: 'chat', history: [message(), message({ role: 'assistant' })] });
    await store.saveTurns([turn]);
    // Retried with a record not counted yet, so that the call still writes.
    await store.saveTurns([turn, invocation({ sessionId: 'chat' })]);
    await store.saveTurns([turn]);
    const history = await store.loadHistory('acme', 'chat', 20);
    expect(ids(history)).toEqual(ids(turn.history!));
    expect(history).toEqual(await reference.store.loadHistory('acme', 'chat', 20));
    expect(historyReads()).toBe(1);
  });

  it('gives each caller objects of its own', async () => {
    const { store } = await openCounted(freshPath());
    const data = { tool_calls: [{ id: 'c1', name: 'weather', arguments: '{}' }] };
    await store.appendMessages('acme', 'chat', [message({ role: 'assistant', data })]);
    const [first] = await store.loadHistory('acme', 'chat', 5);
    (first!.data as typeof data).tool_calls.pop();
    const [again] = await store.loadHistory('acme', 'chat', 5);
    expect(again!.data).toEqual(data);
  });

  it('sees what another connection to the file wrote, before and after its own writes', async () => {
    const path = freshPath();
    const a = await openCounted(path);
    const b = await openCounted(path);
    const [own1, theirs1, theirs2, own2] = [message(), message(), message(), message()];
    await a.store.appendMessages('acme', 'chat', [own1]);
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([own1.id]);
    await b.store.appendMessages('acme', 'chat', [theirs1]);
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([own1.id, theirs1.id]);
    // The other connection commits, then this one appends: its cached tail must not skip theirs.
    await b.store.appendMessages('acme', 'chat', [theirs2]);
    await a.store.appendMessages('acme', 'chat', [own2]);
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([own1.id, theirs1.id, theirs2.id, own2.id]);
    expect(ids(await b.store.loadHistory('acme', 'chat', 20))).toEqual([own1.id, theirs1.id, theirs2.id, own2.id]);
  });

  it('sees what another process wrote to the file', async () => {
    const path = freshPath();
    const a = await openCounted(path);
    const [own, theirs] = [message(), message()];
    await a.store.appendMessages('acme', 'chat', [own]);
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([own.id]);
    const script = join(root, 'append-elsewhere.mts');
    const openStoreUrl = new URL('../../src/store/open-store.ts', import.meta.url).href;
    const loggerUrl = new URL('../../src/log/logger.ts', import.meta.url).href;
    await writeFile(
      script,
      `import { openStore } from ${JSON.stringify(openStoreUrl)};
       import { silentLogger } from ${JSON.stringify(loggerUrl)};
       const store = await openStore({ url: 'file:' + process.argv[2], logger: silentLogger });
       await store.appendMessages('acme', 'chat', [JSON.parse(process.argv[3])]);
       await store.close();`,
    );
    const cwd = new URL('../..', import.meta.url);
    await promisify(execFile)(process.execPath, ['--import', 'tsx', script, path, JSON.stringify(theirs)], {
      cwd,
      timeout: 60_000,
    });
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([own.id, theirs.id]);
  }, 60_000);

  it('leaves the cache as it was when a transaction appending history rolls back', async () => {
    const path = freshPath();
    const a = await openCounted(path);
    const reference = await openCounted(path, false);
    // A trigger of this connection (temporary: other connections never see it) fails the insert of one message.
    await sql`create temp trigger boom before insert on main.actorkit_chat_messages when new.content = 'boom' begin select raise(abort, 'injected fault'); end`.execute(
      a.db,
    );
    const kept = message();
    await a.store.appendMessages('acme', 'chat', [kept]);
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([kept.id]);
    const reads = a.historyReads();
    const failing = invocation({ sessionId: 'chat', history: [message(), message({ content: 'boom' })] });
    await expect(a.store.saveTurns([invocation({ sessionId: 'chat', history: [message()] }), failing])).rejects.toThrow(
      'injected fault',
    );
    await expect(a.store.appendMessages('acme', 'chat', [message(), message({ content: 'boom' })])).rejects.toThrow(
      'injected fault',
    );
    expect(ids(await a.store.loadHistory('acme', 'chat', 20))).toEqual([kept.id]);
    expect(a.historyReads()).toBe(reads);
    expect(ids(await reference.store.loadHistory('acme', 'chat', 20))).toEqual([kept.id]);
    expect((await a.store.readStats()).invocations).toBe(0);
  });

  it('is off with historyCache: false; bad bounds are refused', async () => {
    const { store, historyReads } = await openCounted(freshPath(), false);
    await store.appendMessages('acme', 'chat', [message()]);
    await store.loadHistory('acme', 'chat', 5);
    await store.loadHistory('acme', 'chat', 5);
    expect(historyReads()).toBe(2);
    const db = new Kysely<StoreDatabase>({
      dialect: new ImmediateSqliteDialect({ database: openSqliteDatabase(':memory:', { busyTimeoutMs: 1 }) }),
    });
    expect(
      () => new SqlStore({ db, engine: 'sqlite', logger: silentLogger, historyCache: { maxSessions: 0 } }),
    ).toThrow(/maxSessions must be a positive integer/);
    expect(() => new SqlStore({ db, engine: 'sqlite', logger: silentLogger })).toThrow(
      /sqliteConnection is required on SQLite/,
    );
    await db.destroy();
  });

  describe('gives the answers of a store without it', () => {
    type Turn = readonly Partial<StoredMessage>[];
    type Step =
      | {
          readonly kind: 'append';
          readonly by: 'cached' | 'other';
          readonly tenantId: string;
          readonly sessionId: string;
          readonly turn: Turn;
        }
      | {
          readonly kind: 'record';
          readonly records: readonly {
            readonly tenantId: string;
            readonly sessionId: string;
            readonly turn: Turn | null;
            readonly repeat: number | null;
          }[];
        }
      | { readonly kind: 'load'; readonly tenantId: string; readonly sessionId: string; readonly limit: number };

    /**
     * Random calls on few sessions, so that they grow past the kept tail. With `altered`, one
     * session id and some contents hold text SQLite does not give back as given (libSQL cuts a
     * NUL; an unpaired surrogate comes back as U+FFFD).
     */
    function steps(altered: boolean): fc.Arbitrary<Step[]> {
      const session = fc.constantFrom('s0', 's1', 's2', ...(altered ? ['s0\u0000x'] : []));
      const tenant = fc.constantFrom('acme', 'acme', 'globex');
      const odd = fc
        .tuple(fc.string({ maxLength: 3 }), fc.constantFrom('\u0000', '\ud800', '\udc00'), fc.string({ maxLength: 3 }))
        .map((parts) => parts.join(''));
      const content = altered
        ? fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 8 }) }, { weight: 1, arbitrary: odd })
        : fc.string({ maxLength: 8 });
      const turn = fc.array(
        fc.record({
          content,
          role: fc.constantFrom<StoredMessage['role']>('user', 'assistant', 'tool'),
          data: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        }),
        {
          minLength: 1,
          maxLength: 4,
        },
      );
      const load = fc.record({
        kind: fc.constant('load' as const),
        tenantId: tenant,
        sessionId: session,
        limit: fc.integer({ min: 1, max: 8 }),
      });
      const step: fc.Arbitrary<Step> = fc.oneof(
        fc.record({
          kind: fc.constant('append' as const),
          by: fc.constantFrom<'cached' | 'other'>('cached', 'cached', 'cached', 'other'),
          tenantId: tenant,
          sessionId: session,
          turn,
        }),
        fc.record({
          kind: fc.constant('record' as const),
          records: fc.array(
            fc.record({
              tenantId: tenant,
              sessionId: session,
              turn: fc.option(turn, { nil: null }),
              repeat: fc.option(fc.nat(), { nil: null, freq: 3 }),
            }),
            {
              minLength: 1,
              maxLength: 3,
            },
          ),
        }),
        load,
        load,
      );
      return fc.array(step, { minLength: 1, maxLength: 60 });
    }

    /** Runs `list` on a cached store and, for each read, compares it with a store without the cache on the same file. */
    async function compare(list: readonly Step[]): Promise<void> {
      const path = freshPath();
      // Small bounds, so that sessions are evicted and tails cut.
      const cached = await openCounted(path, { maxSessions: 4, maxMessages: 5 });
      const other = await openCounted(path, false);
      const counted: TurnToSave[] = [];
      const build = (turn: Turn) => turn.map((m) => message(m));
      try {
        for (const s of list) {
          if (s.kind === 'append') {
            // Both connections live in this process and libSQL blocks the event loop while it
            // waits for a lock: the cached store's clean-up (started, never awaited, by a
            // record) must be over before the other connection writes, or they deadlock.
            if (s.by === 'other') await cached.store.ping();
            await (s.by === 'cached' ? cached : other).store.appendMessages(s.tenantId, s.sessionId, build(s.turn));
          } else if (s.kind === 'record') {
            // A repeat is a record counted before: it must append nothing, to the database or the cache.
            const records = s.records.map((r) => {
              const earlier =
                r.repeat === null || counted.length === 0 ? undefined : counted[r.repeat % counted.length];
              return (
                earlier ??
                invocation({
                  tenantId: r.tenantId,
                  sessionId: r.sessionId,
                  ...(r.turn === null ? {} : { history: build(r.turn) }),
                })
              );
            });
            await cached.store.saveTurns(records);
            counted.push(...records);
          } else {
            const got = await cached.store.loadHistory(s.tenantId, s.sessionId, s.limit);
            expect(got).toEqual(await other.store.loadHistory(s.tenantId, s.sessionId, s.limit));
          }
        }
      } finally {
        for (const store of [cached.store, other.store]) {
          opened.splice(opened.indexOf(store), 1);
          await store.close();
        }
      }
    }

    it('over random appends, records (retried ones included), writes of another connection and reads', async () => {
      await fc.assert(fc.asyncProperty(steps(false), compare), { numRuns: 200 });
    }, 120_000);

    it('with ids and contents SQLite does not give back as given', async () => {
      await fc.assert(fc.asyncProperty(steps(true), compare), { numRuns: 60 });
    }, 120_000);
  });
});
