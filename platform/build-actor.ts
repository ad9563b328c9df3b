import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CliError } from '../cli/library.js';

/** How many output lines of a failed step its error quotes. */
const QUOTED_LINES = 20;

/**
 * Runs `npm <args>` in the actor folder, each output line passed to `progress`; a non-zero exit
 * is a `failed` error (`code`) quoting the last lines.
 */
function runNpm(
  dir: string,
  args: readonly string[],
  code: string,
  progress: (line: string) => void,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', [...args], {
      cwd: dir,
      env: { ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const take = (line: string) => {
      lines.push(line);
      if (lines.length > QUOTED_LINES) lines.shift();
      progress(line);
    };
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', take);
    child.once('error', (error) =>
      reject(new CliError('failed', code, `npm ${args.join(' ')} in ${dir} could not start: ${error.message}`)),
    );
    child.once('close', (status) => {
      if (status === 0) resolve();
      else
        reject(
          new CliError('failed', code, `npm ${args.join(' ')} in ${dir} failed (exit ${status}):\n${lines.join('\n')}`),
        );
    });
  });
}

/**
 * Installs an actor's dependencies when it has no `node_modules` yet (a folder fresh from
 * `actorkit new`): `npm install`, each output line to `progress`.
 * @param dir the actor folder
 * @param progress where npm's output lines go
 * @param env the environment npm runs with
 */
export async function installWhenMissing(
  dir: string,
  progress: (line: string) => void,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  if (!existsSync(join(dir, 'node_modules')))
    await runNpm(dir, ['install', '--no-audit', '--no-fund'], 'install_failed', progress, env);
}

/**
 * Builds an actor as its image would be built: `npm run build`, which writes
 * `dist/main.node.js`; each output line to `progress`.
 * @param dir the actor folder
 * @param progress where npm's output lines go
 * @param env the environment npm runs with
 * @returns the entry the replicas run
 */
export async function buildActor(
  dir: string,
  progress: (line: string) => void,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  await runNpm(dir, ['run', 'build'], 'build_failed', progress, env);
  const entry = join(dir, 'dist', 'main.node.js');
  if (!existsSync(entry))
    throw new CliError(
      'failed',
      'build_failed',
      `npm run build in ${dir} wrote no dist/main.node.js: actorkit platform runs actors rendered by \`actorkit new\``,
    );
  return entry;
}
