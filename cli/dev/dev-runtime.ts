import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';

/** The runtimes `actorkit dev` runs an actor on. */
const DEV_RUNTIMES = ['node', 'bun'] as const;

/** A runtime `actorkit dev` runs an actor on. */
export type DevRuntime = (typeof DEV_RUNTIMES)[number];

/** The process `actorkit dev` starts in the actor's folder, and who restarts it on a change. */
export interface WatchCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** `runtime`: the runtime's own watcher restarts the actor in place (Bun); `dev`: `actorkit dev` restarts the process (Node). */
  readonly restartedBy: 'runtime' | 'dev';
  /**
   * The arguments of a warm spare (`dev` only): a process that has loaded actorkit and starts the
   * actor when a line arrives on its standard input (see `warm-start.ts`).
   */
  readonly spareArgs?: readonly string[];
}

/**
 * The command that runs the actor from its TypeScript source: Node with tsx's loader
 * (`src/main.node.ts`), restarted by `actorkit dev` on every change under `src/` — Node's own
 * `--watch-path` can miss a save that lands while it is restarting, and runs two restarts at
 * once on the two events one save makes —, or Bun's watcher (`bun --watch src/main.bun.ts`),
 * which restarts in place. A runtime that is not one of {@link DEV_RUNTIMES}, or an actor without the
 * entry file, is a `refused` error.
 * @param runtime `node` or `bun`
 * @param actorDir the actor's folder
 * @param env the environment, whose `PATH` finds `bun`
 */
export function watchCommand(
  runtime: string,
  actorDir: string,
  env: Readonly<Record<string, string | undefined>>,
): WatchCommand {
  if (!(DEV_RUNTIMES as readonly string[]).includes(runtime)) {
    throw new CliError(
      'refused',
      'bad_usage',
      `--runtime must be one of ${DEV_RUNTIMES.join(', ')}, got '${runtime}' (see \`actorkit dev --help\`)`,
    );
  }
  const entry = join('src', `main.${runtime}.ts`);
  if (!existsSync(join(actorDir, entry))) {
    throw new CliError(
      'refused',
      'no_entry',
      `${join(actorDir, entry)} does not exist: actorkit dev runs an actor rendered by \`actorkit new\``,
    );
  }
  // Loaded first into the actor: it ends with `actorkit dev` (see `exit-with-parent.ts`).
  const exitWithParent = new URL('./exit-with-parent.js', import.meta.url);
  if (runtime === 'bun')
    return {
      command: findOnPath('bun', env),
      args: ['--watch', '--no-clear-screen', '--preload', exitWithParent.pathname, entry],
      restartedBy: 'runtime',
    };
  // tsx is actorkit's own dependency: its loader is passed by URL, so the actor need not install it.
  const tsxLoader = import.meta.resolve('tsx/esm');
  const warmStart = new URL('./warm-start.js', import.meta.url).pathname;
  return {
    command: process.execPath,
    args: ['--import', exitWithParent.href, '--import', tsxLoader, entry],
    restartedBy: 'dev',
    spareArgs: ['--import', tsxLoader, warmStart, entry],
  };
}

function findOnPath(name: string, env: Readonly<Record<string, string | undefined>>): string {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new CliError(
    'failed',
    'runtime_not_found',
    `${name} is not on PATH: install it (https://bun.sh) or run with --runtime node`,
  );
}
