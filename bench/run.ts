/**
 * `npm run bench` (`tsx bench/run.ts`): every figure of issue 9 measured side by side in one
 * run — req/s and p50/p99 of `GET /health` and `POST /agent/invoke` for the example actor
 * (offline model) on an SQLite file and on PostgreSQL against bare Hono on the same runtime,
 * Node and Bun, loaded by Debian's `wrk` from its own process; cold start; memory; CLI wall
 * time. Writes bench/results/<timestamp>.json and the tables of docs/performance.md.
 *
 * Needs `npm run build` (the example under dist/), `node test/runtimes/ensure-runtimes.mjs`
 * (Bun) and `apt-get install -y wrk`. PostgreSQL from BENCH_DATABASE_ADMIN_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test: the bench re-creates the
 * database `actorkit_bench` there. Options: --duration <s> (per cell and round, default 3),
 * --rounds <n> (interleaved rounds per cell, default 3), --warmup <s> (default 2), --connections <n> (default 32), --runs <n> (cold starts, default 5),
 * --invokes <n> (memory, default 10000), --runtimes node,bun, --stores sqlite,postgres,
 * --parts throughput,start,cli,peer,storage,scale (which figures; cold start and memory are `start`;
 * `peer` is the actor against a Mastra agent server on Node 24, bench/peers/; `storage` the
 * actor's store against the standalone storage limit, bench/turn-storage-limit.ts; `scale` the
 * cost per invoke as history and sessions grow, bench/scale.ts), --no-doc
 * (leave the doc alone; implied when a part, runtime or store is left out).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/log/logger.js';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../test/contract/runtimes-under-test.js';
import { recreateBenchDatabase } from './bench-database.js';
import type { BenchResults, ColdStartFigures, MemoryFigures, ThroughputCell } from './bench-results.js';
import { actorProcess, type BenchRuntime, benchServers, type BenchStore } from './bench-servers.js';
import { measureThroughput, stopServer as stop } from './load/interleaved-cells.js';
import { measurePeerComparison } from './peers/peer-comparison.js';
import { wrkVersion } from './load/run-wrk.js';
import { sendInvokes } from './load/send-invokes.js';
import { measureCli } from './measure/cli-timing.js';
import { measureColdStart } from './measure/cold-start.js';
import { median } from './measure/median.js';
import { readRssBytes } from './measure/process-usage.js';
import { renderTables } from './report/render-tables.js';
import { measureScale } from './scale.js';
import { updateDocSection } from './report/update-doc-section.js';

const repositoryRoot = fileURLToPath(new URL('../', import.meta.url));
const log = createLogger<'bench_memory_measured' | 'bench_cli_skipped' | 'bench_cell_measured'>({
  sink: (record) => process.stderr.write(`${JSON.stringify(record)}\n`),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** The parts of the bench, each measured unless `--parts` leaves it out. */
const PARTS = ['throughput', 'start', 'cli', 'peer', 'storage', 'scale'];

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    runs: { type: 'string', default: '5' },
    invokes: { type: 'string', default: '10000' },
    runtimes: { type: 'string', default: 'node,bun' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    parts: { type: 'string', default: PARTS.join(',') },
    'no-doc': { type: 'boolean', default: false },
  },
});
const positive = (name: keyof typeof options) => {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer, got ${String(options[name])}`);
  return value;
};
const settings = {
  durationS: positive('duration'),
  rounds: positive('rounds'),
  warmupS: positive('warmup'),
  connections: positive('connections'),
  coldStartRuns: positive('runs'),
  memoryInvokes: positive('invokes'),
};
const runtimes = options.runtimes.split(',').map((name) => {
  if (name !== 'node' && name !== 'bun') throw new Error(`--runtimes takes node and/or bun, got ${name}`);
  return name as BenchRuntime;
});
const stores = options.stores.split(',').map((name) => {
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`--stores takes sqlite and/or postgres, got ${name}`);
  return name as BenchStore;
});
const parts = new Set(
  options.parts.split(',').map((name) => {
    if (!PARTS.includes(name)) throw new Error(`--parts takes some of ${PARTS.join(', ')}, got ${name}`);
    return name;
  }),
);
/** The doc's tables are rewritten only by a run that measured everything. */
const partial = parts.size < PARTS.length || runtimes.length < 2 || stores.length < 2;

async function invocationsCounted(baseUrl: string): Promise<number> {
  const response = await fetch(`${baseUrl}/stats`);
  const body = (await response.json()) as { invocations?: unknown };
  if (typeof body.invocations !== 'number') throw new Error(`/stats answered ${response.status} without invocations`);
  return body.invocations;
}

async function measureStartAndMemory(
  runtime: BenchRuntime,
  store: BenchStore,
  env: Record<string, string>,
): Promise<{ coldStart: ColdStartFigures; memory: MemoryFigures }> {
  const entry = actorProcess(runtime);
  await stop((await measureColdStart(entry, env)).actor); // migrates a fresh database; not counted
  const runsMs: number[] = [];
  for (let run = 1; ; run += 1) {
    const { actor, readyMs } = await measureColdStart(entry, env);
    runsMs.push(readyMs);
    if (run < settings.coldStartRuns) {
      await stop(actor);
      continue;
    }
    try {
      await sleep(1_000);
      const idleRssMiB = mib(await readRssBytes(actor.child.pid!));
      const before = await invocationsCounted(actor.baseUrl);
      const tally = await sendInvokes(actor.baseUrl, settings.memoryInvokes, settings.connections);
      await sleep(1_000);
      const rssMiB = mib(await readRssBytes(actor.child.pid!));
      const statsDelta = (await invocationsCounted(actor.baseUrl)) - before;
      log.info('bench_memory_measured', {
        runtime,
        store,
        idle_rss_mib: idleRssMiB,
        rss_after_mib: rssMiB,
        ok: tally.ok,
        stats_delta: statsDelta,
        cold_start_ms: runsMs,
      });
      return {
        coldStart: { runtime, store, runsMs, medianMs: median(runsMs) },
        memory: {
          runtime,
          stack: 'actor',
          store,
          idleRssMiB,
          afterInvokes: { invokes: settings.memoryInvokes, rssMiB, ok: tally.ok, statsDelta },
        },
      };
    } finally {
      await stop(actor);
    }
  }
}

/** Runs bench/turn-storage-limit.ts on test/runtimes' Node 24 (`node:sqlite`) and returns its markdown. */
function measureStorageLimit(): string {
  const node24 = RUNTIMES_UNDER_TEST.find((runtime) => runtime.name === 'node24');
  if (node24 === undefined) throw new Error('test/contract/runtimes-under-test.ts lists no node24');
  return execFileSync(node24.command, ['--import', 'tsx', join(repositoryRoot, 'bench', 'turn-storage-limit.ts')], {
    cwd: repositoryRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

function gitState(): { commit: string; dirty: boolean } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repositoryRoot, encoding: 'utf8' }).trim();
  try {
    return { commit: git('rev-parse', 'HEAD'), dirty: git('status', '--porcelain').length > 0 };
  } catch {
    return { commit: 'unknown', dirty: true };
  }
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadBefore = loadavg()[0]!;
  const wrk = await wrkVersion();
  if (wrk === null) throw new Error('wrk is not installed: run `apt-get install -y wrk` (Debian)');
  const versions = { node: process.versions.node, bun: checkRuntime(actorProcess('bun')), wrk };
  checkRuntime(actorProcess('node'));

  const skipped: string[] = [];
  const adminUrl =
    process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const database = await recreateBenchDatabase(adminUrl);
  if (database.url === null) skipped.push(`PostgreSQL cells: ${database.reason}`);
  const postgresUrl = database.url;

  const throughput: ThroughputCell[] = [];
  const memory: MemoryFigures[] = [];
  for (const runtime of parts.has('throughput') ? runtimes : []) {
    const servers = benchServers(runtime, postgresUrl).filter(
      (candidate) => candidate.store === null || stores.includes(candidate.store),
    );
    const measured = await measureThroughput(servers, settings, log);
    throughput.push(...measured.cells);
    for (const server of servers) {
      if (server.stack === 'bare')
        memory.push({
          runtime,
          stack: 'bare',
          store: null,
          idleRssMiB: measured.idleRssMiB.get(server)!,
          afterInvokes: null,
        });
    }
  }

  const coldStart: ColdStartFigures[] = [];
  const sqliteDir = mkdtempSync(join(tmpdir(), 'actorkit-bench-'));
  try {
    for (const runtime of parts.has('start') ? runtimes : []) {
      const targets: [BenchStore, Record<string, string>][] = [
        ['sqlite', { DATABASE_URL: `file:${join(sqliteDir, `${runtime}.db`)}` }],
      ];
      if (postgresUrl !== null) targets.push(['postgres', { DATABASE_URL: postgresUrl }]);
      for (const [store, env] of targets.filter(([candidate]) => stores.includes(candidate))) {
        const measured = await measureStartAndMemory(runtime, store, env);
        coldStart.push(measured.coldStart);
        memory.push(measured.memory);
      }
    }
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
  }

  const peer = parts.has('peer') ? await measurePeerComparison(settings, log) : null;
  const storageLimit = parts.has('storage') ? measureStorageLimit() : null;
  const scale = parts.has('scale')
    ? await measureScale(settings, stores, postgresUrl === null ? null : adminUrl, log)
    : null;

  const cli: BenchResults['cli'] = parts.has('cli')
    ? measureCli(repositoryRoot, settings.coldStartRuns)
    : { status: 'skipped', reason: 'not asked for (--parts)' };
  if (cli.status === 'skipped') log.warn('bench_cli_skipped', { reason: cli.reason });

  const results: BenchResults = {
    machine: {
      startedAt,
      finishedAt: new Date().toISOString(),
      ...gitState(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      versions,
      loadAverage: { before: loadBefore, after: loadavg()[0]! },
    },
    settings,
    skipped,
    throughput,
    coldStart,
    memory,
    cli,
    peer,
    storageLimit,
    scale,
  };
  const resultsDir = join(repositoryRoot, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `${startedAt.replaceAll(':', '-').replace(/\.\d+Z$/, 'Z')}.json`);
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  const tables = renderTables(results);
  if (!options['no-doc'] && !partial) updateDocSection(join(repositoryRoot, 'docs', 'performance.md'), tables);
  process.stdout.write(`${tables}\n\nresults: ${resultsFile}\n`);
}

await main();
