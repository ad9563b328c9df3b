/**
 * WAL pages per streamed invoke through the whole actor (issue 37: a run and its stream parts
 * are stored with every turn), on a real SQLite file: `--turns` streamed invokes of the offline
 * model, `--concurrency` at a time, after `--warmup` unmeasured ones. A second connection holds
 * a read transaction from before the measured turns, so no checkpoint resets the WAL; the
 * `-wal` file's growth over the frame size is the pages written. `--root` measures another
 * checkout (e.g. the commit before the runs) with the same script:
 * `npx tsx bench/wal-pages-per-streamed-turn.ts [--root /tmp/before] [--turns 1000] [--concurrency 1,32]`.
 * Prints one JSON line per concurrency.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '.' },
    turns: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '1,32' },
    warmup: { type: 'string', default: '1000' },
  },
});
const root = resolve(values.root);
const load = (path: string) => import(pathToFileURL(join(root, path)).href);
const { createActorApp } = await load('src/index.ts');
const { silentLogger } = await load('src/log/logger.ts');
const { openRuntimeSqlite } = await load('src/store/sqlite-driver.ts');
const { testActorDefinition: definition } = await load('src/testing/create-test-actor.ts');

async function measure(concurrency: number, turns: number, warmup: number) {
  const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-wal-streamed-'));
  const app = createActorApp({ definition, env: { DATA_DIR: dataDir }, logger: silentLogger });
  await app.actor.start();
  const path = join(dataDir, 'actor.db');
  const { database: reader } = await openRuntimeSqlite(path, { busyTimeoutMs: 5_000 });
  let next = 0;
  const invoke = async (end: number) => {
    while (next < end) {
      const turn = next;
      next += 1;
      const response = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          user_identifier: `user-${turn % 50}`,
          session_id: `session-${turn % 200}`,
          message: `Hello there, this is turn ${turn}: what can you do for me today?`,
          stream: true,
        }),
      });
      const text = await response.text();
      if (!text.includes('[DONE]')) throw new Error(`turn ${turn} did not finish: ${text.slice(0, 200)}`);
    }
  };
  const run = async (count: number) => {
    const end = next + count;
    await Promise.all(Array.from({ length: concurrency }, () => invoke(end)));
    // The runs' last batch is written within 50 ms of their end.
    await new Promise((done) => setTimeout(done, 300));
  };
  try {
    await run(warmup);
    reader.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const [{ page_size: pageSize } = { page_size: 4096 }] = reader.prepare('PRAGMA page_size').all([]) as {
      page_size: number;
    }[];
    reader.exec('BEGIN');
    reader.prepare('select count(*) from actorkit_meta').all([]);
    const before = (await stat(`${path}-wal`)).size;
    await run(turns);
    const after = (await stat(`${path}-wal`)).size;
    reader.exec('COMMIT');
    const frames = Math.round((after - Math.max(before, 32)) / (pageSize + 24));
    return { turns, pageSize, frames, pagesPerTurn: Math.round((frames / turns) * 100) / 100 };
  } finally {
    reader.close();
    await app.actor.shutdown({ graceMs: 1_000 });
    await rm(dataDir, { recursive: true, force: true });
  }
}

for (const concurrency of values.concurrency.split(',').map(Number)) {
  const figures = await measure(concurrency, Number(values.turns), Number(values.warmup));
  process.stdout.write(`${JSON.stringify({ root: values.root, concurrency, ...figures })}\n`);
}
