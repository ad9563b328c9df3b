import { readdirSync, readFileSync } from 'node:fs';
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
  console.warn(
    `\n[platform tests] TEST_DATABASE_URL is unset: ${POSTGRES_PLATFORM_SUITES} NOT RUN (try TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)\n`,
  );

/**
 * One test worker per core. vitest's own default leaves one core to itself, which on a 2-core CI
 * machine means a single worker and every file in turn; most suites here spend their time waiting
 * on child processes (actors, runtimes, npm, container engines, chromium), so a second worker
 * fills that core. `VITEST_MAX_WORKERS` or `--maxWorkers` still overrides it.
 */
const TEST_WORKERS = availableParallelism();

/**
 * Files whose assertions hold only when nothing else loads the machine, run after the others, one
 * at a time. The platform scenario kills a replica under load and expects every refused chat to
 * be the dead replica's 502; beside another test file the survivor's readiness probe (1 s) timed
 * out, so some chats got 503 `no_ready_replica` (2 of 2 runs with two workers; alone it passes).
 */
const RUN_ALONE = ['test/platform/scenario.postgres.test.ts'];
/**
 * The in-process unit files beside the code: they share one module graph per worker (no
 * isolation), which takes about a second of imports off each (measured: 20 files of src/,
 * 26.2 s → 11.0 s). Left out, found by reading them: the files that replace a module (`vi.mock`)
 * or the clock (`vi.useFakeTimers`), which would also catch the timers of modules other files left
 * running in the same worker.
 */
const UNIT_FOLDERS = ['src', 'platform'];
const UNIT_FILES = UNIT_FOLDERS.map((folder) => `${folder}/**/*.test.ts`);
const ISOLATED_UNIT_FILES = UNIT_FOLDERS.flatMap((folder) =>
  readdirSync(source(`./${folder}`), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `${folder}/${file}`)
    .filter((file) => /\bvi\.(mock|doMock|useFakeTimers)\(/.test(readFileSync(source(`./${file}`), 'utf8'))),
);
/** Every other file, each in a module graph of its own: most start processes, servers or engines. */
const SUITE_FILES = ['cli/**/*.test.ts', 'test/**/*.test.ts', 'examples/*/test/**/*.test.ts', ...ISOLATED_UNIT_FILES];
const EXCLUDE = withoutPostgres ? [...configDefaults.exclude, POSTGRES_PLATFORM_SUITES] : configDefaults.exclude;

export default defineConfig({
  resolve: {
    alias: [
      { find: /^actorkit$/, replacement: source('./src/index.ts') },
      { find: /^actorkit\/sdk$/, replacement: source('./src/sdk/index.ts') },
      { find: /^actorkit\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^actorkit\/http$/, replacement: source('./src/http/index.ts') },
      { find: /^actorkit\/node$/, replacement: source('./src/adapter/node/index.ts') },
      { find: /^actorkit\/cli$/, replacement: source('./cli/index.ts') },
      { find: /^actorkit\/cli\/library$/, replacement: source('./cli/library.ts') },
      { find: /^actorkit\/platform$/, replacement: source('./platform/index.ts') },
    ],
  },
  test: {
    maxWorkers: TEST_WORKERS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'units', include: UNIT_FILES, exclude: [...EXCLUDE, ...ISOLATED_UNIT_FILES], isolate: false },
      },
      { extends: true, test: { name: 'suites', include: SUITE_FILES, exclude: [...EXCLUDE, ...RUN_ALONE] } },
      {
        extends: true,
        test: { name: 'alone', include: RUN_ALONE, exclude: EXCLUDE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
