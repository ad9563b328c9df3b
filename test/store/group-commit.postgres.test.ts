import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../../src/log/logger.js';
import { DatabaseMonitor } from '../../src/store/database-monitor.js';
import { GroupCommit } from '../../src/store/group-commit.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { proxyDatabase, TestSchemas } from './postgres-schemas.js';
import { postgresTestUrl } from './postgres-test-database.js';
import { invocation } from '../../src/testing/test-invocation.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

const baseUrl = postgresTestUrl('GroupCommit over PostgreSQL');

/** Sends `count` records through `buffer` from `concurrency` workers; returns how many were deferred. */
async function load(
  buffer: GroupCommit,
  count: number,
  concurrency: number,
  onSent?: (sent: number) => void,
): Promise<number> {
  let sent = 0;
  let deferred = 0;
  const worker = async () => {
    while (sent < count) {
      sent += 1;
      onSent?.(sent);
      const { persisted } = await buffer.saveTurn(
        invocation({ sessionId: `s-${sent % 11}`, userIdentifier: `u-${sent % 5}` }),
      );
      if (!persisted) deferred += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return deferred;
}

if (baseUrl !== undefined) {
  describe('GroupCommit over a PostgreSQL link that is cut and restored', () => {
    const schemas = new TestSchemas(baseUrl);
    const closing: (Store | TcpProxy)[] = [];
    afterAll(async () => {
      await Promise.all(closing.map((item) => item.close()));
      await schemas.dropAll();
    });

    it('answers every record, reports the outage, stays exact, and ends with the exact total', async () => {
      const url = await schemas.create();
      const direct = await openStore({ url, logger: silentLogger });
      closing.push(direct);
      await direct.migrate();
      const { proxy, url: proxied } = await proxyDatabase(url);
      closing.push(proxy);
      const sink = createMemorySink();
      const logger = createLogger({ sink });
      const store = await openStore({ url: proxied, poolSize: 4, connectTimeoutMs: 1_000, logger });
      closing.push(store);
      const monitor = new DatabaseMonitor(store, { logger: silentLogger });
      const buffer = new GroupCommit(store, { logger, monitor, retryIntervalMs: 20, timeoutMs: 2_000 });
      expect((await buffer.readStats()).invocations).toBe(0);

      expect(await load(buffer, 100, 10)).toBe(0);
      proxy.cut();
      expect(await load(buffer, 100, 10)).toBeGreaterThan(0);
      expect(monitor.status().status).toBe('warn');
      expect(buffer.pending).toBeGreaterThan(0);
      expect((await buffer.readStats()).invocations).toBe(200);

      await load(buffer, 200, 10, (sent) => {
        if (sent === 50) proxy.restore();
      });
      await buffer.flush();

      expect(buffer.pending).toBe(0);
      expect(await direct.readStats()).toMatchObject({ invocations: 400, sessions: 11, users: 5, tenants: 1 });
      expect(await buffer.readStats()).toMatchObject({ invocations: 400 });
      const events = sink.records.map((record) => record.event);
      expect(events.filter((event) => event === 'invocation_store_unavailable')).toHaveLength(1);
      expect(events.filter((event) => event === 'invocation_store_recovered')).toHaveLength(1);
      expect(monitor.status().status).toBe('pass');
    });

    it('saves the history of every turn of a group but the one PostgreSQL refuses (a NUL character), and counts all', async () => {
      const store = await openStore({ url: await schemas.create(), logger: silentLogger });
      closing.push(store);
      await store.migrate();
      const buffer = new GroupCommit(store, { logger: silentLogger });
      const turn = (content: string) =>
        invocation({
          sessionId: 'chat',
          history: [
            { id: content.replace('\u0000', '-'), role: 'user', content, createdAt: '2025-01-01T00:00:00.000Z' },
          ],
        });
      const outcomes = await Promise.all(
        ['first', 'before\u0000after', 'last'].map((content) => buffer.saveTurn(turn(content))),
      );
      expect(outcomes).toEqual([
        { persisted: true, historySaved: true },
        { persisted: true, historySaved: false },
        { persisted: true, historySaved: true },
      ]);
      expect((await store.loadHistory('acme', 'chat', 10)).map((m) => m.content)).toEqual(['first', 'last']);
      expect((await store.readStats()).invocations).toBe(3);
    });
  });
}
