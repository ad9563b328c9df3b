/**
 * Where the RSS of the built example actor on Node goes under invokes (issue 17): starts it as
 * the bench does (offline model, SQLite file or PostgreSQL), reads RSS 1 s after ready, then
 * sends invokes at 32 connections (bench/load/send-invokes.ts) up to each checkpoint and reads,
 * 1 s later, RSS from /proc and V8's own figures from inside the process
 * (bench/profile/memory-report.mjs, loaded with `--import`): heap used and committed,
 * external, array buffers, new and old space — before and after a forced full GC (the live
 * heap) — and the CPU µs per invoke of the segment. A live heap that keeps rising from
 * checkpoint to checkpoint is a leak; a flat live heap under a rising RSS is V8 or allocator
 * slack.
 *
 * Run: `npx tsx bench/profile/memory-growth.ts [--stack actor|bare] [--store sqlite|postgres]
 * [--checkpoints 10000,20000,50000] [--connections 32] [--node-options="--max-semi-space-size=1"]
 * [--env MALLOC_ARENA_MAX=2,...] [--no-gc] [--snapshots] [--allocations] [--top 20]
 * [--settle 5,15,30]`. PostgreSQL: `--store postgres` with DATABASE_URL set. `--no-gc` skips the forced collections (the RSS then follows
 * the bench's method exactly); `--snapshots` also writes a heap snapshot at idle and at each
 * checkpoint and prints what grew from the first checkpoint to the last (a snapshot costs RSS
 * itself, so take the RSS figures from a run without it); `--settle` reads RSS again that many
 * seconds after the last invoke, with no load (does V8 give the slack back once idle?);
 * `--allocations` samples every allocation up to the first checkpoint and prints the KiB per
 * invoke by code area and function (the sampling costs CPU: take CPU figures from a run without it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnActor, waitUntilReady, within } from '../../test/contract/spawn-actor.js';
import { actorProcess, benchServers, storeEnv } from '../bench-servers.js';
import { sendInvokes } from '../load/send-invokes.js';
import { readCpuMs, readRssBytes } from '../measure/process-usage.js';
import { type AllocationEntry, summarizeAllocationProfile } from './summarize-allocation-profile.js';
import { heapGrowth, summarizeHeapSnapshot } from './summarize-heap-snapshot.js';

const { values } = parseArgs({
  options: {
    stack: { type: 'string', default: 'actor' },
    store: { type: 'string', default: 'sqlite' },
    checkpoints: { type: 'string', default: '10000,20000,50000' },
    connections: { type: 'string', default: '32' },
    'node-options': { type: 'string', default: '' },
    env: { type: 'string', default: '' },
    'no-gc': { type: 'boolean', default: false },
    snapshots: { type: 'boolean', default: false },
    top: { type: 'string', default: '20' },
    settle: { type: 'string', default: '' },
    allocations: { type: 'boolean', default: false },
  },
});
if (values.stack !== 'actor' && values.stack !== 'bare')
  throw new Error(`--stack is actor or bare, got ${values.stack}`);
if (values.store !== 'sqlite' && values.store !== 'postgres')
  throw new Error(`--store is sqlite or postgres, got ${values.store}`);
if (values.store === 'postgres' && !process.env.DATABASE_URL) throw new Error('--store postgres needs DATABASE_URL');
const positive = (name: string, text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes positive integers, got ${text}`);
  return value;
};
const checkpoints = values.checkpoints.split(',').map((text) => positive('checkpoints', text));
if (checkpoints.some((count, index) => index > 0 && count <= checkpoints[index - 1]!))
  throw new Error(`--checkpoints must rise, got ${values.checkpoints}`);
const connections = positive('connections', values.connections);
const top = positive('top', values.top);
const settleS = values.settle
  .split(',')
  .filter((text) => text !== '')
  .map((text) => positive('settle', text));
const nodeOptions = values['node-options'].split(' ').filter((option) => option !== '');
const extraEnv = Object.fromEntries(
  values.env
    .split(',')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 1) throw new Error(`--env takes NAME=value pairs separated by commas, got ${pair}`);
      return [pair.slice(0, equals), pair.slice(equals + 1)];
    }),
);

interface Collections {
  readonly minor: number;
  readonly major: number;
  readonly incremental: number;
  readonly pauseMs: number;
}

interface Usage {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly spaces: Readonly<Record<string, { size: number; used: number }>>;
}

interface Report {
  readonly report: number;
  readonly before: Usage & { readonly collections: Collections };
  readonly afterGc: Usage | null;
  readonly snapshot: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

const workDir = mkdtempSync(join(tmpdir(), 'actorkit-memory-'));
const reportFile = join(workDir, 'reports.jsonl');
const allocationFile = join(workDir, 'allocations.heapprofile');
const preload = pathToFileURL(fileURLToPath(new URL('./memory-report.mjs', import.meta.url))).href;
const server = values.stack === 'bare' ? benchServers('node', null)[0]!.process : actorProcess('node');
const flags = [...nodeOptions, ...(values['no-gc'] ? [] : ['--expose-gc']), '--import', preload];
const actor = await spawnActor(
  { name: `node-${values.stack}-memory`, command: server.command, args: [...flags, ...server.args] },
  {
    ...storeEnv(values.store, process.env.DATABASE_URL ?? ''),
    ...extraEnv,
    MEMORY_REPORT_FILE: reportFile,
    ...(values.snapshots ? { MEMORY_SNAPSHOT_DIR: workDir } : {}),
    ...(values.allocations ? { MEMORY_ALLOCATION_PROFILE: allocationFile } : {}),
  },
  { drainAfterListening: true },
);
const pid = actor.child.pid!;

/** Asks the server for its V8 figures (SIGUSR2) and waits for the line it appends. */
async function v8Report(count: number): Promise<Report> {
  actor.child.kill('SIGUSR2');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const lines = (() => {
      try {
        return readFileSync(reportFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '');
      } catch {
        return [];
      }
    })();
    if (lines.length >= count) return JSON.parse(lines[count - 1]!) as Report;
    if (Date.now() > deadline) throw new Error(`no memory report ${count} within 120 s\n${actor.output()}`);
    await sleep(50);
  }
}

interface Row {
  readonly invokes: number;
  readonly rssMiB: string;
  readonly report: Report;
  readonly rssAfterGcMiB: string;
  readonly cpuUsPerInvoke: string;
  readonly failed: number;
}

const rows: Row[] = [];
const settled: { afterS: number; rssMiB: string }[] = [];
try {
  await waitUntilReady(actor);
  await sleep(1_000);
  const idleRss = await readRssBytes(pid);
  const idleReport = await v8Report(1);
  rows.push({
    invokes: 0,
    rssMiB: mib(idleRss),
    report: idleReport,
    rssAfterGcMiB: mib(await readRssBytes(pid)),
    cpuUsPerInvoke: '—',
    failed: 0,
  });
  let sent = 0;
  for (const checkpoint of checkpoints) {
    const cpuBefore = await readCpuMs(pid);
    const tally = await sendInvokes(actor.baseUrl, checkpoint - sent, connections);
    const cpuUs = ((await readCpuMs(pid)) - cpuBefore) * 1000;
    const segment = checkpoint - sent;
    sent = checkpoint;
    await sleep(1_000);
    const rss = await readRssBytes(pid);
    const report = await v8Report(rows.length + 1);
    rows.push({
      invokes: checkpoint,
      rssMiB: mib(rss),
      report,
      rssAfterGcMiB: mib(await readRssBytes(pid)),
      cpuUsPerInvoke: (cpuUs / segment).toFixed(0),
      failed: segment - tally.ok,
    });
    process.stderr.write(`${checkpoint} invokes: RSS ${mib(rss)} MiB (idle ${mib(idleRss)})\n`);
  }
  let waitedS = 1;
  for (const afterS of settleS) {
    await sleep(Math.max(afterS - waitedS, 0) * 1000);
    waitedS = Math.max(afterS, waitedS);
    settled.push({ afterS, rssMiB: mib(await readRssBytes(pid)) });
  }
} finally {
  actor.child.kill('SIGTERM');
  await within(actor.exited, 15_000, 'exit after SIGTERM').catch(() => undefined);
  await actor.dispose();
}

const space = (usage: Usage | null, name: string) => (usage === null ? '—' : mib(usage.spaces[name]?.size ?? 0));
const header = [
  'invokes',
  'RSS MiB',
  'heap used',
  'heap total',
  'new space',
  'old space',
  'external',
  'array buffers',
  'live heap (after GC)',
  'heap total after GC',
  'RSS after GC',
  'CPU µs/invoke',
  'scavenges',
  'mark-compacts',
  'GC pause ms',
  'non-200',
];
const lines = rows.map(
  ({ invokes, rssMiB, report: { before, afterGc }, rssAfterGcMiB, cpuUsPerInvoke, failed }, index) => {
    // Counted since the previous report, which forced one mark-compact itself unless --no-gc.
    const earlier = index === 0 ? null : rows[index - 1]!.report.before.collections;
    const forced = earlier !== null && !values['no-gc'] ? 1 : 0;
    const since = (pick: (collections: Collections) => number) =>
      earlier === null ? pick(before.collections) : pick(before.collections) - pick(earlier);
    return [
      invokes,
      rssMiB,
      mib(before.heapUsed),
      mib(before.heapTotal),
      space(before, 'new_space'),
      space(before, 'old_space'),
      mib(before.external),
      mib(before.arrayBuffers),
      afterGc === null ? '—' : mib(afterGc.heapUsed),
      afterGc === null ? '—' : mib(afterGc.heapTotal),
      afterGc === null ? '—' : rssAfterGcMiB,
      cpuUsPerInvoke,
      since((collections) => collections.minor),
      since((collections) => collections.major) - forced,
      since((collections) => collections.pauseMs).toFixed(0),
      failed,
    ].join(' | ');
  },
);
const label = `node ${values.stack === 'bare' ? 'bare Hono' : `actor (${values.store})`}${nodeOptions.length > 0 ? ` ${nodeOptions.join(' ')}` : ''}${values.env ? ` ${values.env}` : ''}`;
const last = rows.at(-1)!;
process.stdout.write(
  `${label}, ${connections} connections; MiB unless named; RSS after ${last.invokes} invokes / idle = ${(Number(last.rssMiB) / Number(rows[0]!.rssMiB)).toFixed(2)}×\n\n` +
    `| ${header.join(' | ')} |\n|${' --- |'.repeat(header.length)}\n${lines.map((line) => `| ${line} |`).join('\n')}\n` +
    (settled.length > 0
      ? `\nRSS after the last invoke, no load: ${settled.map(({ afterS, rssMiB }) => `${afterS} s ${rssMiB} MiB`).join(', ')}\n`
      : ''),
);

const snapshots = rows.map((row) => row.report.snapshot).filter((path): path is string => path !== null);
if (snapshots.length >= 3) {
  // From the first checkpoint (warm: every code path compiled, every pool filled) to the last.
  const growth = heapGrowth(summarizeHeapSnapshot(snapshots[1]!), summarizeHeapSnapshot(snapshots.at(-1)!), top);
  process.stdout.write(
    `\nheap growth from ${rows[1]!.invokes} to ${last.invokes} invokes (own size, live objects after GC)\n` +
      growth
        .map(
          (entry) =>
            `${(entry.selfBytesDelta / 1024).toFixed(0).padStart(8)} KiB ${String(entry.countDelta).padStart(8)} objects  ${entry.name}`,
        )
        .join('\n') +
      '\n',
  );
}
if (values.allocations) {
  // Sampled from the idle report to the first checkpoint's.
  const invokes = rows[1]!.invokes;
  const summary = summarizeAllocationProfile(allocationFile, top);
  const list = (title: string, entries: readonly AllocationEntry[]) =>
    `\n${title}\n${entries.map((entry) => `${(entry.bytes / invokes / 1024).toFixed(1).padStart(8)} KiB/invoke  ${entry.name}`).join('\n')}`;
  process.stdout.write(
    `\nallocated over the first ${invokes} invokes: ${(summary.totalBytes / invokes / 1024).toFixed(1)} KiB per invoke` +
      list('by code area', summary.selfByArea) +
      list('by function (self)', summary.selfByFunction) +
      list('by function (inclusive)', summary.totalByFunction) +
      '\n',
  );
}
rmSync(workDir, { recursive: true, force: true });
