/**
 * Instructions per invoke, counted by valgrind rather than timed: the same figure however busy
 * the machine is, so a change of a few per cent in the actor's own code shows where CPU time on
 * this shared two-core machine moves by ±30% between identical runs (issue 30, item 4).
 *
 * `bench/profile/invoke-fixed-count.mjs` answers a fixed number of `POST /agent/invoke` through
 * `app.fetch` in one process (no HTTP server) under `valgrind --tool=cachegrind --cache-sim=no`,
 * once with `--invokes` A and once with B; (count at B − count at A) / (B − A) is the user-space
 * instructions of one invoke, start-up and shutdown cancelled out. Node runs with V8's
 * `--predictable` (one thread, compilation and garbage collection at fixed points): without it
 * the count of the same build moved by a third between runs, with it by less than 0.01%. Three stacks: bare Hono
 * (the floor: parse the body, answer a reply of the actor's shape), the example actor on the
 * in-memory store (everything but storage), the example actor on an SQLite file (the default
 * store). "Outside storage" is memory − bare; "storage" is SQLite − memory. A fourth stack, `mock`,
 * is the memory-store actor calling the peer comparison's mock OpenAI-compatible model over
 * loopback HTTP (bench/peers/mock-model-server.mjs, started here, outside valgrind): "model call"
 * is mock − memory. Kernel time (the socket, the disk) is not counted: for that, see CPU µs in
 * `npm run bench`.
 *
 * Run (after `npm run build`; `apt-get install valgrind`): `npx tsx
 * bench/profile/invoke-instructions.ts [--before <built checkout>] [--invokes 500,2500]
 * [--stacks bare,memory,sqlite,mock] [--route invoke|health] [--node <path>]` — Node 24 from
 * test/runtimes by default (the runtime that has `node:sqlite`). About 30 s per count and stack.
 * `--route health` counts `GET /health` instead (take more of them: `--invokes 2000,10000`).
 * `--log-level warn` runs the actor without the line of each invoke: its shared write is flushed
 * every 10 ms of the clock, and valgrind's pace sets how many invokes share one, so it counts
 * differently when the machine is busy; without it a change elsewhere shows alone.
 * `--concurrency 1` (default 32) answers one invoke at a time: no group commit shared, so the
 * count does not move with how concurrent turns interleave.
 * `--stored-messages M [--sessions N] [--history-limit L]` counts the invoke on history, as
 * bench/scale.ts measures it: before every count the `sqlite` stack's database is a fresh file
 * seeded by scale.ts's `seedBenchHistory` (N sessions of M messages, default 200), the invokes
 * take those sessions in turn and read `HISTORY_LIMIT=L` (default 20). The `postgres` stack is
 * the same on a database re-created (and seeded) before every count on the PostgreSQL server of
 * `BENCH_DATABASE_ADMIN_URL`, else `TEST_DATABASE_URL` (PostgreSQL's own work is not counted;
 * the databases, `actorkit_instructions_<n>`, are dropped at the end).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { spawnActor, waitUntilReady } from '../../test/contract/spawn-actor.js';
import { recreateBenchDatabase } from '../bench-database.js';
import { MOCK_MODEL_ENTRY } from '../peers/peer-comparison.js';
import { seedBenchHistory } from '../scale.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const checkoutRoot = resolve(here, '../..');
const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    invokes: { type: 'string', default: '500,2500' },
    stacks: { type: 'string', default: 'bare,memory,sqlite' },
    node: { type: 'string', default: resolve(checkoutRoot, 'test/runtimes/node_modules/.bin/node') },
    route: { type: 'string', default: 'invoke' },
    'log-level': { type: 'string', default: 'info' },
    concurrency: { type: 'string', default: '32' },
    'stored-messages': { type: 'string' },
    sessions: { type: 'string', default: '200' },
    'history-limit': { type: 'string', default: '20' },
  },
});
if (values.route !== 'invoke' && values.route !== 'health')
  throw new Error(`--route is invoke or health, got ${values.route}`);
const [fewer, more] = values.invokes.split(',').map(Number);
if (!(fewer! > 0 && more! > fewer!)) throw new Error('--invokes takes two counts, the second larger: e.g. 500,2500');
const stacks = values.stacks.split(',');
for (const stack of stacks)
  if (!['bare', 'memory', 'sqlite', 'mock', 'postgres'].includes(stack))
    throw new Error(`--stacks takes bare, memory, sqlite, mock and postgres, got ${stack}`);
const storedMessages = values['stored-messages'] === undefined ? undefined : Number(values['stored-messages']);
if (
  storedMessages !== undefined &&
  !(Number.isInteger(storedMessages) && storedMessages > 0 && storedMessages % 2 === 0)
)
  throw new Error(`--stored-messages takes a positive even count, got ${values['stored-messages']}`);
const postgresAdminUrl =
  process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seedDir = mkdtempSync(join(tmpdir(), 'actorkit-instructions-'));
let databases = 0;

/**
 * The environment that puts one count's `sqlite` child on its database: none (a fresh file of
 * its own) unless `--stored-messages` is given or the stack is `postgres`, then a database
 * seeded afresh for this count.
 */
async function seededDatabaseEnv(stack: string): Promise<Record<string, string>> {
  if (stack !== 'postgres' && (stack !== 'sqlite' || storedMessages === undefined)) return {};
  databases += 1;
  let url = `file:${join(seedDir, `count-${databases}.db`)}`;
  if (stack === 'postgres') {
    const database = await recreateBenchDatabase(postgresAdminUrl, `actorkit_instructions_${databases}`);
    if (database.url === null) throw new Error(`PostgreSQL: ${database.reason}`);
    url = database.url;
  }
  await seedBenchHistory(url, Number(values.sessions), storedMessages ?? 0);
  return {
    FIXED_COUNT_DATABASE_URL: url,
    FIXED_COUNT_HISTORY_LIMIT: values['history-limit'],
    FIXED_COUNT_SESSIONS: values.sessions,
  };
}
if (!existsSync(values.node))
  throw new Error(`no Node at ${values.node}: run node test/runtimes/ensure-runtimes.mjs, or pass --node`);
const checkouts = [
  ...(values.before === undefined ? [] : [['before', resolve(values.before)] as const]),
  ['this checkout', checkoutRoot] as const,
];
for (const [, dir] of checkouts) {
  if (!existsSync(resolve(dir, 'dist/examples/hello-actor/src/app.js')))
    throw new Error(`${dir} is not built: run npm run build there`);
}

const mockModel = stacks.includes('mock')
  ? await spawnActor(
      { name: 'mock-model', command: process.execPath, args: [MOCK_MODEL_ENTRY] },
      {},
      { drainAfterListening: true },
    )
  : undefined;
if (mockModel !== undefined) await waitUntilReady(mockModel);

/** Drops the databases the `postgres` counts were seeded in. */
async function dropCountDatabases(): Promise<void> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    for (let index = 1; index <= databases; index += 1)
      await client.query(`DROP DATABASE IF EXISTS actorkit_instructions_${index} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** valgrind's count of user-space instructions for one run of the fixed-count child. */
async function countInstructions(checkout: string, invokes: number, stack: string): Promise<number> {
  const databaseEnv = await seededDatabaseEnv(stack);
  const child = spawn(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      values.node,
      '--predictable',
      resolve(here, 'invoke-fixed-count.mjs'),
      checkout,
      String(invokes),
      stack === 'postgres' ? 'sqlite' : stack,
      values.route,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        FIXED_COUNT_LOG_LEVEL: values['log-level'],
        FIXED_COUNT_CONCURRENCY: values.concurrency,
        ...(mockModel === undefined ? {} : { MOCK_MODEL_URL: `${mockModel.baseUrl}/v1` }),
        ...databaseEnv,
      },
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((settle, fail) => {
    child.on('error', (error) =>
      fail(new Error(`valgrind did not start (${error.message}): apt-get install valgrind`)),
    );
    child.on('close', (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (code !== 0 || refs === null || !stderr.includes(`answered ${invokes}`)) {
        fail(new Error(`${stack} × ${invokes} in ${checkout} failed (exit ${code}):\n${stderr.slice(-2000)}`));
        return;
      }
      settle(Number(refs[1]!.replaceAll(',', '')));
    });
  });
}

/** Runs the jobs two at a time (the machine has two cores; valgrind runs one thread at a time). */
async function twoAtATime<T>(jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

const cells = checkouts.flatMap(([name, dir]) => stacks.map((stack) => ({ name, dir, stack })));
const counts = await twoAtATime(
  cells.flatMap((cell) => [fewer!, more!].map((invokes) => () => countInstructions(cell.dir, invokes, cell.stack))),
);
if (mockModel !== undefined) await mockModel.dispose();
const perInvoke = new Map<string, number>();
cells.forEach((cell, index) =>
  perInvoke.set(`${cell.name}/${cell.stack}`, (counts[index * 2 + 1]! - counts[index * 2]!) / (more! - fewer!)),
);

const thousands = (value: number | undefined) => (value === undefined ? '—' : `${(value / 1000).toFixed(0)}k`);
const lines = [
  `Instructions per ${values.route === 'health' ? 'GET /health' : 'invoke'} (valgrind, user space), ${values.node} --predictable, (count at ${more} − count at ${fewer}) / ${more! - fewer!}:`,
  '',
  '| checkout | bare Hono | actor, memory store | actor, SQLite | outside storage (memory − bare) | storage (SQLite − memory) | bare/actor (SQLite) | actor, memory store, mock model | model call (mock − memory) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const [name] of checkouts) {
  const [bare, memory, sqlite, mock] = ['bare', 'memory', 'sqlite', 'mock'].map((stack) =>
    perInvoke.get(`${name}/${stack}`),
  );
  const outside = bare !== undefined && memory !== undefined ? memory - bare : undefined;
  const storage = memory !== undefined && sqlite !== undefined ? sqlite - memory : undefined;
  const ratio = bare !== undefined && sqlite !== undefined ? `${((bare / sqlite) * 100).toFixed(0)}%` : '—';
  const modelCall = memory !== undefined && mock !== undefined ? mock - memory : undefined;
  lines.push(
    `| ${name} | ${thousands(bare)} | ${thousands(memory)} | ${thousands(sqlite)} | ${thousands(outside)} | ${thousands(storage)} | ${ratio} | ${thousands(mock)} | ${thousands(modelCall)} |`,
  );
}
if (storedMessages !== undefined || stacks.includes('postgres')) {
  lines.push(
    '',
    `Each stack on its own database${storedMessages === undefined ? '' : `, seeded with ${values.sessions} sessions × ${storedMessages} messages, HISTORY_LIMIT=${values['history-limit']}`}:`,
    '',
    '| checkout | stack | instructions per invoke |',
    '| --- | --- | --- |',
    ...cells.map(
      (cell) => `| ${cell.name} | ${cell.stack} | ${thousands(perInvoke.get(`${cell.name}/${cell.stack}`))} |`,
    ),
  );
}
rmSync(seedDir, { recursive: true, force: true });
if (stacks.includes('postgres')) await dropCountDatabases();
process.stdout.write(`${lines.join('\n')}\n`);
