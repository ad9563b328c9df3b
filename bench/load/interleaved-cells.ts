import { loadavg } from 'node:os';
import type { Logger } from '../../src/log/logger.js';
import { type SpawnedActor, spawnActor, waitUntilReady, within } from '../../test/contract/spawn-actor.js';
import {
  type BenchRuntime,
  type BenchServer,
  type BenchStack,
  type BenchStore,
  serverLabel,
} from '../bench-servers.js';
import { median } from '../measure/median.js';
import { readCpuMs, readRssBytes } from '../measure/process-usage.js';
import { type LoadFigures, type LoadRoute, runWrk } from './run-wrk.js';

/** One load cell: a route on one server at fixed connections for a fixed time. */
export interface ThroughputCell {
  readonly runtime: BenchRuntime;
  readonly stack: BenchStack;
  readonly store: BenchStore | null;
  /** The server's own label, where `serverLabel` would not tell it apart (the actor on the mock model). */
  readonly label?: string;
  readonly route: LoadRoute;
  readonly connections: number;
  /** Seconds of each round. */
  readonly durationS: number;
  /** Rounds measured, interleaved with the other servers of the runtime; the figures are their medians (counts: sums). */
  readonly rounds: number;
  /** 1-minute load average when the rounds started (median). */
  readonly loadAverage: number;
  /** Server CPU time (user + system) per request, in µs: steadier than req/s when other work shares the machine. */
  readonly cpuUsPerRequest: number;
  readonly figures: LoadFigures;
}

/** How long and how often each cell is loaded. */
export interface CellSettings {
  /** Seconds of each round. */
  readonly durationS: number;
  /** Rounds per cell, the servers taken in turn. */
  readonly rounds: number;
  /** Seconds of load before the first round of a route, per server. */
  readonly warmupS: number;
  /** Connections of the loaded cells (the invoke is also measured at one connection). */
  readonly connections: number;
}

interface Round {
  readonly figures: LoadFigures;
  readonly cpuUsPerRequest: number;
  readonly loadAverage: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** SIGTERM, wait for the exit (a clean SQLite close keeps the next start honest), then clean up. */
export async function stopServer(actor: SpawnedActor): Promise<void> {
  actor.child.kill('SIGTERM');
  await within(actor.exited, 15_000, 'exit after SIGTERM').catch(() => undefined);
  await actor.dispose();
}

/** One wrk run on one server, with the server's CPU time over it. */
async function loadRound(
  server: BenchServer,
  actor: SpawnedActor,
  route: LoadRoute,
  connections: number,
  durationS: number,
): Promise<Round> {
  const loadAverage = loadavg()[0]!;
  const cpuBefore = await readCpuMs(actor.child.pid!);
  const figures = await runWrk({
    baseUrl: actor.baseUrl,
    route,
    connections,
    durationS,
    invokeShape: server.invokeShape,
    sessions: server.sessions,
  });
  const cpuUsPerRequest = (((await readCpuMs(actor.child.pid!)) - cpuBefore) * 1000) / Math.max(figures.requests, 1);
  return { figures, cpuUsPerRequest, loadAverage };
}

/** The medians of several rounds of one cell (sums for counts). */
function medianCell(
  server: BenchServer,
  route: LoadRoute,
  connections: number,
  settings: CellSettings,
  rounds: readonly Round[],
): ThroughputCell {
  const of = (pick: (round: Round) => number) => median(rounds.map(pick));
  const sum = (pick: (round: Round) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  return {
    runtime: server.runtime,
    stack: server.stack,
    store: server.store,
    ...(server.label === undefined ? {} : { label: server.label }),
    route,
    connections,
    durationS: settings.durationS,
    rounds: rounds.length,
    loadAverage: of((round) => round.loadAverage),
    cpuUsPerRequest: Math.round(of((round) => round.cpuUsPerRequest)),
    figures: {
      requests: sum((round) => round.figures.requests),
      requestsPerSecond: Math.round(of((round) => round.figures.requestsPerSecond)),
      latencyMs: {
        mean: of((round) => round.figures.latencyMs.mean),
        p50: of((round) => round.figures.latencyMs.p50),
        p90: of((round) => round.figures.latencyMs.p90),
        p99: of((round) => round.figures.latencyMs.p99),
        max: Math.max(...rounds.map((round) => round.figures.latencyMs.max)),
      },
      non2xx: sum((round) => round.figures.non2xx),
      socketErrors: sum((round) => round.figures.socketErrors),
    },
  };
}

/** A cell of `measureThroughput`: the route, its connections, and whether a warm-up precedes its rounds. */
export type CellPlan = readonly [route: LoadRoute, connections: number, warmup: boolean];

/** What `measureThroughput` measured. */
export interface MeasuredThroughput {
  /** The cells, in server order per route. */
  readonly cells: ThroughputCell[];
  /** Each server's RSS idle after start, in MiB. */
  readonly idleRssMiB: Map<BenchServer, number>;
  /** Each server's invokes answered with 2xx over every wrk run, warm-ups included: what it must have stored. */
  readonly invokesAnswered: Map<BenchServer, number>;
  /** Each server's wrk runs of the invoke: each may leave up to its connection count in flight when it stops. */
  readonly invokeRuns: Map<BenchServer, { readonly runs: number; readonly connections: number }>;
}

/**
 * Loads several servers side by side: starts them all, then measures `GET /health` and
 * `POST /agent/invoke` at `settings.connections`, and the invoke at one connection (each
 * server on its `routes` only), each cell
 * in `settings.rounds` rounds that take the servers in turn (in a new order each round), so
 * whatever else loads the machine falls on all of them alike. Figures are the rounds' medians.
 * @param servers the servers, started in this order
 * @param settings durations, rounds and connections
 * @param log where each measured cell is logged (`bench_cell_measured`)
 * @param label how a server is named in the log
 * @param plan the cells, in order (default: `/health` and the invoke at `settings.connections`, the invoke at 1)
 */
export async function measureThroughput(
  servers: readonly BenchServer[],
  settings: CellSettings,
  log: Logger<'bench_cell_measured'>,
  label: (server: BenchServer) => string = serverLabel,
  plan: readonly CellPlan[] = [
    ['health', settings.connections, true],
    ['invoke', settings.connections, true],
    ['invoke', 1, false],
  ],
): Promise<MeasuredThroughput> {
  const actors = new Map<BenchServer, SpawnedActor>();
  try {
    for (const server of servers) {
      const actor = await spawnActor(server.process, { ...server.env }, { drainAfterListening: true });
      actors.set(server, actor);
      await waitUntilReady(actor);
    }
    await sleep(1_000);
    const idleRssMiB = new Map<BenchServer, number>();
    for (const [server, actor] of actors) idleRssMiB.set(server, mib(await readRssBytes(actor.child.pid!)));
    const cells: ThroughputCell[] = [];
    const invokesAnswered = new Map<BenchServer, number>(servers.map((server) => [server, 0]));
    const invokeRuns = new Map<BenchServer, { runs: number; connections: number }>(
      servers.map((server) => [server, { runs: 0, connections: 0 }]),
    );
    const noteInvokes = (server: BenchServer, route: LoadRoute, connections: number, figures: LoadFigures) => {
      if (route !== 'invoke') return;
      invokesAnswered.set(server, invokesAnswered.get(server)! + figures.requests - figures.non2xx);
      const runs = invokeRuns.get(server)!;
      invokeRuns.set(server, { runs: runs.runs + 1, connections: Math.max(runs.connections, connections) });
    };
    for (const [route, connections, warmup] of plan) {
      const loaded = servers.filter((server) => server.routes === undefined || server.routes.includes(route));
      if (warmup) {
        for (const server of loaded) {
          noteInvokes(
            server,
            route,
            connections,
            await runWrk({
              baseUrl: actors.get(server)!.baseUrl,
              route,
              connections,
              durationS: settings.warmupS,
              invokeShape: server.invokeShape,
              sessions: server.sessions,
            }),
          );
        }
      }
      const rounds = new Map<BenchServer, Round[]>(loaded.map((server) => [server, []]));
      for (let round = 0; round < settings.rounds; round += 1) {
        const order = loaded.map((_, index) => loaded[(index + round) % loaded.length]!);
        for (const server of order) {
          const measured = await loadRound(server, actors.get(server)!, route, connections, settings.durationS);
          noteInvokes(server, route, connections, measured.figures);
          rounds.get(server)!.push(measured);
        }
      }
      for (const server of loaded) {
        const cell = medianCell(server, route, connections, settings, rounds.get(server)!);
        log.info('bench_cell_measured', {
          server: label(server),
          route,
          connections,
          req_s: cell.figures.requestsPerSecond,
          p50_ms: cell.figures.latencyMs.p50,
          p99_ms: cell.figures.latencyMs.p99,
          cpu_us_per_request: cell.cpuUsPerRequest,
          failures: cell.figures.non2xx + cell.figures.socketErrors,
        });
        cells.push(cell);
      }
    }
    return { cells, idleRssMiB, invokesAnswered, invokeRuns };
  } finally {
    for (const actor of actors.values()) await stopServer(actor);
  }
}
