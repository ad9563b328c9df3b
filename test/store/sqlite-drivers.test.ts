import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { INSTALLED_RUNTIMES } from '../runtimes/runtime-binaries.mjs';
import { EXPECTED_SQLITE_DRIVER_VARIABLE } from './expected-sqlite-driver.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const vitestEntry = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

/** The runtimes whose own SQLite driver the store uses; the machine's Node runs the same files on libSQL directly. */
const DRIVERS = [
  { runtime: 'node24', driver: 'node:sqlite' },
  { runtime: 'bun', driver: 'bun:sqlite' },
] as const;

// The store contract, the SQLite file tests and the full disk, run by vitest under each runtime, on its driver.
describe('the SQLite store on every driver', () => {
  for (const { runtime, driver } of DRIVERS) {
    it(`passes the store contract and the full-disk test under ${runtime} on ${driver}`, async () => {
      const binary = INSTALLED_RUNTIMES.find((candidate) => candidate.name === runtime)?.path;
      if (binary === undefined)
        throw new Error(`test/runtimes lists no ${runtime}: run \`node test/runtimes/ensure-runtimes.mjs\``);
      const run = await promisify(execFile)(
        binary,
        [vitestEntry, 'run', 'test/store/sqlite-store.test.ts', 'test/reliability/disk-full.test.ts'],
        {
          cwd: repositoryRoot,
          env: { ...process.env, [EXPECTED_SQLITE_DRIVER_VARIABLE]: driver, NO_COLOR: '1', FORCE_COLOR: '0' },
          maxBuffer: 16 * 2 ** 20,
        },
      ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`${runtime} vitest failed:\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`);
      });
      expect(run.stdout).toMatch(/Tests\s+\d+ passed/);
      expect(run.stdout).not.toMatch(/failed/);
    }, 240_000);
  }
});
