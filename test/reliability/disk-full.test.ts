import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { ImmediateSqliteDialect } from '../../src/store/immediate-sqlite-dialect.js';
import { SqlStore } from '../../src/store/sql-store.js';
import { openRuntimeSqlite } from '../../src/store/sqlite-driver.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';

// A full disk, made real for SQLite with `PRAGMA max_page_count` (the engine then answers
// SQLITE_FULL, as on a full file system): invokes still answer, the cause is named once
// (`store_disk_full`), the per-turn error lines are rate-limited, no "cannot rollback - no
// transaction is active" hides the cause, and /health says degraded, naming the cause.

const INVOKES = 60;

describe('SQLite on a full disk', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-disk-full-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers every invoke, names the cause once, limits the error lines, and /health is degraded', async () => {
    const sink = createMemorySink();
    const logger = createLogger({ level: 'info', sink });
    const { database } = await openRuntimeSqlite(join(dataDir, 'actor.db'), { busyTimeoutMs: 1_000 });
    const store = new SqlStore({
      db: new Kysely<StoreDatabase>({ dialect: new ImmediateSqliteDialect({ database }) }),
      sqliteConnection: database,
      engine: 'sqlite',
      logger,
    });
    const app = createActorApp({ definition: testActorDefinition, env: {}, logger, store });
    await app.actor.start();
    try {
      const [{ page_count: pages }] = database.prepare('PRAGMA page_count').all([]) as [{ page_count: number }];
      // The file may not grow by a single page from here on.
      database.prepare(`PRAGMA max_page_count = ${pages}`).all([]);
      const statuses: number[] = [];
      for (let turn = 0; turn < INVOKES; turn += 1) {
        const response = await app.request('/agent/invoke', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            user_identifier: 'u',
            session_id: `s-${turn % 3}`,
            message: `turn ${turn} ${'x'.repeat(4_000)}`,
          }),
        });
        statuses.push(response.status);
        await response.text();
      }
      expect(statuses).toEqual(statuses.map(() => 200));

      const lines = sink.records;
      const text = JSON.stringify(lines);
      expect(text).not.toContain('cannot rollback');
      expect(lines.filter((record) => record.event === 'store_disk_full')).toHaveLength(1);
      expect(lines.find((record) => record.event === 'store_disk_full')).toMatchObject({
        level: 'error',
        store: 'sqlite',
      });
      // One line per turn before; now at most one per kind of failure and interval.
      const errorLines = lines.filter((record) => record.level === 'error');
      expect(errorLines.length, JSON.stringify(errorLines.map((record) => record.event))).toBeLessThanOrEqual(3);

      const health = (await (await app.request('/health')).json()) as {
        status: string;
        checks: { database: { status: string; output: string } };
      };
      expect(health.status).toBe('degraded');
      expect(health.checks.database.output).toMatch(/disk full/i);
    } finally {
      database.prepare('PRAGMA max_page_count = 1073741823').all([]);
      await app.actor.shutdown({ graceMs: 100 });
    }
  });
});
