import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log/logger.js';
import { GroupCommit } from '../../src/store/group-commit.js';
import { openStore } from '../../src/store/open-store.js';
import { openRuntimeSqlite } from '../../src/store/sqlite-driver.js';

/** Options of `measureWalPagesPerTurn`. */
export interface WalPagesOptions {
  /** Turns measured (after `warmupTurns` that give every session its history). Default 2,000. */
  readonly turns?: number;
  /** Turns in flight at once, as the actor's connections are (group commit). Default 32. */
  readonly concurrency?: number;
  /** Sessions the turns go round. Default 200. */
  readonly sessions?: number;
  /** History read before each turn. Default 20. */
  readonly historyLimit?: number;
  /** Turns run first and not measured, so sessions hold history as in a running actor. Default 2,000. */
  readonly warmupTurns?: number;
}

/** What `measureWalPagesPerTurn` measured. */
export interface WalPagesFigures {
  readonly turns: number;
  readonly pageSize: number;
  /** WAL frames (one page each) written by the measured turns. */
  readonly frames: number;
  readonly pagesPerTurn: number;
  /** Transactions the measured turns were committed in (`actorkit_stats_counters` upserts). */
  readonly invocations: number;
}

/**
 * Counts the pages the store writes to SQLite's WAL per invoke, as the actor writes them: each
 * turn reads its session's last messages and records its stats with its two messages through
 * the `GroupCommit` (group commit), `concurrency` at a time, on a real SQLite file. A second
 * connection holds a read transaction opened before the measured turns, so no checkpoint can
 * reset the WAL: every frame they write stays in the file and its size tells how many. That
 * connection uses the store's own driver: two SQLite libraries in one process do not see each
 * other's locks (POSIX locks are per process), and the writer would reset the WAL under it.
 */
export async function measureWalPagesPerTurn(options: WalPagesOptions = {}): Promise<WalPagesFigures> {
  const turns = options.turns ?? 2_000;
  const concurrency = options.concurrency ?? 32;
  const sessions = options.sessions ?? 200;
  const historyLimit = options.historyLimit ?? 20;
  const warmupTurns = options.warmupTurns ?? 2_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-wal-pages-'));
  const path = join(dataDir, 'actor.db');
  const store = await openStore({ dataDir, logger: silentLogger });
  const { database: reader } = await openRuntimeSqlite(path, { busyTimeoutMs: 5_000 });
  try {
    await store.migrate();
    const buffer = new GroupCommit(store, { logger: silentLogger });
    let next = 0;
    const runTurns = async (count: number) => {
      const end = next + count;
      const worker = async () => {
        while (next < end) {
          const turn = next;
          next += 1;
          const sessionId = `session-${turn % sessions}`;
          await store.loadHistory('default', sessionId, historyLimit);
          const createdAt = new Date().toISOString();
          const { persisted } = await buffer.saveTurn({
            tenantId: 'default',
            userIdentifier: `user-${turn % 50}`,
            sessionId,
            outcome: 'success',
            inputTokens: 40,
            outputTokens: 30,
            toolCalls: 0,
            latencyMs: 1,
            finishedAt: createdAt,
            history: [
              {
                id: crypto.randomUUID(),
                role: 'user',
                content: `Hello there, this is turn ${turn}: what can you do for me today?`,
                createdAt,
              },
              {
                id: `msg_${crypto.randomUUID()}`,
                role: 'assistant',
                content: `(offline model) You said: Hello there, this is turn ${turn}: what can you do for me today? I answer without a language model; set LLM_BASE_URL to use one.`,
                createdAt,
              },
            ],
          });
          if (!persisted) throw new Error('a turn was not persisted');
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    await runTurns(warmupTurns);
    reader.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const [{ page_size: pageSize } = { page_size: 0 }] = reader.prepare('PRAGMA page_size').all([]) as {
      page_size: number;
    }[];
    reader.exec('BEGIN');
    reader.prepare('select count(*) from actorkit_meta').all([]);
    const before = (await stat(`${path}-wal`)).size;
    await runTurns(turns);
    const after = (await stat(`${path}-wal`)).size;
    reader.exec('COMMIT');
    const frameBytes = pageSize + 24;
    const frames = Math.round((after - Math.max(before, 32)) / frameBytes);
    const { invocations } = await store.readStats();
    return { turns, pageSize, frames, pagesPerTurn: frames / turns, invocations };
  } finally {
    reader.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
