/**
 * The SQLite drivers side by side under one runtime: the store's per-turn work (append a turn
 * of two messages, read the session's last 20) on an SQLite file in WAL mode, through the same
 * Kysely dialect and store code, with `bun:sqlite` and with libSQL, in interleaved rounds. Run
 * under Bun to see what `bun:sqlite` buys there: `bun bench/profile/sqlite-drivers.ts [--turns
 * 2000] [--rounds 3]`; under Node only libSQL runs (`npx tsx bench/profile/sqlite-drivers.ts`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Kysely } from 'kysely';
import { silentLogger } from '../../src/log/logger.js';
import { runsOnBun } from '../../src/store/bun-sqlite-database.js';
import { ImmediateSqliteDialect } from '../../src/store/immediate-sqlite-dialect.js';
import { SqlStore } from '../../src/store/sql-store.js';
import { openRuntimeSqlite, type SqliteDriverName } from '../../src/store/sqlite-driver.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { median } from '../measure/median.js';

const { values } = parseArgs({
  options: { turns: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' } },
});
const turns = Number(values.turns);
const rounds = Number(values.rounds);
const drivers: SqliteDriverName[] = runsOnBun() ? ['bun:sqlite', 'libsql'] : ['libsql'];
const root = await mkdtemp(join(tmpdir(), 'actorkit-sqlite-drivers-'));

/** Turns per second of one driver on a fresh file. */
async function turnsPerSecond(driver: SqliteDriverName, round: number): Promise<number> {
  const { database } = await openRuntimeSqlite(
    join(root, `${driver.replace(':', '-')}-${round}.db`),
    { busyTimeoutMs: 5_000 },
    driver,
  );
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
  const store = new SqlStore({
    db: new Kysely<StoreDatabase>({ dialect: new ImmediateSqliteDialect({ database }) }),
    sqliteConnection: database,
    engine: 'sqlite',
    logger: silentLogger,
  });
  try {
    await store.migrate();
    const createdAt = new Date().toISOString();
    const started = performance.now();
    for (let turn = 0; turn < turns; turn += 1) {
      const session = `session-${turn % 200}`;
      await store.loadHistory('default', session, 20);
      await store.appendMessages('default', session, [
        { id: `u-${turn}`, role: 'user', content: `Hello from turn ${turn}`, createdAt },
        { id: `a-${turn}`, role: 'assistant', content: `[offline model] You said: Hello from turn ${turn}`, createdAt },
      ]);
    }
    return (turns * 1000) / (performance.now() - started);
  } finally {
    await store.close();
  }
}

try {
  const samples = new Map<SqliteDriverName, number[]>(drivers.map((driver) => [driver, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const driver of round % 2 === 0 ? drivers : [...drivers].reverse())
      samples.get(driver)!.push(await turnsPerSecond(driver, round));
  }
  const runtime = runsOnBun() ? `Bun ${(process.versions as { bun?: string }).bun}` : `Node ${process.versions.node}`;
  process.stdout.write(
    `${runtime}, ${turns} turns per round, ${rounds} rounds (median)\n\n| driver | turns/s | runs |\n| --- | --- | --- |\n`,
  );
  for (const [driver, rates] of samples)
    process.stdout.write(`| ${driver} | ${Math.round(median(rates))} | ${rates.map(Math.round).join(', ')} |\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
