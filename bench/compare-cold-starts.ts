/**
 * Before/after for a cold-start change, in one run: the example actor of this checkout and of
 * other checkouts (`--before <dir>`, built with `npm run build`; several allowed, comma-separated)
 * started on Node in interleaved rounds, each build on its own SQLite file, migrated by a start
 * that is not counted. Times process start to the first 200 from `/ready` as `npm run bench`
 * does (bench/measure/cold-start.ts) and prints each build's median and the median of its
 * round-by-round difference to this checkout (steadier than two medians on a busy machine).
 *
 * Run: `npx tsx bench/compare-cold-starts.ts --before ../before [--runs 10]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { actorProcess, checkoutActorProcess } from './bench-servers.js';
import { measureColdStart } from './measure/cold-start.js';
import { median } from './measure/median.js';
import type { RuntimeProcess } from '../test/contract/runtimes-under-test.js';

const { values: options } = parseArgs({ options: { before: { type: 'string' }, runs: { type: 'string', default: '10' } } });
const runs = Number(options.runs);
if (!Number.isInteger(runs) || runs <= 0) throw new Error(`--runs must be a positive integer, got ${options.runs}`);
if (options.before === undefined) throw new Error('--before <dir>[,<dir>…] is required: checkouts to compare with, built (npm run build)');

const builds: { label: string; process: RuntimeProcess }[] = [{ label: 'this checkout', process: actorProcess('node') }];
for (const dir of options.before.split(',')) {
  builds.push({ label: dir, process: checkoutActorProcess(dir, `node-${builds.length}`) });
}

const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-cold-starts-'));
const readyMs = builds.map((): number[] => []);
try {
  const start = async (index: number) => {
    const { actor, readyMs: ms } = await measureColdStart(builds[index]!.process, { DATABASE_URL: `file:${join(dataDir, `build-${index}.db`)}` });
    await actor.dispose();
    return ms;
  };
  for (const index of builds.keys()) await start(index);
  for (let round = 0; round < runs; round += 1) {
    const order = [...builds.keys()];
    if (round % 2 === 1) order.reverse();
    for (const index of order) readyMs[index]!.push(await start(index));
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const mine = readyMs[0]!;
for (const [index, build] of builds.entries()) {
  const own = readyMs[index]!;
  const difference = index === 0 ? '' : `, this checkout − it: median ${median(mine.map((ms, round) => ms - own[round]!)).toFixed(1)} ms`;
  console.log(`${build.label}: median ${median(own).toFixed(1)} ms (${own.join(' ')})${difference}`);
}
