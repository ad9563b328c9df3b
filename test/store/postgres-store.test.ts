import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';
import { randomUUID } from 'node:crypto';
import { SqlStore } from '../../src/store/sql-store.js';
import type { StoredMessage, TurnToSave, Store } from '../../src/store/store.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { STORE_MIGRATIONS } from '../../src/store/store-migrations.js';
import { createLegacyDatabase, expectLegacyDatabaseOpens } from './legacy-migration-table.js';
import { proxyDatabase, queryTestDatabase, TestSchemas, withSearchPath } from './postgres-schemas.js';
import { postgresTestUrl } from './postgres-test-database.js';
import { describeStoreContract } from '../../src/testing/describe-store-contract.js';
import { invocation } from '../../src/testing/test-invocation.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';

const baseUrl = postgresTestUrl('PostgreSQL store');

if (baseUrl !== undefined) {
  const schemas = new TestSchemas(baseUrl);
  afterAll(() => schemas.dropAll());

  const open = (url: string) => openStore({ url, poolSize: 4, logger: silentLogger });

  describeStoreContract({
    name: 'PostgreSQL',
    reachableFromOutside: true,
    async fresh() {
      const url = await schemas.create();
      const store = await open(url);
      await store.migrate();
      return {
        store,
        async breakInsertsOfUserBoom() {
          await queryTestDatabase(
            url,
            `create function boom() returns trigger language plpgsql as $$ begin
               if new.user_identifier = 'boom' then raise exception 'injected fault'; end if; return new; end $$;
             create trigger boom before insert on actorkit_stats_users for each row execute function boom();`,
          );
          return async () => {
            await queryTestDatabase(url, 'drop trigger boom on actorkit_stats_users; drop function boom()');
          };
        },
      };
    },
  });

  describe('PostgreSQL store with several replicas', () => {
    const replicas: Store[] = [];
    afterAll(() => Promise.all(replicas.splice(0).map((store) => store.close())));

    it('migrates a fresh schema from four replicas at once, each migration once', async () => {
      const url = await schemas.create();
      const four = await Promise.all(Array.from({ length: 4 }, () => open(url)));
      replicas.push(...four);
      await Promise.all(four.map((store) => store.migrate()));
      const rows = await queryTestDatabase<{ name: string }>(url, 'select name from actorkit_migrations order by name');
      expect(rows.map((row) => row.name)).toEqual(STORE_MIGRATIONS.map((migration) => migration.name));
      const totals = await queryTestDatabase<{ count: string }>(url, 'select count(*) from actorkit_stats_totals');
      expect(totals).toEqual([{ count: '1' }]);
      await Promise.all(four.map((store) => store.migrate()));
      expect((await four[3]!.readStats()).invocations).toBe(0);
    });

    it('counts exactly when two stores write to one database at once', async () => {
      const url = await schemas.create();
      const [one, two] = await Promise.all([open(url), open(url)]);
      replicas.push(one, two);
      await one.migrate();
      const calls: [Store, TurnToSave[]][] = [];
      for (let call = 0; call < 40; call += 1) {
        const records = Array.from({ length: 10 }, (_, index) =>
          invocation({
            tenantId: `tenant-${index % 4}`,
            sessionId: `s-${(call + index) % 7}`,
            userIdentifier: `u-${(call * index) % 9}`,
            latencyMs: call + index,
          }),
        );
        calls.push([call % 2 === 0 ? one : two, records]);
      }
      // The same records written again through the other store (a retry after a lost reply) count once.
      const retries = calls
        .slice(0, 10)
        .map(([store, records]): [Store, TurnToSave[]] => [store === one ? two : one, records]);
      await Promise.all([...calls, ...retries].map(([store, records]) => store.saveTurns(records)));

      const expected = new Map<string, { invocations: number; sessions: Set<string>; users: Set<string> }>();
      for (const [, records] of calls) {
        for (const record of records) {
          const entry = expected.get(record.tenantId) ?? { invocations: 0, sessions: new Set(), users: new Set() };
          entry.invocations += 1;
          entry.sessions.add(record.sessionId);
          entry.users.add(record.userIdentifier);
          expected.set(record.tenantId, entry);
        }
      }
      const allUsers = new Set(calls.flatMap(([, records]) => records.map((record) => record.userIdentifier)));
      const sessions = [...expected.values()].reduce((sum, entry) => sum + entry.sessions.size, 0);
      const latency = calls.flatMap(([, records]) => records).reduce((sum, record) => sum + record.latencyMs, 0);
      for (const store of [one, two]) {
        expect(await store.readStats()).toMatchObject({
          invocations: 400,
          tenants: 4,
          sessions,
          users: allUsers.size,
          latencyMsTotal: latency,
        });
        for (const [tenantId, entry] of expected) {
          expect(await store.readStats(tenantId)).toMatchObject({
            invocations: entry.invocations,
            sessions: entry.sessions.size,
            users: entry.users.size,
            tenants: 1,
          });
        }
      }
    });

    it('starts before its database answers and works once it does, without reopening', async () => {
      const { proxy, url } = await proxyDatabase(await schemas.create());
      try {
        proxy.cut();
        const store = await open(url);
        replicas.push(store);
        await expect(store.migrate()).rejects.toThrow();
        proxy.restore();
        await store.migrate();
        await store.saveTurns([invocation()]);
        expect((await store.readStats()).invocations).toBe(1);
      } finally {
        await proxy.close();
      }
    });

    it('opens a schema the former migration loop created, without migrating it again', async () => {
      const url = await schemas.create();
      const db = new Kysely<StoreDatabase>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
      });
      try {
        await createLegacyDatabase(db, (statement) => sql.raw(statement).execute(db));
      } finally {
        await db.destroy();
      }
      await expectLegacyDatabaseOpens(url, undefined, (statement) => queryTestDatabase(url, statement));
    });

    it('takes the migration lock of its own schema only, under the key replicas of every version share', async () => {
      const [urlA, urlB] = [await schemas.create(), await schemas.create()];
      const holder = new pg.Client({ connectionString: urlA });
      await holder.connect();
      try {
        // The key of the store's former migration loop: a replica of either version waits for the other.
        await holder.query(`select pg_advisory_lock(${0x61_6b_74_6d}::integer, hashtext(current_schema()))`);
        const [a, b] = await Promise.all([open(urlA), open(urlB)]);
        replicas.push(a, b);
        let migratedA = false;
        const migratingA = a.migrate().then(() => (migratedA = true));
        const waitingForLock = `select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and objsubid = 2
          and classid = ${0x61_6b_74_6d} and objid::text::bigint = (hashtext(current_schema())::bigint & 4294967295)`;
        await vi.waitFor(async () => expect(await queryTestDatabase(urlA, waitingForLock)).toEqual([{ waiting: 1 }]), {
          timeout: 20_000,
          interval: 50,
        });
        await b.migrate();
        expect(migratedA).toBe(false);
        await holder.query(`select pg_advisory_unlock_all()`);
        await migratingA;
        expect(
          (await queryTestDatabase<{ name: string }>(urlA, 'select name from actorkit_migrations order by name')).map(
            (row) => row.name,
          ),
        ).toEqual(STORE_MIGRATIONS.map((migration) => migration.name));
      } finally {
        await holder.end();
      }
    });

    it('refuses to migrate when search_path names no existing schema, saying so', async () => {
      const store = await open(withSearchPath(baseUrl, `actorkit_missing_${process.pid}`));
      replicas.push(store);
      await expect(store.migrate()).rejects.toThrow(
        'PostgreSQL has no current schema: set search_path to an existing schema',
      );
    });

    it('keeps each schema to itself', async () => {
      const [urlA, urlB] = [await schemas.create(), await schemas.create()];
      const [a, b] = await Promise.all([open(urlA), open(urlB)]);
      replicas.push(a, b);
      await Promise.all([a.migrate(), b.migrate()]);
      await a.saveTurns([invocation()]);
      expect((await a.readStats()).invocations).toBe(1);
      expect((await b.readStats()).invocations).toBe(0);
    });
  });

  describe('history cache across replicas', () => {
    const stores: Store[] = [];
    afterAll(() => Promise.all(stores.splice(0).map((store) => store.close())));

    /** A message of the test's own. */
    const message = (text: string): StoredMessage => ({
      id: `msg_${randomUUID()}`,
      role: 'user',
      content: text,
      createdAt: new Date().toISOString(),
    });
    const texts = (messages: readonly StoredMessage[]) => messages.map((m) => m.content);
    const numbered = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, index) => message(`${prefix} ${index}`));

    /** What the database holds: the session's last `limit` messages, oldest first, read without any store. */
    async function stored(url: string, sessionId: string, limit: number): Promise<string[]> {
      const rows = await queryTestDatabase<{ content: string }>(
        url,
        `select content from (select content, position from actorkit_chat_messages where tenant_id = 'acme' and session_id = '${sessionId}' order by position desc limit ${limit}) last order by position`,
      );
      return rows.map((row) => row.content);
    }

    /**
     * Replica A, whose history statements are counted by the rows PostgreSQL returned, and
     * replica B, an ordinary store on the same schema.
     */
    async function twoReplicas(): Promise<{ url: string; a: Store; b: Store; rowsRead: () => number[] }> {
      const url = await schemas.create();
      const b = await open(url);
      stores.push(b);
      await b.migrate();
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const db = new Kysely<StoreDatabase>({ dialect: new PostgresDialect({ pool }) });
      const reads: number[] = [];
      const a = new SqlStore({
        db,
        engine: 'postgres',
        logger: silentLogger,
        prepared: async (name, text, values) => {
          const { rows } = await pool.query({ name, text, values: [...values] });
          if (name.includes('History')) reads.push(rows.length);
          return rows as unknown[];
        },
        onClose: () => pool.end(),
      });
      stores.push(a);
      return { url, a, b, rowsRead: () => reads.splice(0) };
    }

    it('reads only the messages after the cached tail, in one round trip, and sees those another replica appended', async () => {
      const { url, a, b, rowsRead } = await twoReplicas();
      await a.appendMessages('acme', 'chat', numbered('a', 30));
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(await stored(url, 'chat', 20));
      expect(rowsRead()).toEqual([20]);
      await b.appendMessages('acme', 'chat', numbered('b', 3));
      await a.appendMessages('acme', 'chat', numbered('a again', 2));
      const history = await a.loadHistory('acme', 'chat', 20);
      expect(texts(history)).toEqual(await stored(url, 'chat', 20));
      expect(texts(history).slice(-5)).toEqual(['b 0', 'b 1', 'b 2', 'a again 0', 'a again 1']);
      expect(rowsRead()).toEqual([5]);
      // Nothing new: one row that carries the session's identity only.
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(await stored(url, 'chat', 20));
      expect(rowsRead()).toEqual([1]);
    });

    it("answers reads of one session in flight at once alike, each the database's last messages, and the tail stays whole", async () => {
      const { url, a, b, rowsRead } = await twoReplicas();
      await a.appendMessages('acme', 'chat', numbered('a', 20));
      await a.loadHistory('acme', 'chat', 20);
      await b.appendMessages('acme', 'chat', numbered('b', 3));
      const [first, second] = await Promise.all([a.loadHistory('acme', 'chat', 20), a.loadHistory('acme', 'chat', 20)]);
      const expected = await stored(url, 'chat', 20);
      expect(texts(first)).toEqual(expected);
      expect(texts(second)).toEqual(expected);
      rowsRead();
      await b.appendMessages('acme', 'chat', numbered('b again', 1));
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(await stored(url, 'chat', 20));
      expect(rowsRead()).toEqual([1]);
    });

    it('sees a session another replica deleted, and one it deleted and created again with other messages', async () => {
      const { url, a, b, rowsRead } = await twoReplicas();
      await b.appendMessages('acme', 'chat', numbered('first', 6));
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(await stored(url, 'chat', 20));
      const forget = `delete from actorkit_chat_messages where tenant_id = 'acme' and session_id = 'chat';
        delete from actorkit_chat_sessions where tenant_id = 'acme' and session_id = 'chat'`;
      await queryTestDatabase(url, forget);
      expect(await a.loadHistory('acme', 'chat', 20)).toEqual([]);
      // Created again at once, longer than before: the position A last read exists again, with another message.
      await b.appendMessages('acme', 'chat', numbered('a', 6));
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(await stored(url, 'chat', 20));
      await queryTestDatabase(url, forget);
      await b.appendMessages('acme', 'chat', numbered('second', 9));
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(numbered('second', 9).map((m) => m.content));
      rowsRead();
      // The session's identity is its created_at and the newest cached message: the same count, other messages.
      await queryTestDatabase(url, forget);
      await b.appendMessages('acme', 'chat', numbered('third', 9));
      expect(texts(await a.loadHistory('acme', 'chat', 20))).toEqual(numbered('third', 9).map((m) => m.content));
      expect(rowsRead()).toEqual([1, 9]);
    });

    it('answers a larger limit, and more messages than the limit appended elsewhere, exactly', async () => {
      const { url, a, b } = await twoReplicas();
      await a.appendMessages('acme', 'chat', numbered('a', 10));
      expect(texts(await a.loadHistory('acme', 'chat', 4))).toEqual(await stored(url, 'chat', 4));
      expect(texts(await a.loadHistory('acme', 'chat', 8))).toEqual(await stored(url, 'chat', 8));
      await b.appendMessages('acme', 'chat', numbered('b', 25));
      expect(texts(await a.loadHistory('acme', 'chat', 8))).toEqual(await stored(url, 'chat', 8));
      expect(texts(await a.loadHistory('acme', 'chat', 40))).toEqual(await stored(url, 'chat', 40));
      expect(await a.loadHistory('acme', 'other', 8)).toEqual([]);
      expect((await a.loadHistory('acme', 'chat', 1)).map((m) => m.content)).toEqual(['b 24']);
    });
  });

  describe('an actor on PostgreSQL', () => {
    it('refuses a message PostgreSQL cannot store (a NUL character) with a 422, and keeps counting and storing the rest, health ok', async () => {
      const store = await open(await schemas.create());
      const app = await createTestActor({ store });
      try {
        const send = (message: string) =>
          app.request('/agent/invoke', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ user_identifier: 'u', session_id: 's', message }),
          });
        const refused = await send('before\u0000after');
        expect(refused.status).toBe(422);
        expect((await refused.json()).errors).toEqual([
          { pointer: '/message', detail: expect.stringContaining('NUL') },
        ]);
        const stored = await send('plain');
        expect((await stored.json()).metadata).toBeUndefined();
        expect(await (await app.request('/stats')).json()).toMatchObject({ invocations: 1 });
        expect((await (await app.request('/health')).json()).status).toBe('ok');
        expect((await store.loadHistory('default', 's', 10)).map((m) => m.content)[0]).toBe('plain');
      } finally {
        await app.actor.shutdown({ graceMs: 100 });
      }
    });
  });
}
