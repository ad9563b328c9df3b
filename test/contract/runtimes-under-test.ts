import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SqliteDriverName } from '../../src/store/sqlite-driver.js';
import { INSTALLED_RUNTIMES, runtimeVersion } from '../runtimes/runtime-binaries.mjs';

/** A command that starts a server process (an actor, or a bench's bare server). */
export interface RuntimeProcess {
  /** `node-system`, `node24`, `bun` or `deno` for the runtimes under test. */
  readonly name: string;
  readonly command: string;
  /** Arguments that run the built entry for this runtime. */
  readonly args: readonly string[];
}

/** One runtime the contract suite runs the example actor under. */
export interface RuntimeUnderTest extends RuntimeProcess {
  /** The SQLite driver the store must choose on this runtime. */
  readonly sqliteDriver: SqliteDriverName;
}

const exampleEntry = (runtime: 'node' | 'bun' | 'deno') =>
  fileURLToPath(new URL(`../../dist/examples/hello-actor/src/main.${runtime}.js`, import.meta.url));

/**
 * A tsconfig without the repository's `paths`. Bun applies the `paths` of the tsconfig.json it
 * finds above a file at run time, so the built example's `import 'actorkit/bun'` loaded
 * `src/adapter/bun/index.ts` instead of the built entry a user's actor loads (the bundle of
 * scripts/bundle-entries.mjs); with this one Bun resolves the package as Node and Deno do.
 */
const BUILT_TSCONFIG = fileURLToPath(new URL('../runtimes/tsconfig.built.json', import.meta.url));

const installed = (name: string): string => {
  const runtime = INSTALLED_RUNTIMES.find((candidate) => candidate.name === name);
  if (runtime === undefined) throw new Error(`test/runtimes/runtime-binaries.mjs lists no ${name}`);
  return runtime.path;
};

/**
 * The runtimes of the contract suite: the Node running vitest (the machine's Node 20), and
 * Node 24, Bun and Deno from test/runtimes. Deno runs the built JavaScript with every
 * permission, resolving npm packages from the repository's node_modules (`package.json`
 * found next to it), and writes no lockfile.
 */
export const RUNTIMES_UNDER_TEST: readonly RuntimeUnderTest[] = [
  { name: 'node-system', command: process.execPath, args: [exampleEntry('node')], sqliteDriver: 'libsql' },
  { name: 'node24', command: installed('node24'), args: [exampleEntry('node')], sqliteDriver: 'node:sqlite' },
  {
    name: 'bun',
    command: installed('bun'),
    args: ['--tsconfig-override', BUILT_TSCONFIG, exampleEntry('bun')],
    sqliteDriver: 'bun:sqlite',
  },
  {
    name: 'deno',
    command: installed('deno'),
    args: ['run', '--allow-all', '--no-lock', '--unstable-no-legacy-abort', exampleEntry('deno')],
    sqliteDriver: 'libsql',
  },
];

/**
 * Checks that the runtime and the built entry exist, and returns the runtime's version.
 * Throws with the command that fixes it otherwise: a missing runtime is a failure, not a skip.
 */
export function checkRuntime(runtime: RuntimeProcess): string {
  const entry = runtime.args.at(-1) ?? '';
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first (npm test does)`);
  const version = runtimeVersion(runtime.command);
  if (version === null)
    throw new Error(`${runtime.command} does not run: run \`node test/runtimes/ensure-runtimes.mjs\` (npm test does)`);
  return version;
}
