/**
 * The store's share of a turn as history grows, in-process and load-robust: CPU µs (this
 * process's `process.cpuUsage`) per turn of `loadHistory(limit)` and then `appendMessages` of the
 * turn's two messages, on sessions of 200 stored messages, for `limit` 20 and 200, with this
 * checkout's built store and another's (`--before <dir>`, built with `npm run build`), in
 * interleaved rounds (medians). It leaves out what `bench/scale.ts` measures around the store
 * (HTTP, the model, the reply), so it still tells the store's growth apart on a machine too busy
 * for the HTTP figures.
 *
 * Run: `npx tsx bench/profile/history-read-cost.ts --before <dir> [--stores sqlite,postgres]
 * [--turns 2000] [--rounds 3]`. PostgreSQL as in `npm run bench`; its databases are
 * `actorkit_history_<store>_<build>_<limit>`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '../../src/log/logger.js';
import type { openStore as OpenStore } from '../../src/store/open-store.js';
import type { Store, StoredMessage } from '../../src/store/store.js';
import { recreateBenchDatabase } from '../bench-database.js';
import { median } from '../measure/median.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    turns: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
  },
});
if (values.before === undefined) throw new Error('--before <dir> names the other built checkout');
const turns = Number(values.turns);
const rounds = Number(values.rounds);
const SESSIONS = 50;
const STORED = 200;
const LIMITS = [20, 200] as const;
const adminUrl =
  process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const turnMessages = (turn: number): StoredMessage[] => {
  const createdAt = new Date().toISOString();
  const said = `Hello from the bench, turn ${turn}`;
  return [
    { id: `msg_${randomUUID()}`, role: 'user', content: said, createdAt },
    {
      id: `msg_${randomUUID()}`,
      role: 'assistant',
      content: `[offline model] No language model is configured for this actor, so this is a fixed local reply. You said: ${said}\n\n(I can see ${turn} earlier messages of this conversation.)`,
      createdAt,
    },
  ];
};

async function storeOf(dir: string): Promise<typeof OpenStore> {
  const module = (await import(pathToFileURL(join(resolve(dir), 'dist/src/store/open-store.js')).href)) as {
    openStore: typeof OpenStore;
  };
  return module.openStore;
}

/** CPU µs per turn of `count` turns on the store, sessions taken in turn. */
async function turnsCpu(store: Store, limit: number, count: number, start: number): Promise<number> {
  const before = process.cpuUsage();
  for (let turn = start; turn < start + count; turn += 1) {
    const session = `s-${turn % SESSIONS}`;
    const history = await store.loadHistory('default', session, limit);
    if (history.length !== limit) throw new Error(`read ${history.length} messages, not ${limit}`);
    await store.appendMessages('default', session, turnMessages(turn));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const sqliteDir = mkdtempSync(join(tmpdir(), 'actorkit-history-cost-'));
try {
  const builds = [
    ['before', await storeOf(values.before)],
    ['after', await storeOf('.')],
  ] as const;
  const cells: { name: string; store: Store; limit: number; samples: number[] }[] = [];
  for (const engine of values.stores.split(',')) {
    for (const [build, openStore] of builds) {
      for (const limit of LIMITS) {
        const name = `actorkit_history_${engine}_${build}_${limit}`;
        let url = `file:${join(sqliteDir, `${name}.db`)}`;
        if (engine === 'postgres') {
          const database = await recreateBenchDatabase(adminUrl, name);
          if (database.url === null) throw new Error(database.reason);
          url = database.url;
        }
        const store = await openStore({ url, logger: createLogger({ sink: () => {} }) });
        await store.migrate();
        for (let session = 0; session < SESSIONS; session += 1)
          await store.appendMessages(
            'default',
            `s-${session}`,
            Array.from({ length: STORED / 2 }, (_, turn) => turnMessages(turn)).flat(),
          );
        await turnsCpu(store, limit, turns / 2, 0); // warm-up
        cells.push({ name: `${engine} ${build} limit ${limit}`, store, limit, samples: [] });
      }
    }
  }
  const loadBefore = loadavg()[0]!;
  for (let round = 0; round < rounds; round += 1)
    for (const cell of cells) cell.samples.push(await turnsCpu(cell.store, cell.limit, turns, turns * (round + 1)));
  const loadAfter = loadavg()[0]!;
  const lines = [
    `Node ${process.versions.node}, ${SESSIONS} sessions of ${STORED}+ messages, ${turns} turns × ${rounds} rounds (medians); load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}.`,
    '',
    '| store, build | CPU µs/turn, limit 20 | limit 200 | 200 / 20 |',
    '|---|---|---|---|',
  ];
  for (let index = 0; index < cells.length; index += 2) {
    const [twenty, twoHundred] = [median(cells[index]!.samples), median(cells[index + 1]!.samples)];
    lines.push(
      `| ${cells[index]!.name.replace(/ limit \d+$/, '')} | ${twenty.toFixed(0)} | ${twoHundred.toFixed(0)} | ${(twoHundred / twenty).toFixed(2)}× |`,
    );
  }
  for (const cell of cells) await cell.store.close();
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(sqliteDir, { recursive: true, force: true });
}
