import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ENVIRONMENT_VARIABLES } from '../../environment/environment-variables.js';
import { parseOnOff } from '../../environment/parse-on-off.js';

/**
 * The V8 heap sizing the Node adapter sets for the actor, so that RSS under load stays near
 * idle (docs/performance.md, "Memory"). V8's own sizing lets the new space grow to two 16 MiB
 * semi-spaces and the old space to about 4× the live heap before a mark-compact, and gives
 * neither back when idle: 1.5–1.8× the idle RSS after 10,000 invokes (SQLite, Node 20), with a
 * flat live heap; with these defaults 1.25–1.3×.
 */
export const NODE_HEAP_DEFAULTS = {
  /** The old space may grow by 20% of the live heap (at least V8's 8 MiB step) before a mark-compact. */
  heapGrowingPercent: 20,
  /** A semi-space stops growing at 8 MiB, so the new space commits at most 16 MiB (V8's own limit: 16 MiB, 32 committed). */
  maxSemiSpaceMiB: 8,
} as const;

/** The V8 heap settings in force for the actor; `undefined` where V8 (or the user's own flag) decides. */
export interface NodeHeapSettings {
  readonly heapGrowingPercent: number | undefined;
  readonly maxSemiSpaceMiB: number | undefined;
}

/** V8 flags that size the new space: with any of them on the command line the user has chosen. */
const NEW_SPACE_FLAGS = [
  '--max-semi-space-size',
  '--min-semi-space-size',
  '--semi-space-growth-factor',
  '--max-heap-size',
];
const GROWING_FLAGS = ['--heap-growing-percent'];
/** V8's own `--semi-space-growth-factor`: the new space doubles when it grows. */
const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

/** Whether any of `flags` is among the process's options (V8 reads `_` and `-` alike). */
function startedWithAny(commandLine: readonly string[], flags: readonly string[]): boolean {
  return commandLine.some((option) => {
    const name = option.split('=')[0]!.replaceAll('_', '-');
    return flags.includes(name);
  });
}

/**
 * The heap settings the actor applies: `NODE_HEAP_DEFAULTS`, except those the process was
 * started with a flag for (on the command line or in `NODE_OPTIONS`), and none when
 * `NODE_HEAP_TUNING` is off.
 * @param env the process environment
 * @param commandLine the process's options: `process.execArgv` and the words of `NODE_OPTIONS`
 */
export function nodeHeapSettings(
  env: Readonly<Record<string, string | undefined>>,
  commandLine: readonly string[],
): NodeHeapSettings {
  // Read as the typed environment reads it; a value that is no flag is left to refuse the start there.
  const tuning = ENVIRONMENT_VARIABLES.NODE_HEAP_TUNING.default;
  if ((parseOnOff(env.NODE_HEAP_TUNING ?? String(tuning)) ?? tuning) === false)
    return { heapGrowingPercent: undefined, maxSemiSpaceMiB: undefined };
  return {
    heapGrowingPercent: startedWithAny(commandLine, GROWING_FLAGS) ? undefined : NODE_HEAP_DEFAULTS.heapGrowingPercent,
    maxSemiSpaceMiB: startedWithAny(commandLine, NEW_SPACE_FLAGS) ? undefined : NODE_HEAP_DEFAULTS.maxSemiSpaceMiB,
  };
}

/** The new space's committed bytes (both semi-spaces). */
function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Gives back a new space that start-up (loading the modules) grew past `limitBytes`: one
 * last-resort collection, through V8's gc extension enabled for that one call, which shrinks the
 * new space on Node 24 (measured 32 → 1 MiB in 58 ms on the example actor) and does nothing more
 * than a full collection on Node 20, whose V8 ignores the flavor. Under the limit it costs nothing.
 */
function shrinkGrownNewSpace(limitBytes: number): void {
  if (newSpaceBytes() <= limitBytes) return;
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as (options: Record<string, string>) => void;
  setFlagsFromString('--no-expose-gc');
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * Keeps the new space at or under `maxSemiSpaceMiB` per semi-space. V8 reads
 * `--max-semi-space-size` only when the heap is created, but reads `--semi-space-growth-factor`
 * each time the new space grows: after every collection the factor is set to 1 (no growth) once
 * the new space is at the limit, and back to V8's 2 while it is under it (V8 may shrink it when
 * idle). Node reports a collection a turn or two of the event loop after it, so work that
 * allocates a lot in one turn can still grow it a step past. A new space start-up (loading the
 * modules) has already grown past the limit is shrunk first (`shrinkGrownNewSpace`).
 */
function capNewSpace(maxSemiSpaceMiB: number): void {
  const limitBytes = 2 * maxSemiSpaceMiB * 2 ** 20;
  shrinkGrownNewSpace(limitBytes);
  let factor = 0;
  const steer = function steerNewSpaceGrowth() {
    const next = newSpaceBytes() >= limitBytes ? 1 : V8_SEMI_SPACE_GROWTH_FACTOR;
    if (next === factor) return;
    factor = next;
    setFlagsFromString(`--semi-space-growth-factor=${next}`);
  };
  steer();
  new PerformanceObserver(steer).observe({ entryTypes: ['gc'] });
}

let applied: NodeHeapSettings | undefined;

/**
 * Applies the actor's V8 heap settings to this process, once (later calls return the settings
 * of the first): `--heap-growing-percent` through `v8.setFlagsFromString` (V8 reads it at every
 * mark-compact), and the new-space limit through `capNewSpace`. Does nothing under Bun or Deno.
 * @param env the process environment
 * @param commandLine the process's options (default: `process.execArgv` and `NODE_OPTIONS`)
 */
export function applyNodeHeapDefaults(
  env: Readonly<Record<string, string | undefined>> = process.env,
  commandLine: readonly string[] = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)],
): NodeHeapSettings {
  if (applied !== undefined) return applied;
  const isNode = process.versions.bun === undefined && !('Deno' in globalThis);
  applied = isNode ? nodeHeapSettings(env, commandLine) : { heapGrowingPercent: undefined, maxSemiSpaceMiB: undefined };
  if (applied.heapGrowingPercent !== undefined)
    setFlagsFromString(`--heap-growing-percent=${applied.heapGrowingPercent}`);
  if (applied.maxSemiSpaceMiB !== undefined) capNewSpace(applied.maxSemiSpaceMiB);
  return applied;
}
