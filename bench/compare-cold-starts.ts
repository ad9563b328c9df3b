/**
 * Before/after for a cold-start change, in one run: the example actor of this checkout and of
 * other checkouts (`--before <dir>`, built with `npm run build`; several allowed, comma-separated)
 * started on Node in interleaved rounds, each build on its own SQLite file, migrated by a start
 * that is not counted. Times process start to the first 200 from `/ready` as `npm run bench`
 * does (bench/measure/cold-start.ts) and prints each build's median and the median of its
 * round-by-round difference to this checkout (steadier than two medians on a busy machine).
 * Beside the wall time, the CPU time (user + system, all threads, from `/proc/<pid>/stat`, read
 * as `/ready` answers 200) the process used to get there: on a shared machine, where the wall
 * time grows with every other process's load, the CPU time grows far less.
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
import { readCpuMs } from './measure/process-usage.js';
import type { RuntimeProcess } from '../test/contract/runtimes-under-test.js';

const { values: options } = parseArgs({
  options: { before: { type: 'string' }, runs: { type: 'string', default: '10' } },
});
const runs = Number(options.runs);
if (!Number.isInteger(runs) || runs <= 0) throw new Error(`--runs must be a positive integer, got ${options.runs}`);
if (options.before === undefined)
  throw new Error('--before <dir>[,<dir>…] is required: checkouts to compare with, built (npm run build)');

const builds: { label: string; process: RuntimeProcess }[] = [
  { label: 'this checkout', process: actorProcess('node') },
];
for (const dir of options.before.split(',')) {
  builds.push({ label: dir, process: checkoutActorProcess(dir, `node-${builds.length}`) });
}

const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-cold-starts-'));
const readyMs = builds.map((): number[] => []);
const cpuMs = builds.map((): number[] => []);
try {
  const start = async (index: number) => {
    const { actor, readyMs: ms } = await measureColdStart(builds[index]!.process, {
      DATABASE_URL: `file:${join(dataDir, `build-${index}.db`)}`,
    });
    const cpu = await readCpuMs(actor.child.pid!);
    await actor.dispose();
    return { ms, cpu };
  };
  for (const index of builds.keys()) await start(index);
  for (let round = 0; round < runs; round += 1) {
    const order = [...builds.keys()];
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const { ms, cpu } = await start(index);
      readyMs[index]!.push(ms);
      cpuMs[index]!.push(cpu);
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/** `name: median … (runs), this checkout − it: median …` for one build's figures. */
const line = (figures: number[][], index: number, unit: string) => {
  const own = figures[index]!;
  const difference =
    index === 0
      ? ''
      : `, this checkout − it: median ${median(figures[0]!.map((value, round) => value - own[round]!)).toFixed(1)} ${unit}`;
  return `median ${median(own).toFixed(1)} ${unit} (${own.map((value) => Math.round(value)).join(' ')})${difference}`;
};
for (const [index, build] of builds.entries()) {
  console.log(`${build.label}: wall ${line(readyMs, index, 'ms')}`);
  console.log(`${' '.repeat(build.label.length)}  CPU ${line(cpuMs, index, 'ms')}`);
}
