import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diff3Merge } from 'node-diff3';

/** The three versions of one text file and the names its conflict markers show. */
export interface ThreeWayInput {
  /** The author's file as it is now (`ours`). */
  readonly current: string;
  /** The old template's render (the common ancestor). */
  readonly base: string;
  /** The new template's render (`theirs`). */
  readonly other: string;
  /** Marker labels: `<<<<<<< current`, `>>>>>>> other` (e.g. `yours`, `template v1.1.0`). */
  readonly labels: { readonly current: string; readonly base: string; readonly other: string };
}

/** The merged text, how many conflict blocks it holds, and which engine merged it. */
export interface ThreeWayResult {
  readonly text: string;
  readonly conflicts: number;
  readonly engine: 'git' | 'diff3';
}

/**
 * Merges the change from `base` to `other` into `current`, marking each conflict the way git does
 * (`<<<<<<< current`, `=======`, `>>>>>>> other`): with `git merge-file` when git is on the
 * `PATH` of `env`, else with the `node-diff3` library, line by line.
 * @param input the three texts and the marker labels.
 * @param env the environment whose `PATH` is searched for git.
 */
export async function mergeThreeWay(
  input: ThreeWayInput,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ThreeWayResult> {
  const merged = await mergeWithGit(input, env);
  return merged ?? mergeWithDiff3(input);
}

/** `git merge-file -p`; `undefined` when git cannot be started (not on the PATH). */
async function mergeWithGit(
  input: ThreeWayInput,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ThreeWayResult | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'actorkit-merge-'));
  try {
    const files = { current: join(dir, 'current'), base: join(dir, 'base'), other: join(dir, 'other') };
    await Promise.all([
      writeFile(files.current, input.current),
      writeFile(files.base, input.base),
      writeFile(files.other, input.other),
    ]);
    const { labels } = input;
    const args = [
      'merge-file',
      '-p',
      '-L',
      labels.current,
      '-L',
      labels.base,
      '-L',
      labels.other,
      files.current,
      files.base,
      files.other,
    ];
    return await new Promise<ThreeWayResult | undefined>((resolve, reject) => {
      execFile(
        'git',
        args,
        { env: { ...env, GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
        (error, stdout, stderr) => {
          if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') return resolve(undefined);
          const exit = error ? Number((error as { code?: unknown }).code) : 0;
          // git merge-file exits with the number of conflicts (capped at 127); a negative or signal exit is an error.
          if (error && !(Number.isInteger(exit) && exit > 0 && exit < 128))
            return reject(new Error(`git merge-file failed: ${stderr.trim() || error.message}`));
          resolve({ text: stdout, conflicts: exit, engine: 'git' });
        },
      );
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The same merge with `node-diff3` over lines (each keeping its newline). */
function mergeWithDiff3(input: ThreeWayInput): ThreeWayResult {
  const regions = diff3Merge(lines(input.current), lines(input.base), lines(input.other), {
    excludeFalseConflicts: true,
  });
  let text = '';
  let conflicts = 0;
  for (const region of regions) {
    if (region.ok) text += region.ok.join('');
    else if (region.conflict) {
      conflicts += 1;
      text += `<<<<<<< ${input.labels.current}\n${block(region.conflict.a)}=======\n${block(region.conflict.b)}>>>>>>> ${input.labels.other}\n`;
    }
  }
  return { text, conflicts, engine: 'diff3' };
}

/** Splits text into lines that keep their `\n` (the last may have none). */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** One side of a conflict, ending with a newline so the next marker starts a line. */
function block(side: readonly string[]): string {
  const text = side.join('');
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
