import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import type { Logger } from '../../src/log/logger.js';
import { checkRuntime, RUNTIMES_UNDER_TEST, type RuntimeProcess } from '../../test/contract/runtimes-under-test.js';
import { spawnActor, waitUntilReady } from '../../test/contract/spawn-actor.js';
import type { BenchServer } from '../bench-servers.js';
import { type CellSettings, measureThroughput, stopServer, type ThroughputCell } from '../load/interleaved-cells.js';
import { median } from '../measure/median.js';

/** What one server of the peer comparison stored against what it answered. */
export interface PeerPersistence {
  readonly server: string;
  /** Invokes answered with 2xx over every wrk run, warm-ups included. */
  readonly answered: number;
  /**
   * Turns found whole in its store after it stopped: the actor's successful invocations counted
   * in `/stats`' counters, each with its two messages in the history (or fewer when they differ);
   * Mastra's answers in its memory.
   */
  readonly storedTurns: number;
  /** Messages found in its store (the actor's history; Mastra's memory, a turn cut off in flight may leave only the user's). */
  readonly storedMessages: number;
  /** Invokes wrk may have left in flight when its runs stopped (runs × connections): stored but not counted as answered. */
  readonly inFlightAtMost: number;
  /** True when answered ≤ stored turns ≤ answered + in flight. */
  readonly consistent: boolean;
}

/** What one model call costs its caller when written plainly, for comparison with the actor's (issue 43). */
export interface PlainModelCall {
  /** Bytes of the request body the actor last sent the mock model, which the plain call sends too. */
  readonly requestBytes: number;
  /** CPU µs of one plain `fetch` of a chat completion of that size, answer parsed, at the cells' connections in flight (median of the rounds). */
  readonly cpuUsPerCall: number;
}

/** The peer comparison of one bench run: the invoke at the loaded connection count on Node 24. */
export interface PeerComparison {
  readonly runtime: string;
  /** The model both the actor and the peer called. */
  readonly model: string;
  readonly cells: readonly ThroughputCell[];
  readonly persistence: readonly PeerPersistence[];
  /** The plain call the actor's own model call is held to; null when the actor never called the mock. */
  readonly plainModelCall: PlainModelCall | null;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** The Mastra server's entry; its dependencies are installed in its folder by `bench/peers/ensure-peers.mjs`. */
const MASTRA_ENTRY = here('./mastra/server.mjs');
/** The mock OpenAI-compatible model server both sides call. */
export const MOCK_MODEL_ENTRY = here('./mock-model-server.mjs');
const BARE_NODE_ENTRY = here('../bare-hono/main.node.mjs');
/** The label of the actor answering through the mock model. */
export const ACTOR_ON_MOCK_MODEL = 'node24 actor (sqlite, mock model)';
/** The label of the same actor on its offline model: the mock-model actor's CPU over this one's is its model call. */
export const ACTOR_ON_OFFLINE_MODEL = 'node24 actor (sqlite, offline model)';
/** The model name the actor asks the mock for, so the mock tells its request size apart from the peer's. */
const ACTOR_MODEL_NAME = 'mock-model-actor';
const PLAIN_MODEL_CALL_ENTRY = here('./plain-model-call.mjs');

function node24(): RuntimeProcess {
  const found = RUNTIMES_UNDER_TEST.find((candidate) => candidate.name === 'node24');
  if (found === undefined) throw new Error('test/contract/runtimes-under-test.ts lists no node24');
  return found;
}

/**
 * The CPU of a plain `fetch` of the size the actor last sent the mock (bench/peers/plain-model-call.mjs,
 * on the actor's runtime, at the cells' connections), the median of `settings.rounds` runs.
 */
async function measurePlainModelCall(
  runtime: RuntimeProcess,
  modelUrl: string,
  settings: CellSettings,
): Promise<PlainModelCall | null> {
  const ready = (await (await fetch(new URL('/ready', modelUrl))).json()) as {
    lastRequestBytes: Record<string, number>;
  };
  const requestBytes = ready.lastRequestBytes[ACTOR_MODEL_NAME];
  if (requestBytes === undefined) return null;
  const rounds = Array.from({ length: Math.max(1, settings.rounds) }, () => {
    const printed = execFileSync(
      runtime.command,
      [PLAIN_MODEL_CALL_ENTRY, modelUrl, String(requestBytes), '4000', String(settings.connections)],
      { encoding: 'utf8' },
    );
    return (JSON.parse(printed) as { cpuUsPerCall: number }).cpuUsPerCall;
  });
  return { requestBytes, cpuUsPerCall: median(rounds) };
}

/** Counts rows of one SQLite file after its server stopped (`query` answers one row with `n`). */
function countRows(file: string, query: string): number {
  const database = new Database(file, { readonly: true });
  try {
    const row = database.prepare(query).get() as { n: number | bigint | null } | undefined;
    return Number(row?.n ?? 0);
  } finally {
    database.close();
  }
}

/**
 * Measures the actor against its nearest real peer in one run, on test/runtimes' Node 24
 * (Mastra's engines ask for Node >= 22.13): bare Hono, the example actor on an SQLite file with
 * its offline model, the same actor answering through the mock model, and the Mastra agent
 * server with LibSQL memory answering through the same mock model (an OpenAI-compatible server
 * on loopback, bench/peers/mock-model-server.mjs, whose CPU counts for neither). Interleaved
 * rounds of the invoke at `settings.connections`; then each server's store is read after it
 * stopped, to check it stored every turn it answered.
 * @param settings durations, rounds and connections of the cells
 * @param log where each measured cell is logged
 */
export async function measurePeerComparison(
  settings: CellSettings,
  log: Logger<'bench_cell_measured'>,
): Promise<PeerComparison> {
  const runtime = node24();
  checkRuntime(runtime);
  const root = mkdtempSync(join(tmpdir(), 'actorkit-bench-peer-'));
  const mockModel = await spawnActor(
    { name: 'mock-model', command: process.execPath, args: [MOCK_MODEL_ENTRY] },
    {},
    { drainAfterListening: true },
  );
  try {
    await waitUntilReady(mockModel);
    const modelUrl = `${mockModel.baseUrl}/v1`;
    const dir = (name: string) => {
      const path = join(root, name);
      mkdirSync(path, { recursive: true });
      return path;
    };
    const actorEnv = (name: string) => ({ DATABASE_URL: '', DATA_DIR: dir(name) });
    const servers: BenchServer[] = [
      {
        runtime: 'node',
        stack: 'bare',
        store: null,
        label: 'node24 bare Hono',
        process: { name: 'bare-node24', command: runtime.command, args: [BARE_NODE_ENTRY] },
        env: {},
      },
      {
        runtime: 'node',
        stack: 'actor',
        store: 'sqlite',
        label: ACTOR_ON_OFFLINE_MODEL,
        process: runtime,
        env: actorEnv('actor-offline'),
      },
      {
        runtime: 'node',
        stack: 'actor',
        store: 'sqlite',
        label: ACTOR_ON_MOCK_MODEL,
        process: runtime,
        env: { ...actorEnv('actor-mock'), LLM_MODEL: ACTOR_MODEL_NAME, LLM_BASE_URL: modelUrl },
      },
      {
        runtime: 'node',
        stack: 'peer',
        store: null,
        label: 'node24 Mastra agent (LibSQL memory, mock model)',
        process: { name: 'mastra', command: runtime.command, args: [MASTRA_ENTRY] },
        env: { DATA_DIR: dir('mastra'), MOCK_MODEL_URL: modelUrl },
        invokeShape: 'mastra',
      },
    ];
    const measured = await measureThroughput(servers, settings, log, (server) => server.label ?? server.process.name, [
      ['invoke', settings.connections, true],
    ]);
    const persistence = servers
      .filter((server) => server.stack !== 'bare')
      .map((server): PeerPersistence => {
        const file =
          server.stack === 'peer' ? join(dir('mastra'), 'mastra.db') : join(server.env.DATA_DIR!, 'actor.db');
        const storedMessages = countRows(
          file,
          server.stack === 'peer'
            ? 'select count(*) as n from mastra_messages'
            : 'select count(*) as n from actorkit_chat_messages',
        );
        const storedTurns = countRows(
          file,
          server.stack === 'peer'
            ? "select count(*) as n from mastra_messages where role = 'user'"
            : 'select sum(invocations) as n from actorkit_stats_counters',
        );
        const answered = measured.invokesAnswered.get(server)!;
        const runs = measured.invokeRuns.get(server)!;
        const inFlightAtMost = runs.runs * runs.connections;
        return {
          server: server.label!,
          answered,
          storedTurns,
          storedMessages,
          inFlightAtMost,
          consistent: storedTurns >= answered && storedTurns <= answered + inFlightAtMost,
        };
      });
    return {
      runtime: `Node ${checkRuntime(runtime)}`,
      model: 'bench/peers/mock-model-server.mjs (OpenAI-compatible, loopback)',
      cells: measured.cells,
      persistence,
      plainModelCall: await measurePlainModelCall(runtime, modelUrl, settings),
    };
  } finally {
    await stopServer(mockModel);
    rmSync(root, { recursive: true, force: true });
  }
}
