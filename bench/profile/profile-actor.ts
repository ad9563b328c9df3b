/**
 * Profiles the built example actor on Node under load: starts it with `node --cpu-prof` on an
 * SQLite file or PostgreSQL, runs wrk on one route, stops it with SIGTERM (which writes the
 * profile) and prints where the CPU time went — by code area (npm package or actorkit folder)
 * and by function, self and inclusive — with CPU µs per request from /proc.
 *
 * Run: `npx tsx bench/profile/profile-actor.ts --route invoke --store sqlite [--duration 8]
 * [--connections 32] [--top 25] [--stack bare] [--model mock]` (`--stack bare` profiles bare Hono
 * instead, the floor to compare against; `--model mock` has the actor call the peer comparison's
 * mock OpenAI-compatible model on loopback instead of its offline model). PostgreSQL: `--store
 * postgres` with DATABASE_URL set.
 * The .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnActor, waitUntilReady, within } from '../../test/contract/spawn-actor.js';
import { actorProcess, benchServers, storeEnv } from '../bench-servers.js';
import { stopServer } from '../load/interleaved-cells.js';
import { type LoadRoute, runWrk } from '../load/run-wrk.js';
import { MOCK_MODEL_ENTRY } from '../peers/peer-comparison.js';
import { readCpuMs } from '../measure/process-usage.js';
import { type ProfileEntry, summarizeCpuProfile } from './summarize-cpu-profile.js';

const { values } = parseArgs({
  options: {
    route: { type: 'string', default: 'invoke' },
    store: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    top: { type: 'string', default: '25' },
    stack: { type: 'string', default: 'actor' },
    model: { type: 'string', default: 'offline' },
  },
});
if (values.route !== 'invoke' && values.route !== 'health') throw new Error('--route is invoke or health');
if (values.store !== 'sqlite' && values.store !== 'postgres') throw new Error('--store is sqlite or postgres');
if (values.stack !== 'actor' && values.stack !== 'bare') throw new Error('--stack is actor or bare');
if (values.model !== 'offline' && values.model !== 'mock') throw new Error('--model is offline or mock');
if (values.store === 'postgres' && !process.env.DATABASE_URL) throw new Error('--store postgres needs DATABASE_URL');
const route: LoadRoute = values.route;

const profileDir = mkdtempSync(join(tmpdir(), 'actorkit-profile-'));
const node = values.stack === 'bare' ? benchServers('node', null)[0]!.process : actorProcess('node');
const mockModel =
  values.model === 'mock'
    ? await spawnActor(
        { name: 'mock-model', command: process.execPath, args: [MOCK_MODEL_ENTRY] },
        {},
        { drainAfterListening: true },
      )
    : undefined;
const modelEnv: Record<string, string> =
  mockModel === undefined ? {} : { LLM_MODEL: 'mock-model', LLM_BASE_URL: `${mockModel.baseUrl}/v1` };
const actor = await spawnActor(
  { name: 'node-profiled', command: node.command, args: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...node.args] },
  { ...storeEnv(values.store, process.env.DATABASE_URL ?? ''), ...modelEnv },
  { drainAfterListening: true },
);
await waitUntilReady(actor);
await runWrk({ baseUrl: actor.baseUrl, route, connections: Number(values.connections), durationS: 2 });
const cpuBefore = await readCpuMs(actor.child.pid!);
const figures = await runWrk({
  baseUrl: actor.baseUrl,
  route,
  connections: Number(values.connections),
  durationS: Number(values.duration),
});
const cpuUsPerRequest = (((await readCpuMs(actor.child.pid!)) - cpuBefore) * 1000) / figures.requests;
actor.child.kill('SIGTERM');
await within(actor.exited, 30_000, 'profiled actor exit');
await actor.dispose();
if (mockModel !== undefined) await stopServer(mockModel);

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
if (file === undefined) throw new Error(`no .cpuprofile in ${profileDir}`);
const summary = summarizeCpuProfile(join(profileDir, file), Number(values.top));
const list = (title: string, entries: readonly ProfileEntry[]) =>
  `\n${title}\n${entries.map((entry) => `${entry.share.toFixed(1).padStart(6)}% ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}`).join('\n')}`;
process.stdout.write(
  `${route} on ${values.stack === 'bare' ? 'bare Hono' : `${values.store}, ${values.model} model`}: ${figures.requestsPerSecond} req/s, p50 ${figures.latencyMs.p50} ms, ${cpuUsPerRequest.toFixed(0)} CPU µs/req; ` +
    `profile ${summary.totalMs} ms, idle ${summary.idleMs} ms\n` +
    list('self time by code area', summary.selfByArea) +
    list('self time by function', summary.selfByFunction) +
    list('inclusive time by function', summary.totalByFunction) +
    `\n\nprofile: ${join(profileDir, file)}\n`,
);
