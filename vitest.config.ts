import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The platform's replica suites (`test/platform/*.postgres.test.ts`) run replicas on one real
 * PostgreSQL and cannot run without `TEST_DATABASE_URL`. Locally they are left out with a visible
 * notice, as the store suites skip theirs; under CI they run and fail, naming the variable.
 */
const POSTGRES_PLATFORM_SUITES = 'test/platform/**/*.postgres.test.ts';
const withoutPostgres = !process.env.TEST_DATABASE_URL?.trim() && !process.env.CI;
if (withoutPostgres && process.env.VITEST)
  console.warn(`\n[platform tests] TEST_DATABASE_URL is unset: ${POSTGRES_PLATFORM_SUITES} NOT RUN (try TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)\n`);

/**
 * One test worker per core. vitest's own default leaves one core to itself, which on a 2-core CI
 * machine means a single worker and every file in turn; most suites here spend their time waiting
 * on child processes (actors, runtimes, npm, container engines, chromium), so a second worker
 * fills that core. `VITEST_MAX_WORKERS` or `--maxWorkers` still overrides it.
 */
const TEST_WORKERS = availableParallelism();

export default defineConfig({
  resolve: {
    alias: [
      { find: /^actorkit$/, replacement: source('./src/index.ts') },
      { find: /^actorkit\/sdk$/, replacement: source('./src/sdk/index.ts') },
      { find: /^actorkit\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^actorkit\/node$/, replacement: source('./src/adapter/node/index.ts') },
      { find: /^actorkit\/cli$/, replacement: source('./cli/index.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    exclude: withoutPostgres ? [...configDefaults.exclude, POSTGRES_PLATFORM_SUITES] : configDefaults.exclude,
    maxWorkers: TEST_WORKERS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
