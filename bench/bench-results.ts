import type { BenchRuntime, BenchStore } from './bench-servers.js';
import type { CliTiming } from './measure/cli-timing.js';
import type { ThroughputCell } from './load/interleaved-cells.js';
import type { PeerComparison } from './peers/peer-comparison.js';

export type { ThroughputCell } from './load/interleaved-cells.js';

/** The machine and software a bench run measured on. */
export interface BenchMachine {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly commit: string;
  /** True when the working tree had uncommitted changes. */
  readonly dirty: boolean;
  readonly cpu: string;
  readonly cpus: number;
  readonly memoryGiB: number;
  readonly versions: { readonly node: string; readonly bun: string; readonly wrk: string };
  /** 1-minute load average before and after the run: other work on the machine skews every figure. */
  readonly loadAverage: { readonly before: number; readonly after: number };
}

/** Process start to the first 200 from `/ready`, over several starts on an already migrated database. */
export interface ColdStartFigures {
  readonly runtime: BenchRuntime;
  readonly store: BenchStore;
  readonly runsMs: readonly number[];
  readonly medianMs: number;
}

/** Resident memory of a server idle after start, and of the actor after a fixed number of invokes. */
export interface MemoryFigures {
  readonly runtime: BenchRuntime;
  readonly stack: 'actor' | 'bare';
  readonly store: BenchStore | null;
  readonly idleRssMiB: number;
  /** Null for bare Hono, which is only measured idle. */
  readonly afterInvokes: {
    readonly invokes: number;
    readonly rssMiB: number;
    readonly ok: number;
    /** How much `/stats` invocations grew: equals `ok` when no invoke was lost or counted twice. */
    readonly statsDelta: number;
  } | null;
}

/** Everything one `npm run bench` measured, as written to bench/results/<timestamp>.json. */
export interface BenchResults {
  readonly machine: BenchMachine;
  readonly settings: {
    readonly durationS: number;
    readonly rounds: number;
    readonly warmupS: number;
    readonly connections: number;
    readonly coldStartRuns: number;
    readonly memoryInvokes: number;
  };
  readonly skipped: readonly string[];
  readonly throughput: readonly ThroughputCell[];
  readonly coldStart: readonly ColdStartFigures[];
  readonly memory: readonly MemoryFigures[];
  readonly cli: CliTiming;
  /** The actor against the nearest peer (Mastra), on Node 24; null when not asked for (`--parts`). */
  readonly peer: PeerComparison | null;
  /** bench/turn-storage-limit.ts's table: the actor's store against the standalone storage limit; null when not asked for. */
  readonly storageLimit: string | null;
  /** bench/scale.ts's table: CPU per invoke as history and sessions grow; null when not asked for. */
  readonly scale: string | null;
}
