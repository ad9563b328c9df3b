import type { BenchResults, ThroughputCell } from '../bench-results.js';
import { serverLabel } from '../bench-servers.js';

/** The targets: the full stack keeps >= 80% of bare Hono's `/health` throughput, and invoke overhead < 1 ms at p50. */
export const TARGETS = { healthThroughputRatio: 0.8, invokeOverheadP50Ms: 1 } as const;

const fixed = (value: number, digits = 2) => value.toFixed(digits);
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;
const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
const table = (header: readonly string[], rows: readonly (readonly (string | number)[])[]) =>
  [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');

function bareOf(cells: readonly ThroughputCell[], cell: ThroughputCell): ThroughputCell | undefined {
  return cells.find((other) => other.stack === 'bare' && other.runtime === cell.runtime && other.route === cell.route && other.connections === cell.connections);
}

/** The ratios the issue asks for, one per actor cell: actor req/s over bare req/s, and the p50 overhead at one connection. */
export function throughputRatios(results: Pick<BenchResults, 'throughput'>) {
  return results.throughput
    .filter((cell) => cell.stack === 'actor')
    .flatMap((cell) => {
      const bare = bareOf(results.throughput, cell);
      if (bare === undefined) return [];
      return [
        {
          runtime: cell.runtime,
          store: cell.store,
          route: cell.route,
          connections: cell.connections,
          throughputRatio: cell.figures.requestsPerSecond / bare.figures.requestsPerSecond,
          /** Bare Hono's CPU per request over the actor's: the throughput share the actor keeps when the CPU is the limit. */
          cpuRatio: bare.cpuUsPerRequest / Math.max(cell.cpuUsPerRequest, 1),
          p50OverheadMs: cell.figures.latencyMs.p50 - bare.figures.latencyMs.p50,
        },
      ];
    });
}

function throughputTable(results: BenchResults): string {
  const rows = results.throughput.map((cell) => {
    const bare = bareOf(results.throughput, cell);
    const ratio = cell.stack === 'actor' && bare ? percent(cell.figures.requestsPerSecond / bare.figures.requestsPerSecond) : '—';
    const route = cell.route === 'health' ? 'GET /health' : 'POST /agent/invoke';
    const failures = cell.figures.non2xx + cell.figures.socketErrors;
    const cpuRatio = cell.stack === 'actor' && bare ? percent(bare.cpuUsPerRequest / Math.max(cell.cpuUsPerRequest, 1)) : '—';
    return [route, cell.connections, serverLabel(cell), cell.figures.requestsPerSecond, fixed(cell.figures.latencyMs.p50), fixed(cell.figures.latencyMs.p99), cell.cpuUsPerRequest, ratio, cpuRatio, failures, fixed(cell.loadAverage, 1)];
  });
  return table(['route', 'conns', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'actor/bare req/s', 'bare/actor CPU per req', 'non-2xx + socket errors', 'load avg'], rows);
}

function targetsTable(results: BenchResults): string {
  const rows = throughputRatios(results).flatMap((ratio) => {
    if (ratio.route === 'health' && ratio.connections > 1) {
      return [
        [`${ratio.runtime} (${ratio.store})`, `/health req/s actor/bare >= ${percent(TARGETS.healthThroughputRatio)}`, percent(ratio.throughputRatio), ratio.throughputRatio >= TARGETS.healthThroughputRatio ? 'met' : '**not met**'],
        [`${ratio.runtime} (${ratio.store})`, `/health CPU per request bare/actor >= ${percent(TARGETS.healthThroughputRatio)}`, percent(ratio.cpuRatio), ratio.cpuRatio >= TARGETS.healthThroughputRatio ? 'met' : '**not met**'],
      ];
    }
    if (ratio.route === 'invoke' && ratio.connections === 1) {
      return [[`${ratio.runtime} (${ratio.store})`, `invoke p50 overhead at 1 connection < ${TARGETS.invokeOverheadP50Ms} ms`, `${fixed(ratio.p50OverheadMs)} ms`, ratio.p50OverheadMs < TARGETS.invokeOverheadP50Ms ? 'met' : '**not met**']];
    }
    if (ratio.route === 'invoke') {
      return [[`${ratio.runtime} (${ratio.store})`, `invoke req/s actor/bare at ${ratio.connections} connections (no target); CPU per request bare/actor`, `${percent(ratio.throughputRatio)}; ${percent(ratio.cpuRatio)}`, '—']];
    }
    return [];
  });
  return table(['runtime (store)', 'figure', 'measured', 'target'], rows);
}

function coldStartTable(results: BenchResults): string {
  return table(
    ['runtime', 'store', 'median ms', 'runs (ms)'],
    results.coldStart.map((figures) => [figures.runtime, figures.store, Math.round(figures.medianMs), figures.runsMs.map((ms) => Math.round(ms)).join(', ')]),
  );
}

function memoryTable(results: BenchResults): string {
  return table(
    ['server', 'RSS idle MiB', `RSS after invokes MiB`, 'invokes sent', '200 replies', '/stats grew by'],
    results.memory.map((figures) => [
      serverLabel(figures),
      fixed(figures.idleRssMiB, 1),
      figures.afterInvokes ? fixed(figures.afterInvokes.rssMiB, 1) : '—',
      figures.afterInvokes?.invokes ?? '—',
      figures.afterInvokes?.ok ?? '—',
      figures.afterInvokes?.statsDelta ?? '—',
    ]),
  );
}

function cliTable(results: BenchResults): string {
  if (results.cli.status === 'skipped') return `skipped: ${results.cli.reason}`;
  return table(
    ['command', 'median ms', `ratio to \`node -e 0\` (${results.cli.nodeBaselineMs} ms)`, 'exit codes'],
    results.cli.verbs.map((verb) => [`\`${verb.command}\``, verb.medianMs, `${fixed(verb.ratio, 1)}×`, verb.exitCodes.join(', ')]),
  );
}

/**
 * The markdown docs/performance.md shows for one bench run: the machine, every throughput
 * cell with its actor/bare ratio, the targets, cold start, memory and the CLI.
 * @param results what the run measured
 */
export function renderTables(results: BenchResults): string {
  const { machine, settings } = results;
  const lines = [
    `Measured ${machine.finishedAt.slice(0, 16).replace('T', ' ')} UTC on ${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB; ` +
      `commit \`${machine.commit.slice(0, 12)}\`${machine.dirty ? ' + uncommitted changes' : ''}; ` +
      `Node ${machine.versions.node}, Bun ${machine.versions.bun}, ${machine.versions.wrk}; ` +
      `load average ${fixed(machine.loadAverage.before, 1)} before, ${fixed(machine.loadAverage.after, 1)} after.`,
    '',
    `Each cell: ${settings.warmupS} s warm-up, then ${settings.rounds} rounds of ${settings.durationS} s of wrk (1 thread) on loopback, ` +
      'taking bare Hono and the actors of one runtime in turn (all three running); the figures are the medians of the rounds. ' +
      'CPU µs/req is the server process\'s user + system time over a round divided by the requests wrk completed.',
    ...(results.skipped.length > 0 ? ['', ...results.skipped.map((reason) => `- skipped: ${reason}`)] : []),
    '',
    '### Targets',
    '',
    targetsTable(results),
    '',
    '### Throughput and latency',
    '',
    throughputTable(results),
    '',
    `### Cold start (process start → first 200 from /ready, ${settings.coldStartRuns} starts on a migrated database)`,
    '',
    coldStartTable(results),
    '',
    `### Memory (RSS idle 1 s after ready; after ${settings.memoryInvokes} invokes at ${settings.connections} connections)`,
    '',
    memoryTable(results),
    '',
    '### CLI wall time',
    '',
    cliTable(results),
  ];
  return lines.join('\n');
}
