/**
 * Store throughput: `saveTurns` (one record per call), `appendMessages` (a user and
 * an assistant message per call) and `GroupCommit.record` (one record per call, sharing
 * transactions while one is in flight) at a fixed concurrency, for the memory double, an
 * SQLite file and PostgreSQL, measured in one run and printed as ops/s and as ratios to the
 * memory store (medians of interleaved rounds). Each measurement runs for a fixed time, so
 * the whole run is bounded.
 *
 * Run: `npx tsx bench/store-throughput.ts` (PostgreSQL from TEST_DATABASE_URL, else the local
 * postgres://postgres@127.0.0.1:5432/test; a throw-away schema is created and dropped).
 * Options (env): BENCH_SECONDS per measurement (default 1), BENCH_ROUNDS (default 3),
 * BENCH_CONCURRENCY (default 16).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/log/logger.js';
import { GroupCommit } from '../src/store/group-commit.js';
import { MemoryStore } from '../src/store/memory-store.js';
import { openStore } from '../src/store/open-store.js';
import type { TurnToSave, Store } from '../src/store/store.js';
import { TestSchemas } from '../test/store/postgres-schemas.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Operation = 'saveTurns' | 'appendMessages' | 'groupCommit.saveTurn';
const operations: readonly Operation[] = ['saveTurns', 'appendMessages', 'groupCommit.saveTurn'];

let counter = 0;
function record(): TurnToSave {
  counter += 1;
  return {
    id: `bench-${counter}`,
    tenantId: `tenant-${counter % 4}`,
    userIdentifier: `user-${counter % 50}`,
    sessionId: `session-${counter % 200}`,
    outcome: 'success',
    inputTokens: 12,
    outputTokens: 34,
    toolCalls: 0,
    latencyMs: 5,
    finishedAt: new Date().toISOString(),
  };
}

const buffers = new WeakMap<Store, GroupCommit>();

async function runOperation(store: Store, operation: Operation): Promise<void> {
  if (operation === 'saveTurns') return store.saveTurns([record()]);
  if (operation === 'groupCommit.saveTurn') {
    const buffer = buffers.get(store) ?? new GroupCommit(store, { logger: silentLogger });
    buffers.set(store, buffer);
    const { persisted } = await buffer.saveTurn(record());
    if (!persisted) throw new Error('the benchmark store failed a write');
    return;
  }
  counter += 1;
  const createdAt = new Date().toISOString();
  return store.appendMessages('tenant-0', `session-${counter % 200}`, [
    { id: `u-${counter}`, role: 'user', content: 'What is the weather in Zürich?', createdAt },
    { id: `a-${counter}`, role: 'assistant', content: 'Sunny, 21 °C.', createdAt },
  ]);
}

/** Calls per second of `operation` over `seconds`, from `concurrency` callers. */
async function measure(store: Store, operation: Operation): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await runOperation(store, operation);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-bench-'));
  const stores: [string, Store][] = [
    ['memory', new MemoryStore()],
    ['sqlite (file, WAL)', await openStore({ dataDir, logger: silentLogger })],
  ];
  const schemas = new TestSchemas(postgresUrl, 'actorkit_bench_store');
  try {
    const url = await schemas.create();
    stores.push(['postgres', await openStore({ url, poolSize: concurrency, logger: silentLogger })]);
  } catch (error) {
    console.log(`postgres: not measured (${error instanceof Error ? error.message : String(error)})`);
  }
  const rates = new Map<string, number[]>();
  try {
    for (const [, store] of stores) await store.migrate();
    // Rounds interleave the stores, so a burst of load from elsewhere on the machine hits them alike.
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, store] of stores) {
        for (const operation of operations) {
          const key = `${name}/${operation}`;
          rates.set(key, [...(rates.get(key) ?? []), await measure(store, operation)]);
        }
      }
    }
  } finally {
    for (const [, store] of stores) await store.close();
    await schemas.dropAll().catch(() => {});
    await rm(dataDir, { recursive: true, force: true });
  }

  console.log(
    `\nStore throughput: median of ${rounds} rounds of ${seconds} s, concurrency ${concurrency}, Node ${process.version}\n`,
  );
  console.log(
    ['store'.padEnd(20), ...operations.map((operation) => `${operation} ops/s (×memory)`.padStart(38))].join(''),
  );
  for (const [name] of stores) {
    const cells = operations.map((operation) => {
      const value = median(rates.get(`${name}/${operation}`) ?? []);
      const ratio = value / median(rates.get(`memory/${operation}`) ?? [value]);
      return `${Math.round(value).toLocaleString('en-US')} (${ratio < 0.01 ? ratio.toExponential(1) : ratio.toFixed(3)})`.padStart(
        38,
      );
    });
    console.log([name.padEnd(20), ...cells].join(''));
  }
}

await main();
