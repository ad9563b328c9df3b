/**
 * Where an invoke's CPU goes, split into storage and everything else, in one process with no
 * HTTP server and no other process in the way (issue 30, item 4). Three apps answer the same
 * `POST /agent/invoke` through `app.fetch` at a fixed concurrency, in interleaved rounds:
 *
 * - **bare Hono** (`bench/bare-hono/bare-app.mjs`): parses the body and answers a reply of the
 *   actor's shape, nothing else — the floor;
 * - **the example actor on the in-memory store** (`MemoryStore`): the whole actor but storage;
 * - **the example actor on an SQLite file** (the default store, WAL; `node:sqlite` on Node 24,
 *   libSQL on Node 20).
 *
 * CPU µs per invoke is `process.cpuUsage()` over a round divided by the invokes answered. Then
 * "outside storage" is memory − bare (what the actor adds beyond a bare answer, not counting
 * its store) and "storage" is SQLite − memory. The real log sink runs (its lines go to standard
 * output: send it to /dev/null); every figure goes to standard error. Each app's `/stats` must
 * count every 200 it gave.
 *
 * Run: `npx tsx bench/profile/invoke-cpu-in-process.ts > /dev/null [--rounds 7] [--seconds 1.5]
 * [--concurrency 32] [--only memory|sqlite|bare]` (Node 24:
 * `test/runtimes/node_modules/.bin/node node_modules/tsx/dist/cli.mjs …`). With `--only` and
 * `node --cpu-prof` it profiles one app alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../../examples/hello-actor/src/app.js';
import { INVOKE_PATH } from '../../src/features/invoke/invoke-route.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createBareApp } from '../bare-hono/bare-app.mjs';
import { median } from '../measure/median.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    seconds: { type: 'string', default: '1.5' },
    concurrency: { type: 'string', default: '32' },
    only: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
for (const [name, value] of [
  ['rounds', rounds],
  ['seconds', seconds],
  ['concurrency', concurrency],
] as const) {
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
}

interface InvokeTarget {
  readonly name: string;
  readonly fetch: (request: Request) => Response | Promise<Response>;
  readonly stop: (answered: number) => Promise<void>;
}

let sent = 0;
const invokeRequest = (): Request => {
  sent += 1;
  const body = JSON.stringify({
    user_identifier: `user-${sent % 50}`,
    session_id: `session-${sent % 200}`,
    message: `What is the weather? ${sent}`,
  });
  // With its Content-Length, as an HTTP client sends it (the body limit judges it by the header).
  return new Request(`http://127.0.0.1${INVOKE_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  });
};

/** Invokes answered 200 by `target` over `seconds`, and the CPU µs each took; throws on any other status. */
async function measure(target: InvokeTarget): Promise<{ readonly ok: number; readonly cpuUs: number }> {
  let ok = 0;
  const deadline = performance.now() + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const response = await target.fetch(invokeRequest());
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${target.name}: invoke answered ${response.status}`);
        ok += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { ok, cpuUs: (cpu.user + cpu.system) / ok };
}

async function actorTarget(name: string, env: Record<string, string>, store?: MemoryStore): Promise<InvokeTarget> {
  const app = createApp(env, store === undefined ? {} : { store });
  await app.actor.start();
  return {
    name,
    fetch: (request) => app.fetch(request),
    stop: async (answered) => {
      const counted = (await (await app.request('/stats')).json()) as { invocations: number };
      await app.actor.shutdown({ graceMs: 5_000 });
      if (counted.invocations !== answered)
        throw new Error(`${name}: /stats counted ${counted.invocations} invokes, ${answered} were answered 200`);
    },
  };
}

const dataDir = await mkdtemp(join(tmpdir(), 'actorkit-invoke-cpu-'));
const bare = createBareApp();
const all: InvokeTarget[] = [
  { name: 'bare', fetch: (request) => bare.fetch(request), stop: async () => {} },
  await actorTarget(
    'memory',
    { DATA_DIR: dataDir, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' },
    new MemoryStore(),
  ),
  await actorTarget('sqlite', { DATA_DIR: dataDir, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' }),
];
const targets = values.only === undefined ? all : all.filter((target) => target.name === values.only);
if (targets.length === 0) throw new Error('--only is bare, memory or sqlite');

const cpu = new Map<string, number[]>(targets.map((target) => [target.name, []]));
const answered = new Map<string, number>(targets.map((target) => [target.name, 0]));
try {
  for (const target of targets) answered.set(target.name, (await measure(target)).ok); // warm-up: counted in /stats, not in the figures
  for (let round = 0; round < rounds; round += 1) {
    // A new order each round, so a burst of load from elsewhere falls on every app alike.
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const { ok, cpuUs } = await measure(target);
      cpu.get(target.name)!.push(cpuUs);
      answered.set(target.name, answered.get(target.name)! + ok);
    }
  }
} finally {
  for (const target of all) await target.stop(answered.get(target.name) ?? 0);
  await rm(dataDir, { recursive: true, force: true });
}

// Noise from elsewhere on the machine only ever adds CPU time, so the least round is the steadier figure; the median is printed beside it.
const figure = (name: string) => (cpu.has(name) ? Math.min(...cpu.get(name)!) : Number.NaN);
const [bareUs, memoryUs, sqliteUs] = [figure('bare'), figure('memory'), figure('sqlite')];
const lines = [
  `Invoke CPU in process (no HTTP server), ${process.version}, concurrency ${concurrency}, the least of ${rounds} interleaved rounds of ${seconds} s:`,
  ...targets.map(
    (target) =>
      `  ${target.name.padEnd(7)} ${figure(target.name).toFixed(1).padStart(7)} µs/invoke (least round; median ${median(cpu.get(target.name)!).toFixed(1)}; rounds ${cpu
        .get(target.name)!
        .map((us) => us.toFixed(0))
        .join(', ')})`,
  ),
  `  outside storage (memory − bare): ${(memoryUs - bareUs).toFixed(1)} µs; storage (sqlite − memory): ${(sqliteUs - memoryUs).toFixed(1)} µs; bare/sqlite CPU ${((bareUs / sqliteUs) * 100).toFixed(0)}%`,
];
process.stderr.write(`${lines.join('\n')}\n`);
