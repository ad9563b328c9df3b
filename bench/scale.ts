/**
 * Issue 43's "cost that does not grow with the work": CPU per invoke of the built example actor
 * (offline model, Node) as the work grows, on an SQLite file and on PostgreSQL. Three actors per
 * store, loaded side by side in interleaved rounds like `npm run bench` (figures are medians of
 * the rounds; CPU from /proc, which other load on the machine disturbs far less than req/s):
 *
 * - `history 20`: 200 sessions of 200 stored messages, `HISTORY_LIMIT=20` (the default): each
 *   turn reads and sends the model the last 20;
 * - `history 200`: the same sessions, `HISTORY_LIMIT=200`: each turn reads and sends 200;
 * - `sessions 20000`: 20,000 sessions of 20 stored messages, `HISTORY_LIMIT=20`, taken in turn
 *   (each session comes back after 19,999 others).
 *
 * Each actor gets a database of its own, filled through the store before it starts. Prints a
 * markdown table with the ratios against `history 20` (targets: ≤ 1.3× and ≤ 1.1×) and the
 * load average. Run alone: `npx tsx bench/scale.ts [--stores sqlite,postgres] [--rounds 5]
 * [--duration 3] [--warmup 2] [--connections 32]`, or as the `scale` part of `npm run bench`.
 * PostgreSQL as in `npm run bench` (BENCH_DATABASE_ADMIN_URL, else TEST_DATABASE_URL); its
 * databases are `actorkit_scale_<store>_<cell>`. `--before <dir>` adds the same cells for the
 * example actor of another checkout (built with `npm run build`), in the same rounds, for a
 * same-run before and after.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger, type Logger } from '../src/log/logger.js';
import { openStore } from '../src/store/open-store.js';
import type { StoredMessage } from '../src/store/store.js';
import { recreateBenchDatabase } from './bench-database.js';
import { actorProcess, type BenchServer, type BenchStore, checkoutActorProcess } from './bench-servers.js';
import { type CellSettings, measureThroughput } from './load/interleaved-cells.js';

/** One actor of the scale part: how many sessions, how long each, and how many messages a turn reads. */
interface ScaleCell {
  readonly name: 'history 20' | 'history 200' | 'sessions 20000';
  readonly sessions: number;
  readonly storedMessages: number;
  readonly historyLimit: number;
}

/** The cells, the baseline first. */
const CELLS: readonly ScaleCell[] = [
  { name: 'history 20', sessions: 200, storedMessages: 200, historyLimit: 20 },
  { name: 'history 200', sessions: 200, storedMessages: 200, historyLimit: 200 },
  { name: 'sessions 20000', sessions: 20_000, storedMessages: 20, historyLimit: 20 },
];

/** Each ratio's target against `history 20`. */
const TARGETS: Readonly<Record<ScaleCell['name'], number | undefined>> = {
  'history 20': undefined,
  'history 200': 1.3,
  'sessions 20000': 1.1,
};

/** Sessions the store is filled with at once on PostgreSQL (SQLite runs them one after another anyway). */
const FILL_CONCURRENCY = 8;

/**
 * A stored turn of the bench's traffic: the user's message and an answer of the offline model's
 * length, as `wrk-cell.lua`'s requests leave them.
 */
function benchTurn(turn: number, createdAt: string): StoredMessage[] {
  const said = `Hello from the bench, turn ${turn}`;
  return [
    { id: `msg_${randomUUID()}`, role: 'user', content: said, createdAt },
    {
      id: `msg_${randomUUID()}`,
      role: 'assistant',
      content: `[offline model] No language model is configured for this actor, so this is a fixed local reply. You said: ${said}\n\n(I can see ${turn * 2} earlier messages of this conversation.)\n\nTo call a tool, say: use tool <name> with {JSON arguments}. Tools: hello_greet.`,
      createdAt,
    },
  ];
}

/**
 * Fills a fresh database (migrating it first) with `sessions` sessions of `storedMessages`
 * messages of the bench's traffic, named as wrk-cell.lua names them (`bench-session-<n>`).
 * @param url the store's `DATABASE_URL` (`file:…` for SQLite)
 * @param sessions how many sessions
 * @param storedMessages messages of each session (even: user and answer turns)
 */
export async function seedBenchHistory(url: string, sessions: number, storedMessages: number): Promise<void> {
  const store = await openStore({ url, logger: createLogger({ sink: () => {} }) });
  try {
    await store.migrate();
    const createdAt = new Date().toISOString();
    const messages = Array.from({ length: storedMessages / 2 }, (_, turn) => benchTurn(turn, createdAt)).flat();
    let next = 0;
    const worker = async () => {
      for (let session = next++; session < sessions; session = next++)
        await store.appendMessages('default', `bench-session-${session}`, messages);
    };
    await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
  } finally {
    await store.close();
  }
}

/** The database name of a cell: `actorkit_scale_postgres_history_20`, `…_before` for the other checkout's. */
const identifier = (store: BenchStore, cell: ScaleCell, build: string) =>
  `actorkit_scale_${store}_${cell.name.replace(' ', '_')}${build === '' ? '' : '_before'}`;

/**
 * Measures the scale part and returns its markdown: CPU µs per invoke of each cell on each
 * store, req/s, and the ratio against `history 20` with its target.
 * @param settings rounds, durations and connections of the load
 * @param stores the stores to measure on
 * @param postgresAdminUrl any database of the PostgreSQL server, or null to leave PostgreSQL out
 * @param log where each measured cell is logged
 * @param before another checkout whose example actor is measured alongside (labelled `before`)
 */
export async function measureScale(
  settings: CellSettings,
  stores: readonly BenchStore[],
  postgresAdminUrl: string | null,
  log: Logger<'bench_cell_measured'>,
  before?: string,
): Promise<string> {
  const sqliteDir = mkdtempSync(join(tmpdir(), 'actorkit-scale-'));
  const skipped: string[] = [];
  try {
    const servers: { store: BenchStore; cell: ScaleCell; build: string; server: BenchServer }[] = [];
    const builds = before === undefined ? [''] : ['before ', ''];
    for (const store of stores) {
      for (const [cell, build] of CELLS.flatMap((cell) => builds.map((build) => [cell, build] as const))) {
        let url = `file:${join(sqliteDir, `${identifier(store, cell, build)}.db`)}`;
        if (store === 'postgres') {
          const database =
            postgresAdminUrl === null
              ? null
              : await recreateBenchDatabase(postgresAdminUrl, identifier(store, cell, build));
          if (database?.url == null) {
            skipped.push(`PostgreSQL: ${database === null ? 'no server' : (database as { reason: string }).reason}`);
            break;
          }
          url = database.url;
        }
        await seedBenchHistory(url, cell.sessions, cell.storedMessages);
        const server: BenchServer = {
          runtime: 'node',
          stack: 'actor',
          store,
          process: build === '' ? actorProcess('node') : checkoutActorProcess(before!, 'node-before'),
          env: { DATABASE_URL: url, HISTORY_LIMIT: String(cell.historyLimit) },
          routes: ['invoke'],
          label: `${build}node actor (${store}), ${cell.name}`,
          sessions: cell.sessions,
        };
        servers.push({ store, cell, build, server });
      }
    }
    const loadBefore = loadavg()[0]!;
    const { cells } = await measureThroughput(
      servers.map(({ server }) => server),
      settings,
      log,
      (server) => server.label ?? '',
      [['invoke', settings.connections, true]],
    );
    const loadAfter = loadavg()[0]!;
    const cpuOf = (label: string) => cells.find((cell) => cell.label === label)!;
    const rows = servers.map(({ store, cell, build, server }) => {
      const measured = cpuOf(server.label!);
      const baseline = cpuOf(
        servers.find((other) => other.store === store && other.build === build && other.cell === CELLS[0])!.server
          .label!,
      );
      const ratio = measured.cpuUsPerRequest / baseline.cpuUsPerRequest;
      const target = TARGETS[cell.name];
      const verdict =
        target === undefined
          ? '—'
          : `${ratio.toFixed(2)}× (target ≤ ${target}×: ${ratio <= target ? 'met' : 'not met'})`;
      return `| ${build}${store} | ${cell.name} | ${cell.sessions} × ${cell.storedMessages} | ${cell.historyLimit} | ${measured.cpuUsPerRequest} | ${measured.figures.requestsPerSecond} | ${measured.figures.non2xx + measured.figures.socketErrors} | ${verdict} |`;
    });
    return [
      `Node ${process.versions.node}, offline model, ${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.durationS} s (medians); load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}.`,
      '',
      '| store | cell | sessions × stored messages | HISTORY_LIMIT | CPU µs/invoke | req/s | failures | against history 20 |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      ...skipped.map((reason) => `\nskipped: ${reason}`),
    ].join('\n');
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      stores: { type: 'string', default: 'sqlite,postgres' },
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '32' },
      before: { type: 'string' },
    },
  });
  const positive = (name: 'rounds' | 'duration' | 'warmup' | 'connections') => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
    return value;
  };
  const stores = values.stores.split(',').map((name) => {
    if (name !== 'sqlite' && name !== 'postgres') throw new Error(`--stores takes sqlite and/or postgres, got ${name}`);
    return name as BenchStore;
  });
  const log = createLogger<'bench_cell_measured'>({
    sink: (record) => process.stderr.write(`${JSON.stringify(record)}\n`),
  });
  const table = await measureScale(
    {
      rounds: positive('rounds'),
      durationS: positive('duration'),
      warmupS: positive('warmup'),
      connections: positive('connections'),
    },
    stores,
    process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    log,
    values.before,
  );
  process.stdout.write(`${table}\n`);
}
