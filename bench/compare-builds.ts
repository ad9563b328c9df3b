/**
 * Before/after for a change, in one run: the example actor of this checkout and of another
 * (`--before <dir>`, e.g. a `git worktree` of an older commit, built with `npm run build`),
 * with bare Hono, all started side by side on Node and loaded in interleaved rounds like
 * `npm run bench` does. Prints a markdown table of req/s, p50, CPU per request and the ratios
 * to bare Hono. PostgreSQL as in `npm run bench` (two databases, `actorkit_bench_before` and
 * `actorkit_bench_after`).
 *
 * Run: `npx tsx bench/compare-builds.ts --before ../before [--stores sqlite,postgres]
 * [--rounds 5] [--duration 3] [--warmup 2] [--connections 32] [--before-env NAME=value,…]
 * [--after-env NAME=value,…] [--model mock] [--stream]`. `--stream` sends the actors' invokes
 * with `"stream": true` and reads each SSE answer to its end (bare Hono answers as always).
 * `--model mock` has both sides' actors call the peer
 * comparison's mock OpenAI-compatible model on loopback (bench/peers/mock-model-server.mjs,
 * started here; its CPU counts for neither) instead of the offline model. The env options add
 * variables to one side's actors: with
 * `--before .` both sides are this build, e.g. `--before . --before-env NODE_HEAP_TUNING=false`
 * measures one setting against its default.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/log/logger.js';
import { INVOKE_PATH } from '../src/features/invoke/invoke-route.js';
import { recreateBenchDatabase } from './bench-database.js';
import type { ThroughputCell } from './bench-results.js';
import {
  actorProcess,
  type BenchServer,
  benchServers,
  type BenchStore,
  checkoutActorProcess,
  storeEnv,
} from './bench-servers.js';
import { measureThroughput, stopServer } from './load/interleaved-cells.js';
import { MOCK_MODEL_ENTRY } from './peers/peer-comparison.js';
import { spawnActor, waitUntilReady } from '../test/contract/spawn-actor.js';

const { values: options } = parseArgs({
  options: {
    before: { type: 'string' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    'before-env': { type: 'string', default: '' },
    'after-env': { type: 'string', default: '' },
    model: { type: 'string', default: 'offline' },
    stream: { type: 'boolean', default: false },
  },
});
/** `NAME=value` pairs separated by commas, as an environment. */
const envOption = (name: 'before-env' | 'after-env'): Record<string, string> =>
  Object.fromEntries(
    options[name]
      .split(',')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const equals = pair.indexOf('=');
        if (equals < 1) throw new Error(`--${name} takes NAME=value pairs separated by commas, got ${pair}`);
        return [pair.slice(0, equals), pair.slice(equals + 1)];
      }),
  );
const extraEnv = { before: envOption('before-env'), after: envOption('after-env') };
const positive = (name: 'rounds' | 'duration' | 'warmup' | 'connections') => {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer, got ${String(options[name])}`);
  return value;
};
if (options.before === undefined)
  throw new Error('--before <dir> is required: a checkout of the commit to compare with, built (npm run build)');
const beforeDir = resolve(options.before);
const beforeProcess = checkoutActorProcess(beforeDir, 'node-before');
const stores = options.stores.split(',').map((name) => {
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`--stores takes sqlite and/or postgres, got ${name}`);
  return name as BenchStore;
});
const settings = {
  rounds: positive('rounds'),
  durationS: positive('duration'),
  warmupS: positive('warmup'),
  connections: positive('connections'),
};
const log = createLogger<'bench_cell_measured'>({
  sink: (record) => process.stderr.write(`${JSON.stringify(record)}\n`),
});

if (options.model !== 'offline' && options.model !== 'mock')
  throw new Error(`--model is offline or mock, got ${options.model}`);
const mockModel =
  options.model === 'mock'
    ? await spawnActor(
        { name: 'mock-model', command: process.execPath, args: [MOCK_MODEL_ENTRY] },
        {},
        { drainAfterListening: true },
      )
    : undefined;
if (mockModel !== undefined) await waitUntilReady(mockModel);
const modelEnv: Record<string, string> =
  mockModel === undefined ? {} : { LLM_MODEL: 'mock-model', LLM_BASE_URL: `${mockModel.baseUrl}/v1` };

const adminUrl =
  process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const databases = { before: '', after: '' };
if (stores.includes('postgres')) {
  for (const build of ['before', 'after'] as const) {
    const database = await recreateBenchDatabase(adminUrl, `actorkit_bench_${build}`);
    if (database.url === null) throw new Error(`PostgreSQL: ${database.reason} (leave it out with --stores sqlite)`);
    databases[build] = database.url;
  }
}

const labels = new Map<BenchServer, string>();
const [bare] = benchServers('node', null);
labels.set(bare!, 'bare Hono');
const servers: BenchServer[] = [bare!];
for (const store of stores) {
  for (const build of ['before', 'after'] as const) {
    const entry = build === 'after' ? actorProcess('node') : beforeProcess;
    const server: BenchServer = {
      runtime: 'node',
      stack: 'actor',
      store,
      process: entry,
      env: { ...storeEnv(store, databases[build]), ...modelEnv, ...extraEnv[build] },
      invokeShape: options.stream ? 'actor-stream' : 'actor',
    };
    labels.set(server, `${build} (${store})`);
    servers.push(server);
  }
}

const { cells } = await measureThroughput(servers, settings, log, (server) => labels.get(server) ?? '?');
if (mockModel !== undefined) await stopServer(mockModel);
const bareCell = (cell: ThroughputCell) =>
  cells.find(
    (other) => other.stack === 'bare' && other.route === cell.route && other.connections === cell.connections,
  )!;
const rows = cells.map((cell, index) => {
  const server = servers[index % servers.length]!;
  const floor = bareCell(cell);
  const route = cell.route === 'health' ? 'GET /health' : `POST ${INVOKE_PATH}`;
  const ratio = (value: number) => `${Math.round(value * 100)}%`;
  const ratios =
    cell.stack === 'bare'
      ? ['—', '—', '—']
      : [
          ratio(cell.figures.requestsPerSecond / floor.figures.requestsPerSecond),
          ratio(floor.cpuUsPerRequest / Math.max(cell.cpuUsPerRequest, 1)),
          (cell.figures.latencyMs.p50 - floor.figures.latencyMs.p50).toFixed(2),
        ];
  return `| ${route} | ${cell.connections} | ${labels.get(server)} | ${cell.figures.requestsPerSecond} | ${cell.figures.latencyMs.p50.toFixed(2)} | ${cell.cpuUsPerRequest} | ${ratios.join(' | ')} |`;
});
process.stdout.write(
  [
    `Node ${process.versions.node}; ${mockModel === undefined ? 'offline model' : 'the actors call the mock model (bench/peers/mock-model-server.mjs)'}${options.stream ? "; the actors' invokes streamed (SSE, read to the end)" : ''}; ${settings.rounds} interleaved rounds of ${settings.durationS} s per cell (medians); before: ${beforeDir}${options['before-env'] ? ` with ${options['before-env']}` : ''}${options['after-env'] ? `; after with ${options['after-env']}` : ''}`,
    '',
    '| route | conns | actor | req/s | p50 ms | CPU µs/req | req/s / bare | CPU bare/actor | p50 − bare p50 (ms) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
