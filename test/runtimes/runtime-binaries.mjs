// Where the runtimes of the contract suite live, and how to ask each for its version.
// Plain JavaScript so `ensure-runtimes.mjs` runs before anything is built; types in runtime-binaries.d.mts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This folder: its own package.json installs Node 24, Bun and Deno from npm. */
export const RUNTIMES_DIR = dirname(fileURLToPath(import.meta.url));

const pinned = JSON.parse(readFileSync(join(RUNTIMES_DIR, 'package.json'), 'utf8')).dependencies;
const bin = (name) => join(RUNTIMES_DIR, 'node_modules', '.bin', name);

/** The runtimes installed here: absolute binary path and the version package.json pins. */
export const INSTALLED_RUNTIMES = [
  { name: 'node24', package: 'node', path: bin('node'), pinned: pinned.node },
  { name: 'bun', package: 'bun', path: bin('bun'), pinned: pinned.bun },
  { name: 'deno', package: 'deno', path: bin('deno'), pinned: pinned.deno },
];

/** Runs `<binary> --version` and returns the bare version (`24.21.0`), or null when the binary does not run. */
export function runtimeVersion(path) {
  try {
    const output = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return /(\d+\.\d+\.\d+)/.exec(output)?.[1] ?? null;
  } catch {
    return null;
  }
}
