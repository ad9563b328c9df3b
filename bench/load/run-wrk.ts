import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { INVOKE_PATH } from '../../src/features/invoke/invoke-route.js';

const run = promisify(execFile);
const CELL_SCRIPT = fileURLToPath(new URL('./wrk-cell.lua', import.meta.url));

/** What one load cell sends: `health` is `GET /health`, `invoke` a chat request per call to `POST /agent/invoke`. */
export type LoadRoute = 'health' | 'invoke';

/**
 * How a server takes the invoke: `actor` is the actor's `POST /agent/invoke` body;
 * `actor-stream` the same body asking for the streamed answer (`"stream": true`, an SSE
 * stream read to its end); `mastra` the same turn as Mastra's `POST /api/agents/bench/generate`
 * (the peer's agent is `bench`).
 */
export type InvokeShape = 'actor' | 'actor-stream' | 'mastra';

/** The path each invoke shape is sent to, and the shape's name in bench/load/wrk-cell.lua. */
const INVOKE_SHAPES: Record<InvokeShape, { readonly path: string; readonly script: string }> = {
  actor: { path: INVOKE_PATH, script: 'invoke' },
  'actor-stream': { path: INVOKE_PATH, script: 'invoke-stream' },
  mastra: { path: '/api/agents/bench/generate', script: 'mastra' },
};

/** One bounded load run against a listening server. */
export interface LoadCell {
  readonly baseUrl: string;
  readonly route: LoadRoute;
  /** Open keep-alive connections, each with one request outstanding. */
  readonly connections: number;
  readonly durationS: number;
  /** How the server takes the invoke (default `actor`). */
  readonly invokeShape?: InvokeShape;
  /** Sessions the invokes are spread over, taken in turn (default 200). */
  readonly sessions?: number;
}

/** The figures of one load run. */
export interface LoadFigures {
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** Latency percentiles in milliseconds, as wrk measured them. */
  readonly latencyMs: {
    readonly mean: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  };
  /** Responses outside 2xx/3xx. */
  readonly non2xx: number;
  /** Socket-level failures: connect, read, write, time-out. */
  readonly socketErrors: number;
}

interface WrkResult {
  requests: number;
  duration_us: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latency_us: { mean: number; p50: number; p90: number; p99: number; max: number };
}

const ms = (us: number) => Math.round(us) / 1000;

/** The installed wrk's version line, or null when `wrk` is not on the PATH (`apt-get install -y wrk`). */
export async function wrkVersion(): Promise<string | null> {
  // `wrk -v` prints its banner and exits 1; a missing wrk rejects with ENOENT and no output.
  const { stdout } = await run('wrk', ['-v']).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return /wrk \S+/.exec(stdout)?.[0] ?? null;
}

/**
 * Runs wrk (one thread, fixed connections, fixed duration) on one route and returns its
 * figures. wrk runs in its own process on loopback, so the server under test shares the
 * machine but not its event loop with the load generator.
 * @param cell what to load and for how long
 */
export async function runWrk(cell: LoadCell): Promise<LoadFigures> {
  const shape = cell.invokeShape ?? 'actor';
  const path = cell.route === 'health' ? '/health' : INVOKE_SHAPES[shape].path;
  const args = [
    '-t1',
    `-c${cell.connections}`,
    `-d${cell.durationS}s`,
    '--timeout',
    '10s',
    '-s',
    CELL_SCRIPT,
    `${cell.baseUrl}${path}`,
  ];
  if (cell.route === 'invoke') args.push('--', INVOKE_SHAPES[shape].script, String(cell.sessions ?? 200));
  const { stdout } = await run('wrk', args, { timeout: (cell.durationS + 30) * 1000, maxBuffer: 1 << 20 });
  const line = stdout.split('\n').find((candidate) => candidate.startsWith('WRK_RESULT '));
  if (line === undefined) throw new Error(`wrk printed no WRK_RESULT line:\n${stdout}`);
  const result = JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult;
  const { connect, read, write, status, timeout } = result.errors;
  return {
    requests: result.requests,
    requestsPerSecond: Math.round((result.requests / result.duration_us) * 1e6),
    latencyMs: {
      mean: ms(result.latency_us.mean),
      p50: ms(result.latency_us.p50),
      p90: ms(result.latency_us.p90),
      p99: ms(result.latency_us.p99),
      max: ms(result.latency_us.max),
    },
    non2xx: status,
    socketErrors: connect + read + write + timeout,
  };
}
