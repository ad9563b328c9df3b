import { gitOrUndefined } from '../render/git.js';

/** What git says about the actor folder before an update. */
export type WorkingTreeState =
  | { readonly tracked: false }
  | { readonly tracked: true; readonly changes: readonly string[] };

/**
 * Lists the uncommitted changes under a folder (`git status --porcelain -- .`), or says it is not
 * inside a git working tree (or git is missing).
 * @param dir the actor folder.
 * @param env the environment git runs with.
 */
export async function workingTreeState(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<WorkingTreeState> {
  const inside = await gitOrUndefined(['-C', dir, 'rev-parse', '--is-inside-work-tree'], env);
  if (inside !== 'true') return { tracked: false };
  const status = await gitOrUndefined(['-C', dir, 'status', '--porcelain', '--untracked-files=all', '--', '.'], env);
  return { tracked: true, changes: (status ?? '').split('\n').filter((line) => line !== '') };
}
