/**
 * Where the actor's `GET /health` time goes: starts bare Hono, bare Hono behind
 * `@hono/prometheus`'s counting middleware, bare Hono behind the actor's request observer
 * (bench/profile/health-variant.mjs), then the real actor, each in
 * its own Node process under the same wrk load, and prints CPU µs per request per step.
 * CPU per request (from /proc) is used rather than req/s because it holds steady when other
 * work shares the machine. Run: `npx tsx bench/profile/health-cost-ladder.ts [--runtime bun]
 * [--rounds 3] [--duration 4]`.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnActor } from '../../test/contract/spawn-actor.js';
import { actorProcess } from '../bench-servers.js';
import { runWrk } from '../load/run-wrk.js';
import { median } from '../measure/median.js';
import { readCpuMs } from '../measure/process-usage.js';

/** The steps, by the names health-variant.mjs takes; each is measured against `bare`. */
const LADDER = ['bare', 'hono-prometheus', 'observer', 'actor'] as const;
const variantEntry = fileURLToPath(new URL('./health-variant.mjs', import.meta.url));

const { values } = parseArgs({
  options: {
    runtime: { type: 'string', default: 'node' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '4' },
  },
});
if (values.runtime !== 'node' && values.runtime !== 'bun') throw new Error('--runtime is node or bun');
const command = actorProcess(values.runtime).command;
const rounds = Number(values.rounds);
const durationS = Number(values.duration);

async function cpuPerRequest(step: (typeof LADDER)[number]): Promise<{ cpuUs: number; requestsPerSecond: number }> {
  const server = await spawnActor({ name: `health-${step}`, command, args: [variantEntry, step] });
  try {
    const baseUrl = server.baseUrl;
    await runWrk({ baseUrl, route: 'health', connections: 32, durationS: 1 });
    const before = await readCpuMs(server.child.pid!);
    const figures = await runWrk({ baseUrl, route: 'health', connections: 32, durationS });
    const cpuUs = (((await readCpuMs(server.child.pid!)) - before) * 1000) / figures.requests;
    return { cpuUs, requestsPerSecond: figures.requestsPerSecond };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await server.dispose();
  }
}

const samples = new Map<string, { cpuUs: number[]; rps: number[] }>(
  LADDER.map((step) => [step, { cpuUs: [], rps: [] }]),
);
for (let round = 0; round < rounds; round += 1) {
  for (const step of LADDER) {
    const { cpuUs, requestsPerSecond } = await cpuPerRequest(step);
    samples.get(step)!.cpuUs.push(cpuUs);
    samples.get(step)!.rps.push(requestsPerSecond);
  }
}
const bare = median(samples.get('bare')!.cpuUs);
process.stdout.write(
  '| step | CPU µs/req (median) | added to bare | bare/step | req/s (median) |\n| --- | --- | --- | --- | --- |\n',
);
for (const step of LADDER) {
  const cpu = median(samples.get(step)!.cpuUs);
  process.stdout.write(
    `| ${step} | ${cpu.toFixed(1)} | ${step === 'bare' ? '—' : `${(cpu - bare).toFixed(1)}`} | ${Math.round((bare / cpu) * 100)}% | ${Math.round(median(samples.get(step)!.rps))} |\n`,
  );
}
