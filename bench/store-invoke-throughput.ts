/**
 * Invoke throughput by store: `POST /agent/invoke` (offline model) through `app.request`, in
 * process, at a fixed concurrency, with the in-memory store (no database), an SQLite file and
 * PostgreSQL, measured in one run and printed as invokes/s (median of interleaved rounds) and
 * as ratios to the memory store. Each measurement runs for a fixed time, so the run is bounded.
 *
 * Run: `npx tsx bench/store-invoke-throughput.ts` (PostgreSQL from TEST_DATABASE_URL, else the
 * local postgres://postgres@127.0.0.1:5432/test; a throw-away schema is created and dropped).
 * Options (env): BENCH_SECONDS per measurement (default 1.5), BENCH_ROUNDS (default 3),
 * BENCH_CONCURRENCY (default 50). Every run also checks that `/stats` counted each 200.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActorApp } from '../src/app/create-actor-app.js';
import { INVOKE_PATH } from '../src/features/invoke/invoke-route.js';
import { silentLogger } from '../src/log/logger.js';
import { MemoryStore } from '../src/store/memory-store.js';
import { testActorDefinition } from '../src/testing/create-test-actor.js';
import { TestSchemas } from '../test/store/postgres-schemas.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 1.5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type BenchApp = ReturnType<typeof createActorApp>;

let sent = 0;

/** Invokes answered 200 by `app` over `seconds`, and their rate per second; throws on any other status. */
async function measure(app: BenchApp): Promise<{ ok: number; rate: number }> {
  let ok = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        sent += 1;
        const response = await app.request(INVOKE_PATH, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Tenant-Id': `tenant-${sent % 4}` },
          body: JSON.stringify({
            user_identifier: `user-${sent % 50}`,
            session_id: `session-${sent % 200}`,
            message: 'What is the weather?',
          }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`invoke answered ${response.status}`);
        ok += 1;
      }
    }),
  );
  return { ok, rate: ok / ((performance.now() - started) / 1000) };
}

async function startApp(env: Record<string, string>, store?: MemoryStore): Promise<BenchApp> {
  const app = createActorApp({
    definition: testActorDefinition,
    env,
    logger: silentLogger,
    ...(store === undefined ? {} : { store }),
  });
  await app.actor.start();
  return app;
}

/** Checks that `/stats` counted every 200, then shuts the app down. */
async function stopApp(name: string, app: BenchApp, answered: number): Promise<void> {
  const counted = (await (await app.request('/stats')).json()) as { invocations: number };
  await app.actor.shutdown({ graceMs: 5_000 });
  if (counted.invocations !== answered)
    throw new Error(`${name}: /stats counted ${counted.invocations} invokes, ${answered} were answered 200`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-bench-invoke-'));
  const apps: [string, BenchApp][] = [
    ['memory (no database)', await startApp({}, new MemoryStore())],
    ['sqlite (file, WAL)', await startApp({ DATA_DIR: dataDir })],
  ];
  const schemas = new TestSchemas(postgresUrl, 'actorkit_bench_invoke');
  try {
    const url = await schemas.create();
    apps.push(['postgres', await startApp({ DATABASE_URL: url })]);
  } catch (error) {
    console.log(`postgres: not measured (${error instanceof Error ? error.message : String(error)})`);
  }
  const rates = new Map<string, number[]>(apps.map(([name]) => [name, []]));
  const answered = new Map<string, number>(apps.map(([name]) => [name, 0]));
  try {
    // Rounds interleave the stores, so a burst of load from elsewhere on the machine hits them alike.
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, app] of apps) {
        const { ok, rate } = await measure(app);
        rates.get(name)?.push(rate);
        answered.set(name, (answered.get(name) ?? 0) + ok);
      }
    }
  } finally {
    for (const [name, app] of apps) await stopApp(name, app, answered.get(name) ?? 0);
    await schemas.dropAll().catch(() => {});
    await rm(dataDir, { recursive: true, force: true });
  }
  const baseline = median(rates.get(apps[0]?.[0] ?? '') ?? [1]);
  console.log(
    `\nInvoke throughput (offline model, in process): median of ${rounds} rounds of ${seconds} s, concurrency ${concurrency}, Node ${process.version}\n`,
  );
  for (const [name] of apps) {
    const rate = median(rates.get(name) ?? []);
    const spread = (rates.get(name) ?? []).map((value) => Math.round(value)).join(', ');
    console.log(
      `${name.padEnd(22)}${Math.round(rate).toLocaleString('en-US').padStart(8)} invokes/s   ×${(rate / baseline).toFixed(2)}   (rounds: ${spread})`,
    );
  }
}

await main();
