import type { BenchResults, ThroughputCell } from '../bench-results.js';
import { serverLabel } from '../bench-servers.js';
import { INVOKE_PATH } from '../../src/features/invoke/invoke-route.js';
import { ACTOR_ON_MOCK_MODEL, ACTOR_ON_OFFLINE_MODEL, type PeerComparison } from '../peers/peer-comparison.js';

/**
 * The targets of issue 17, in one run: the full stack keeps >= 85% of bare Hono's `/health`
 * throughput; its invoke req/s at the loaded connection count is at least a share of bare
 * Hono's (reply of the same shape, same runtime and server) per runtime and store (the design
 * could reach 50%); the invoke overhead at p50 stays under 1 ms; Node with SQLite is ready
 * within 300 ms, idles under 100 MiB and grows at most 1.3× over 10,000 invokes. Issue 43: the
 * actor answers at least 40× the invokes of its nearest peer, at a fortieth of its CPU; on Node
 * with PostgreSQL its invoke keeps 20% of bare's; its model call (the invoke on the mock model
 * less the same invoke offline) costs at most 1.5× a plain `fetch` of the same size.
 */
export const TARGETS = {
  healthThroughputRatio: 0.85,
  invokeThroughputRatio: { node: { sqlite: 0.35, postgres: 0.2 }, bun: { sqlite: 0.25, postgres: 0.2 } },
  invokeOverheadP50Ms: 1,
  peerRatio: 40,
  modelCallOverPlainFetch: 1.5,
  nodeColdStartMs: 300,
  nodeIdleRssMiB: 100,
  rssGrowthAfterInvokes: 1.3,
} as const;

const fixed = (value: number, digits = 2) => value.toFixed(digits);
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;
const verdict = (met: boolean) => (met ? 'met' : '**not met**');
const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
const table = (header: readonly string[], rows: readonly (readonly (string | number)[])[]) =>
  [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');

/** The floor cell of `cell`: bare Hono (`bare`, or the echo with `stack: 'bare-echo'`) on the same runtime, route and connections. */
function floorOf(
  cells: readonly ThroughputCell[],
  cell: ThroughputCell,
  stack: 'bare' | 'bare-echo' = 'bare',
): ThroughputCell | undefined {
  return cells.find(
    (other) =>
      other.stack === stack &&
      other.runtime === cell.runtime &&
      other.route === cell.route &&
      other.connections === cell.connections,
  );
}

/**
 * The ratios the issue asks for, one per actor cell: actor req/s over bare req/s (and over the
 * bare echo's, where one ran), CPU per request, and the p50 overhead.
 */
export function throughputRatios(results: Pick<BenchResults, 'throughput'>) {
  return results.throughput
    .filter((cell) => cell.stack === 'actor')
    .flatMap((cell) => {
      const bare = floorOf(results.throughput, cell);
      if (bare === undefined) return [];
      const echo = floorOf(results.throughput, cell, 'bare-echo');
      return [
        {
          runtime: cell.runtime,
          store: cell.store,
          route: cell.route,
          connections: cell.connections,
          throughputRatio: cell.figures.requestsPerSecond / bare.figures.requestsPerSecond,
          /** Actor req/s over bare Hono echoing the request (no reply-shape work); null when no echo ran. */
          echoRatio: echo === undefined ? null : cell.figures.requestsPerSecond / echo.figures.requestsPerSecond,
          /** Bare Hono's CPU per request over the actor's: the throughput share the actor keeps when the CPU is the limit. */
          cpuRatio: bare.cpuUsPerRequest / Math.max(cell.cpuUsPerRequest, 1),
          p50OverheadMs: cell.figures.latencyMs.p50 - bare.figures.latencyMs.p50,
        },
      ];
    });
}

function throughputTable(results: BenchResults): string {
  const rows = results.throughput.map((cell) => {
    const bare = floorOf(results.throughput, cell);
    const echo = floorOf(results.throughput, cell, 'bare-echo');
    const actor = cell.stack === 'actor';
    const ratio = actor && bare ? percent(cell.figures.requestsPerSecond / bare.figures.requestsPerSecond) : '—';
    const echoRatio = actor && echo ? percent(cell.figures.requestsPerSecond / echo.figures.requestsPerSecond) : '—';
    const route = cell.route === 'health' ? 'GET /health' : `POST ${INVOKE_PATH}`;
    const failures = cell.figures.non2xx + cell.figures.socketErrors;
    const cpuRatio = actor && bare ? percent(bare.cpuUsPerRequest / Math.max(cell.cpuUsPerRequest, 1)) : '—';
    return [
      route,
      cell.connections,
      serverLabel(cell),
      cell.figures.requestsPerSecond,
      fixed(cell.figures.latencyMs.p50),
      fixed(cell.figures.latencyMs.p99),
      cell.cpuUsPerRequest,
      ratio,
      echoRatio,
      cpuRatio,
      failures,
      fixed(cell.loadAverage, 1),
    ];
  });
  return table(
    [
      'route',
      'conns',
      'server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      'actor/bare req/s',
      'actor/bare echo req/s',
      'bare/actor CPU per req',
      'non-2xx + socket errors',
      'load avg',
    ],
    rows,
  );
}

function throughputTargets(results: BenchResults): (string | number)[][] {
  return throughputRatios(results).flatMap((ratio) => {
    const who = `${ratio.runtime} (${ratio.store})`;
    if (ratio.route === 'health' && ratio.connections > 1) {
      return [
        [
          who,
          `/health req/s actor/bare >= ${percent(TARGETS.healthThroughputRatio)}`,
          percent(ratio.throughputRatio),
          verdict(ratio.throughputRatio >= TARGETS.healthThroughputRatio),
        ],
        [
          who,
          `/health CPU per request bare/actor >= ${percent(TARGETS.healthThroughputRatio)}`,
          percent(ratio.cpuRatio),
          verdict(ratio.cpuRatio >= TARGETS.healthThroughputRatio),
        ],
      ];
    }
    if (ratio.route === 'invoke' && ratio.connections === 1) {
      return [
        [
          who,
          `invoke p50 overhead at 1 connection < ${TARGETS.invokeOverheadP50Ms} ms`,
          `${fixed(ratio.p50OverheadMs)} ms`,
          verdict(ratio.p50OverheadMs < TARGETS.invokeOverheadP50Ms),
        ],
      ];
    }
    if (ratio.route === 'invoke' && ratio.store !== null) {
      const target = TARGETS.invokeThroughputRatio[ratio.runtime][ratio.store];
      const rows: (string | number)[][] = [
        [
          who,
          `invoke req/s actor/bare at ${ratio.connections} connections >= ${percent(target)}; CPU per request bare/actor`,
          `${percent(ratio.throughputRatio)}; ${percent(ratio.cpuRatio)}`,
          verdict(ratio.throughputRatio >= target),
        ],
      ];
      if (ratio.echoRatio !== null)
        rows.push([
          who,
          `invoke req/s actor/bare echo (no reply-shape work) at ${ratio.connections} connections`,
          percent(ratio.echoRatio),
          '—',
        ]);
      return rows;
    }
    return [];
  });
}

function startAndMemoryTargets(results: BenchResults): (string | number)[][] {
  const rows: (string | number)[][] = [];
  for (const start of results.coldStart.filter((figures) => figures.runtime === 'node' && figures.store === 'sqlite')) {
    rows.push([
      'node (sqlite)',
      `cold start to the first /ready 200 < ${TARGETS.nodeColdStartMs} ms`,
      `${Math.round(start.medianMs)} ms`,
      verdict(start.medianMs < TARGETS.nodeColdStartMs),
    ]);
  }
  for (const memory of results.memory.filter((figures) => figures.runtime === 'node' && figures.stack === 'actor')) {
    const who = `node (${memory.store})`;
    rows.push([
      who,
      `idle RSS < ${TARGETS.nodeIdleRssMiB} MiB`,
      `${fixed(memory.idleRssMiB, 1)} MiB`,
      verdict(memory.idleRssMiB < TARGETS.nodeIdleRssMiB),
    ]);
    if (memory.afterInvokes !== null) {
      const growth = memory.afterInvokes.rssMiB / memory.idleRssMiB;
      rows.push([
        who,
        `RSS after ${memory.afterInvokes.invokes} invokes <= ${TARGETS.rssGrowthAfterInvokes}× idle`,
        `${fixed(growth)}×`,
        verdict(growth <= TARGETS.rssGrowthAfterInvokes),
      ]);
    }
  }
  return rows;
}

function targetsTable(results: BenchResults): string {
  return table(
    ['runtime (store)', 'figure', 'measured', 'target'],
    [...throughputTargets(results), ...startAndMemoryTargets(results)],
  );
}

function coldStartTable(results: BenchResults): string {
  return table(
    ['runtime', 'store', 'median ms', 'runs (ms)'],
    results.coldStart.map((figures) => [
      figures.runtime,
      figures.store,
      Math.round(figures.medianMs),
      figures.runsMs.map((ms) => Math.round(ms)).join(', '),
    ]),
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
    results.cli.verbs.map((verb) => [
      `\`${verb.command}\``,
      verb.medianMs,
      `${fixed(verb.ratio, 1)}×`,
      verb.exitCodes.join(', '),
    ]),
  );
}

const times = (ratio: number) => `${ratio >= 10 ? Math.round(ratio) : fixed(ratio, 1)}×`;

/**
 * The peer comparison in the issue's form: each server's invoke req/s against bare Hono's, its
 * CPU µs per invoke and bare's CPU over its own; then the actor (on the mock model, as the peer)
 * over the peer on req/s and CPU, and what each stored against what it answered.
 * @param peer the comparison of one run
 */
export function renderPeerComparison(peer: PeerComparison): string {
  const bare = peer.cells.find((cell) => cell.stack === 'bare');
  const actor = peer.cells.find((cell) => cell.label === ACTOR_ON_MOCK_MODEL);
  const mastra = peer.cells.find((cell) => cell.stack === 'peer');
  const rows = peer.cells.map((cell) => [
    serverLabel(cell),
    cell.figures.requestsPerSecond,
    bare && cell !== bare ? percent(cell.figures.requestsPerSecond / bare.figures.requestsPerSecond) : '—',
    cell.cpuUsPerRequest,
    bare && cell !== bare ? percent(bare.cpuUsPerRequest / Math.max(cell.cpuUsPerRequest, 1)) : '—',
    fixed(cell.figures.latencyMs.p50),
    cell.figures.non2xx + cell.figures.socketErrors,
    fixed(cell.loadAverage, 1),
  ]);
  const lines = [
    table(
      [
        'server',
        'invoke req/s',
        'req/s vs bare Hono',
        'CPU µs per invoke',
        'bare/server CPU',
        'p50 ms',
        'non-2xx + socket errors',
        'load avg',
      ],
      rows,
    ),
    '',
  ];
  if (actor && mastra) {
    const throughput = actor.figures.requestsPerSecond / Math.max(mastra.figures.requestsPerSecond, 1);
    const cpu = mastra.cpuUsPerRequest / Math.max(actor.cpuUsPerRequest, 1);
    lines.push(
      table(
        ['figure', 'measured', 'target'],
        [
          [
            `invoke req/s, actor over Mastra (both on the mock model) >= ${TARGETS.peerRatio}×`,
            times(throughput),
            verdict(throughput >= TARGETS.peerRatio),
          ],
          [`CPU per invoke, Mastra over actor >= ${TARGETS.peerRatio}×`, times(cpu), verdict(cpu >= TARGETS.peerRatio)],
        ],
      ),
      '',
    );
  }
  const offline = peer.cells.find((cell) => cell.label === ACTOR_ON_OFFLINE_MODEL);
  if (actor && offline && peer.plainModelCall) {
    const { requestBytes, cpuUsPerCall } = peer.plainModelCall;
    const modelCallUs = actor.cpuUsPerRequest - offline.cpuUsPerRequest;
    const ratio = modelCallUs / Math.max(cpuUsPerCall, 1);
    lines.push(
      table(
        ['figure', 'measured', 'target'],
        [
          [
            `the model call (CPU per invoke on the mock model less offline: ${actor.cpuUsPerRequest} − ${offline.cpuUsPerRequest} µs) over one plain \`fetch\` of ${requestBytes} bytes to the same mock (${cpuUsPerCall} µs) <= ${TARGETS.modelCallOverPlainFetch}×`,
            `${fixed(ratio, 2)}×`,
            verdict(ratio <= TARGETS.modelCallOverPlainFetch),
          ],
        ],
      ),
      '',
    );
  }
  lines.push(
    table(
      [
        'server',
        'invokes answered (2xx, warm-ups included)',
        'turns stored',
        'messages stored',
        'in flight at most',
        'stored what it answered',
      ],
      peer.persistence.map((row) => [
        row.server,
        row.answered,
        row.storedTurns,
        row.storedMessages,
        row.inFlightAtMost,
        row.consistent ? 'yes' : '**no**',
      ]),
    ),
  );
  return lines.join('\n');
}

/**
 * The markdown docs/performance.md shows for one bench run: the machine, every throughput
 * cell with its actor/bare ratio, the issue's targets, cold start, memory and the CLI.
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
      'taking bare Hono (on Node also bare Hono echoing the invoke) and the actors of one runtime in turn (all running); the figures are the medians of the rounds. ' +
      "CPU µs/req is the server process's user + system time over a round divided by the requests wrk completed.",
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
    '',
    `### Against the nearest peer (invoke at ${settings.connections} connections${results.peer === null ? '' : `, ${results.peer.runtime}; model: ${results.peer.model}`})`,
    '',
    results.peer === null ? 'skipped: not asked for (--parts)' : renderPeerComparison(results.peer),
    '',
    "### The actor's store against the storage limit (bench/turn-storage-limit.ts)",
    '',
    results.storageLimit ?? 'skipped: not asked for (--parts)',
    '',
    '### Cost as the work grows (bench/scale.ts)',
    '',
    results.scale ?? 'skipped: not asked for (--parts)',
  ];
  return lines.join('\n');
}
