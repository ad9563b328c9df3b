import { execFile } from 'node:child_process';
import { CliError } from '../cli-error.js';

/**
 * Runs git with an argument array (never through a shell) and returns its trimmed standard
 * output; a non-zero exit, or a run stopped at `timeoutMs`, becomes a `failed` {@link CliError}
 * with code `git_failed`.
 * @param args git's arguments, e.g. `['-C', dir, 'rev-parse', 'HEAD']`.
 * @param env the environment git runs with; prompts for credentials are switched off.
 * @param timeoutMs stop git after this long (default: no limit); its HTTP transfers also give up
 * after as many seconds below 1 KiB/s (so helpers such as git-remote-https stop with it).
 */
export function git(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 0,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        env: { ...env, GIT_TERMINAL_PROMPT: '0', ...slowTransferLimit(timeoutMs) },
        maxBuffer: 16 * 1024 * 1024,
        timeout: timeoutMs,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout.trim());
        const detail = error.killed
          ? `no answer within ${timeoutMs / 1000} s`
          : stderr.trim().split('\n').slice(-3).join(' ') || error.message;
        reject(new CliError('failed', 'git_failed', `git ${subcommand(args)} failed: ${detail}`, { cause: error }));
      },
    );
  });
}

/** Like {@link git}, but resolves `undefined` instead of failing (for probes such as `rev-parse --verify`). */
export async function gitOrUndefined(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  try {
    return await git(args, env);
  } catch {
    return undefined;
  }
}

function subcommand(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    if (args[index] === '-C' || args[index] === '-c') index++;
    else return args[index] ?? '';
  }
  return '';
}

/** git's own limit for a stalled HTTP transfer (below 1 KiB/s for the timeout's seconds); none without a timeout. */
function slowTransferLimit(timeoutMs: number): Record<string, string> {
  if (timeoutMs <= 0) return {};
  return {
    GIT_HTTP_LOW_SPEED_LIMIT: '1024',
    GIT_HTTP_LOW_SPEED_TIME: String(Math.max(1, Math.ceil(timeoutMs / 1000))),
  };
}
