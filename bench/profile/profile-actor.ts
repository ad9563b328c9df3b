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
 *
 * `--stored-messages M [--sessions N] [--history-limit L]` profiles the invoke on history, as
 * bench/scale.ts measures it: the actor's database (a fresh SQLite file, or the PostgreSQL
 * database `actorkit_profile` re-created beside DATABASE_URL's) is seeded first with N sessions
 * (default 200) of M stored messages, wrk spreads its invokes over those N sessions, and the actor
 * reads `HISTORY_LIMIT=L` of them a turn (default 20). On PostgreSQL on this machine it also
 * prints PostgreSQL's own CPU per invoke: that of the server processes serving the actor's
 * connections (`pg_stat_activity` of its database, `/proc`).
 * The .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { spawnActor, waitUntilReady, within } from '../../test/contract/spawn-actor.js';
import { recreateBenchDatabase } from '../bench-database.js';
import { actorProcess, type BenchStore, benchServers, storeEnv } from '../bench-servers.js';
import { stopServer } from '../load/interleaved-cells.js';
import { type LoadRoute, runWrk } from '../load/run-wrk.js';
import { MOCK_MODEL_ENTRY } from '../peers/peer-comparison.js';
import { readCpuMs } from '../measure/process-usage.js';
import { seedBenchHistory } from '../scale.js';
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
    sessions: { type: 'string', default: '200' },
    'stored-messages': { type: 'string' },
    'history-limit': { type: 'string', default: '20' },
  },
});
if (values.route !== 'invoke' && values.route !== 'health') throw new Error('--route is invoke or health');
if (values.store !== 'sqlite' && values.store !== 'postgres') throw new Error('--store is sqlite or postgres');
if (values.stack !== 'actor' && values.stack !== 'bare') throw new Error('--stack is actor or bare');
if (values.model !== 'offline' && values.model !== 'mock') throw new Error('--model is offline or mock');
if (values.store === 'postgres' && !process.env.DATABASE_URL) throw new Error('--store postgres needs DATABASE_URL');
const route: LoadRoute = values.route;
const positive = (name: 'sessions' | 'stored-messages' | 'history-limit') => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return value;
};
const sessions = positive('sessions');
const historyLimit = positive('history-limit');
const storedMessages = values['stored-messages'] === undefined ? undefined : positive('stored-messages');
if (storedMessages !== undefined && storedMessages % 2 !== 0) throw new Error('--stored-messages must be even (turns)');

/** The actor's store: the one of `--store`, or a seeded database of its own when `--stored-messages` is given. */
async function seededStoreEnv(store: BenchStore, workDir: string): Promise<Record<string, string>> {
  const env = storeEnv(store, process.env.DATABASE_URL ?? '');
  if (storedMessages === undefined) return env;
  let url = `file:${join(workDir, 'seeded.db')}`;
  if (store === 'postgres') {
    const database = await recreateBenchDatabase(process.env.DATABASE_URL!, PROFILE_DATABASE);
    if (database.url === null) throw new Error(`PostgreSQL: ${database.reason}`);
    url = database.url;
  }
  await seedBenchHistory(url, sessions, storedMessages);
  return { DATABASE_URL: url, HISTORY_LIMIT: String(historyLimit) };
}

/**
 * The PostgreSQL server processes serving connections to `databaseUrl`'s database, when they run
 * on this machine (their `/proc` entries can be read); empty otherwise.
 */
async function postgresBackendPids(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((row) => row.pid).filter((pid) => existsSync(`/proc/${pid}/stat`));
  } finally {
    await client.end();
  }
}

const sumCpuMs = async (pids: readonly number[]) =>
  (await Promise.all(pids.map((pid) => readCpuMs(pid)))).reduce((sum, ms) => sum + ms, 0);

/** The PostgreSQL database `--stored-messages` seeds (re-created each run, left for inspection). */
const PROFILE_DATABASE = 'actorkit_profile';

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
const actorEnv = { ...(await seededStoreEnv(values.store, profileDir)), ...modelEnv };
const actor = await spawnActor(
  { name: 'node-profiled', command: node.command, args: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...node.args] },
  actorEnv,
  { drainAfterListening: true },
);
await waitUntilReady(actor);
const load = { baseUrl: actor.baseUrl, route, connections: Number(values.connections), sessions };
await runWrk({ ...load, durationS: 2 });
const postgresPids =
  values.store === 'postgres' && values.stack === 'actor' ? await postgresBackendPids(actorEnv.DATABASE_URL!) : [];
const cpuBefore = await readCpuMs(actor.child.pid!);
const postgresCpuBefore = await sumCpuMs(postgresPids);
const figures = await runWrk({ ...load, durationS: Number(values.duration) });
const cpuUsPerRequest = (((await readCpuMs(actor.child.pid!)) - cpuBefore) * 1000) / figures.requests;
const postgresCpuUsPerRequest = (((await sumCpuMs(postgresPids)) - postgresCpuBefore) * 1000) / figures.requests;
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
    (postgresPids.length === 0
      ? ''
      : `PostgreSQL's own CPU: ${postgresCpuUsPerRequest.toFixed(0)} µs/req (${postgresPids.length} server processes)\n`) +
    (storedMessages === undefined
      ? ''
      : `history: ${sessions} sessions × ${storedMessages} stored messages, HISTORY_LIMIT=${historyLimit}; load average ${loadavg()[0]!.toFixed(2)}\n`) +
    list('self time by code area', summary.selfByArea) +
    list('self time by function', summary.selfByFunction) +
    list('inclusive time by function', summary.totalByFunction) +
    `\n\nprofile: ${join(profileDir, file)}\n`,
);
