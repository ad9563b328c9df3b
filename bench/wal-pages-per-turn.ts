/**
 * WAL pages the SQLite store writes per invoke (issue 30: target ≤ 2), measured as the actor
 * writes them — history read, then the stats record with the turn's two messages through the
 * group commit's group commit — one to `--concurrency` turns in flight:
 * `npx tsx bench/wal-pages-per-turn.ts [--turns 2000] [--concurrency 1,32] [--warmup 20000]`. Prints one JSON line per
 * concurrency. The measurement itself is `test/store/wal-pages-per-turn.ts`, which a test also runs.
 */
import { parseArgs } from 'node:util';
import { measureWalPagesPerTurn } from '../test/store/wal-pages-per-turn.js';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '1,32' },
    warmup: { type: 'string', default: '20000' },
  },
});
const turns = Number(values.turns);
const warmupTurns = Number(values.warmup);
for (const concurrency of values.concurrency.split(',').map(Number)) {
  const figures = await measureWalPagesPerTurn({ turns, concurrency, warmupTurns });
  process.stdout.write(
    `${JSON.stringify({ concurrency, ...figures, pagesPerTurn: Math.round(figures.pagesPerTurn * 100) / 100 })}\n`,
  );
}
